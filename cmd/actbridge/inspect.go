package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/actbridge/actbridge/console"
	"github.com/actbridge/actbridge/inflight"
)

func defaultStore() string { return filepath.Join(defaultDataDir(), "actbridge.db") }

// recordsFlags say where the records are: the store file, and the bridge
// to ask while it holds that file locked.
type recordsFlags struct {
	store, bridge, tokenFile *string
}

func addRecordsFlags(fs *flag.FlagSet) recordsFlags {
	return recordsFlags{
		store:     fs.String("store", defaultStore(), "the bridge's store file"),
		bridge:    fs.String("bridge", "http://127.0.0.1:8765", "the running bridge to ask while it holds the store locked (its --listen address)"),
		tokenFile: fs.String("operator-token-file", "", "file holding the operator's bearer token for --bridge (or ACTBRIDGE_OPERATOR_TOKEN; else operator.token beside --store)"),
	}
}

// printRecords prints from the store file, read-only; while a bridge holds
// the file locked it asks that bridge (GET /console/api/<what>) instead,
// which answers with the same bytes.
func printRecords(rf recordsFlags, what string, q url.Values, out io.Writer, offline func(*inflight.Store) error) error {
	s, err := inflight.Open(*rf.store, inflight.Options{ReadOnly: true})
	if err == nil {
		defer s.Close()
		return offline(s)
	}
	if !errors.Is(err, inflight.ErrLocked) {
		return fmt.Errorf("store %s: %w", *rf.store, err)
	}
	if aerr := askBridge(rf, what, q, out); aerr != nil {
		return fmt.Errorf("store %s is locked by a running bridge, and asking the bridge failed: %w", *rf.store, aerr)
	}
	return nil
}

// askBridge copies the bridge's answer to out, once the bridge has said it
// serves the store asked for.
func askBridge(rf recordsFlags, what string, q url.Values, out io.Writer) error {
	token, err := readToken(*rf.tokenFile, "ACTBRIDGE_OPERATOR_TOKEN")
	if err != nil {
		return err
	}
	if token == "" { // a bridge with no operator token configured wrote one beside its store
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(*rf.store), operatorTokenName)); err == nil {
			token = strings.TrimSpace(string(b))
		}
	}
	u, err := url.Parse(strings.TrimSuffix(*rf.bridge, "/") + "/console/api/" + what)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Sprintf("--bridge %q is not an http(s) address", *rf.bridge)}
	}
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Message string `json:"message"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &e) != nil || e.Message == "" {
			e.Message = strings.TrimSpace(string(b))
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			e.Message += " (give the operator token: ACTBRIDGE_OPERATOR_TOKEN or --operator-token-file)"
		}
		return fmt.Errorf("%s answered %s: %s", *rf.bridge, resp.Status, e.Message)
	}
	want, err := filepath.Abs(*rf.store)
	if err != nil {
		return err
	}
	if got := resp.Header.Get(console.StoreHeader); !sameFile(got, want) {
		return fmt.Errorf("the bridge at %s serves the store %q, not %s; point --bridge at the bridge that owns it", *rf.bridge, got, want)
	}
	_, err = io.Copy(out, resp.Body)
	return err
}

// sameFile compares two absolute paths after resolving symbolic links.
func sameFile(a, b string) bool {
	if a == "" {
		return false
	}
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return a == b
}

// motionsCmd lists the motions of a store, read-only.
func motionsCmd(args []string, out io.Writer) error {
	fs := newFlags("motions", out)
	rf := addRecordsFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	state := fs.String("state", "", "only motions in this state")
	if err := parse(fs, args); err != nil {
		return err
	}
	f := inflight.Filter{}
	q := url.Values{"format": {"table"}}
	if *state != "" {
		f.States = []inflight.State{inflight.State(*state)}
		q.Set("state", *state)
	}
	if *asJSON {
		q.Set("format", "json")
	}
	return printRecords(rf, "motions", q, out, func(s *inflight.Store) error {
		if *asJSON {
			return s.WriteMotionsJSON(out, f)
		}
		return s.WriteMotionsTable(out, f)
	})
}

// auditCmd prints the audit log as JSON lines, read-only.
func auditCmd(args []string, out io.Writer) error {
	fs := newFlags("audit", out)
	rf := addRecordsFlags(fs)
	jsonl := fs.Bool("jsonl", true, "print JSON lines (the only format)")
	if err := parse(fs, args); err != nil {
		return err
	}
	_ = jsonl
	return printRecords(rf, "audit", nil, out, func(s *inflight.Store) error { return s.WriteAuditJSONL(out) })
}
