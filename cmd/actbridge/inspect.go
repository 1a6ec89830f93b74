package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/actbridge/actbridge/inflight"
)

func defaultStore() string { return filepath.Join(defaultDataDir(), "actbridge.db") }

// motionsCmd lists the motions of a store, read-only.
func motionsCmd(args []string, out io.Writer) error {
	fs := newFlags("motions", out)
	path := fs.String("store", defaultStore(), "the bridge's store file")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	state := fs.String("state", "", "only motions in this state")
	if err := parse(fs, args); err != nil {
		return err
	}
	s, err := inflight.Open(*path, inflight.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store %s: %w", *path, err)
	}
	defer s.Close()
	f := inflight.Filter{}
	if *state != "" {
		f.States = []inflight.State{inflight.State(*state)}
	}
	if *asJSON {
		return s.WriteMotionsJSON(out, f)
	}
	return s.WriteMotionsTable(out, f)
}

// auditCmd prints the audit log as JSON lines, read-only.
func auditCmd(args []string, out io.Writer) error {
	fs := newFlags("audit", out)
	path := fs.String("store", defaultStore(), "the bridge's store file")
	jsonl := fs.Bool("jsonl", true, "print JSON lines (the only format)")
	if err := parse(fs, args); err != nil {
		return err
	}
	_ = jsonl
	s, err := inflight.Open(*path, inflight.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store %s: %w", *path, err)
	}
	defer s.Close()
	return s.WriteAuditJSONL(out)
}
