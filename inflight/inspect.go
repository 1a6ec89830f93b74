package inflight

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

// These writers back `actbridge motions` and `actbridge audit --jsonl`. They
// read page by page in short transactions, so they are safe on a live
// Store; offline, open the file with Options{ReadOnly: true}, which fails
// with ErrLocked while a bridge owns it.

// WriteMotionsTable writes the motions matching f as an aligned text table
// in creation order.
func (s *Store) WriteMotionsTable(w io.Writer, f Filter) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tACTUATOR\tTOOL\tPROGRESS\tCONFIRMED\tCREATED\tUPDATED\tERROR")
	err := s.eachMotion(f, func(m Motion) error {
		_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f%%\t%s\t%s\t%s\t%s\n",
			m.ID, m.State, m.Actuator, m.Tool, m.Progress*100, cell(m.ConfirmedBy(), 28),
			m.CreatedAt.Format(time.RFC3339), m.UpdatedAt.Format(time.RFC3339), cell(m.ErrorText, 60))
		return err
	})
	if err != nil {
		return err
	}
	return tw.Flush()
}

// WriteMotionsJSON writes the motions matching f as one JSON array, a
// motion per line, in creation order.
func (s *Store) WriteMotionsJSON(w io.Writer, f Filter) error {
	sep := "[\n"
	err := s.eachMotion(f, func(m Motion) error {
		b, err := json.Marshal(m)
		if err == nil {
			_, err = fmt.Fprintf(w, "%s%s", sep, b)
		}
		sep = ",\n"
		return err
	})
	if err != nil {
		return err
	}
	if sep == "[\n" {
		_, err = io.WriteString(w, "[]\n")
	} else {
		_, err = io.WriteString(w, "\n]\n")
	}
	return err
}

// WriteAuditJSONL writes the whole audit log, one JSON object per line, in
// append order.
func (s *Store) WriteAuditJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	cursor := ""
	for {
		page, next, err := s.AuditList(cursor, maxPageLimit)
		if err != nil {
			return err
		}
		for _, r := range page {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

func (s *Store) eachMotion(f Filter, fn func(Motion) error) error {
	cursor := ""
	for {
		page, _, next, err := s.List(f, cursor, maxPageLimit)
		if err != nil {
			return err
		}
		for _, m := range page {
			if err := fn(m); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// cell keeps a table cell on one line and at most n runes.
func cell(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
