package inflight

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testdata/oldjournal holds what the build before the journal's removal
// (31687b7) left when killed right after a confirm: the preview committed
// to actbridge.db unused, the claim (motion and used preview) only in
// journal-b, and journal-a emptied by a flush (a NUL before a stale line).
const goldenDir = "testdata/oldjournal"

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oldStore copies the golden store into a new directory, with the given
// files (by suffix of the store's name) beside it, and returns its path.
func oldStore(t *testing.T, beside map[string][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "actbridge.db")
	if err := os.WriteFile(path, golden(t, "actbridge.db"), 0o600); err != nil {
		t.Fatal(err)
	}
	for suffix, b := range beside {
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// dirFiles is every file in dir by name, with its bytes.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

var oldJournalSuffixes = []string{".journal-a", ".journal-b", ".previews", ".previews.old"}

func TestAStoreWithAnOldJournalHoldingLinesIsRefused(t *testing.T) {
	claim := golden(t, "actbridge.db.journal-b")
	type tc struct {
		name   string
		beside map[string][]byte
		holder string // the file the error must name
	}
	cases := []tc{
		{"as the old build left it", map[string][]byte{".journal-a": golden(t, "actbridge.db.journal-a"), ".journal-b": claim}, ".journal-b"},
		{"a torn line counts", map[string][]byte{".journal-a": append([]byte(`{"k":"c","m":{"v":1,"id":"9b2e`), make([]byte, 64)...)}, ".journal-a"},
	}
	for _, s := range oldJournalSuffixes {
		cases = append(cases, tc{"a claim in " + s, map[string][]byte{s: claim}, s})
	}
	for _, c := range cases {
		for _, readOnly := range []bool{false, true} {
			t.Run(c.name+map[bool]string{false: "", true: " (read-only)"}[readOnly], func(t *testing.T) {
				path := oldStore(t, c.beside)
				before := dirFiles(t, filepath.Dir(path))
				s, err := Open(path, Options{ReadOnly: readOnly})
				if err == nil {
					_ = s.Close()
				}
				if !errors.Is(err, ErrOldJournal) {
					t.Fatalf("Open = %v, want ErrOldJournal", err)
				}
				if msg := err.Error(); !strings.Contains(msg, path+c.holder) || !strings.Contains(msg, "start the previous actbridge build") {
					t.Errorf("the message names neither the file nor what to do: %s", msg)
				}
				if after := dirFiles(t, filepath.Dir(path)); !maps.EqualFunc(before, after, bytes.Equal) {
					t.Errorf("a refused Open changed the directory: %v, was %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
				}
			})
		}
	}
}

func TestOldJournalFilesThatHoldNothingAreRemoved(t *testing.T) {
	emptied := golden(t, "actbridge.db.journal-a") // a NUL, then a line already applied
	zeros := make([]byte, 64<<10)                  // preallocated, never written
	all := func(b []byte) map[string][]byte {
		m := map[string][]byte{}
		for _, s := range oldJournalSuffixes {
			m[s] = b
		}
		return m
	}
	cases := []struct {
		name   string
		beside map[string][]byte
	}{
		{"no old files", nil},
		{"empty files", all(nil)},
		{"preallocated files", all(zeros)},
		{"files a clean stop of the old build left", map[string][]byte{".journal-a": emptied, ".journal-b": zeros}},
	}
	for _, c := range cases {
		for _, readOnly := range []bool{false, true} {
			t.Run(c.name+map[bool]string{false: "", true: " (read-only)"}[readOnly], func(t *testing.T) {
				path := oldStore(t, c.beside)
				before := dirFiles(t, filepath.Dir(path))
				s := openStore(t, path, Options{ReadOnly: readOnly})
				if _, _, _, err := s.List(Filter{}, "", 10); err != nil {
					t.Fatalf("the opened store does not read: %v", err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				after := dirFiles(t, filepath.Dir(path))
				for suffix, b := range c.beside {
					left, ok := after[filepath.Base(path+suffix)]
					switch {
					case !readOnly && ok:
						t.Errorf("%s is still there", suffix)
					case readOnly && (!ok || !bytes.Equal(left, b)):
						t.Errorf("a read-only Open changed %s", suffix)
					}
				}
				if readOnly && !maps.EqualFunc(before, after, bytes.Equal) {
					t.Errorf("a read-only Open changed the directory")
				}
			})
		}
	}
}
