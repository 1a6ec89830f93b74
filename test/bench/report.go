package bench

import (
	"fmt"
	"math"
	"strings"
)

// Row is one line of the table: a measurement, its floor from the same
// run, the ratio between them and the target.
type Row struct {
	Key    string // confirm, reads/<clients>, reads_lean/<clients>, preview, ingest, stop, navigate, store, rss
	What   string
	Result string
	Floor  string
	Ratio  string
	Target string
	Met    string
	// Values holds the raw numbers (ms, calls/s, %, MB…) by name, so the
	// tiny harness test can check that every measurement produced some.
	Values map[string]float64
}

// Check says which required values are missing or not finite.
func (r Row) Check(required ...string) error {
	var bad []string
	for _, k := range required {
		v, ok := r.Values[k]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			bad = append(bad, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("row %q: bad values %s", r.What, strings.Join(bad, ", "))
	}
	return nil
}

// Markdown renders rows as one table.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| measurement | result | floor (same run) | ratio to floor | target | met |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	cell := func(s string) string {
		if s == "" {
			return "–"
		}
		return strings.ReplaceAll(s, "|", "\\|")
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", cell(r.What), cell(r.Result), cell(r.Floor), cell(r.Ratio), cell(r.Target), cell(r.Met))
	}
	return b.String()
}
