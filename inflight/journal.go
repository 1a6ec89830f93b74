package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// journal is the store's write-ahead log beside the bbolt file. New
// previews are appended without fsync (a killed process's writes stay in
// the page cache; only a machine crash loses them, and a lost preview is
// never confirmable, never wrong). A confirm's claim and a motion's
// terminal or unknown state are appended with fdatasync before the call
// returns: one flush of the device, where a bbolt commit pays two and
// writes its pages first. The flusher copies everything into bbolt soon
// after; Open applies what a dead process left before anything reads.
//
// Two files take turns: a flush makes the empty one active, commits what
// the other holds, then empties it. Both exist from Open on (their
// directory entries synced once), so a durable append never depends on a
// file created later. Emptying keeps the file's blocks: every line is
// written with a NUL after it, which ends reading, and the next line
// overwrites that NUL. Appends then rewrite blocks already allocated, and
// fdatasync flushes data only, no metadata (a truncate and re-extend cost
// a journal commit of the file system per claim).
//
// journalPrealloc is how much of each file Open writes with zeros;
// journalKeep is the size past which emptying truncates after all.
const (
	journalPrealloc = 64 << 10
	journalKeep     = 4 << 20
)

type journal struct {
	mu      sync.Mutex // appends, syncs and turns; taken before pending.mu
	files   [2]*os.File
	size    [2]int64
	active  int
	sync    func(*os.File) error // fdatasync where the platform has it
	observe func(time.Duration)  // Options.ObserveCommit, for durable appends
}

// journalLine is one line of a journal file. Kind "p" is a preview, "c" a
// claim (the motion and the preview it used, in one line, so a torn write
// loses both or neither), "m" a motion's new state. A line without a
// kind is a preview as older builds wrote it.
type journalLine struct {
	Kind    string   `json:"k"`
	Motion  *Motion  `json:"m,omitempty"`
	Preview *Preview `json:"p,omitempty"`
}

// journalPaths are the two files of the store at path, and the files older
// builds wrote (read once at Open, then removed).
func journalPaths(path string) (files [2]string, legacy []string) {
	return [2]string{path + ".journal-a", path + ".journal-b"}, []string{path + ".previews.old", path + ".previews"}
}

// readJournals returns every valid line a previous process left, legacy
// files first.
func readJournals(path string) ([]journalLine, error) {
	files, legacy := journalPaths(path)
	var out []journalLine
	for _, p := range append(legacy, files[:]...) {
		ls, err := readJournal(p)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// readJournal returns the valid lines of one journal file, read whole (no
// line-length limit: a long claim line must never end replay early). A
// NUL (the end marker), a line without its newline (the process died
// mid-write) or any invalid line ends the file; nothing after it counts.
func readJournal(path string) ([]journalLine, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inflight: journal: %w", err)
	}
	var out []journalLine
	for len(b) > 0 && b[0] != 0 {
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			break
		}
		l, ok := parseJournalLine(b[:end])
		if !ok {
			break
		}
		out = append(out, l)
		b = b[end+1:]
	}
	return out, nil
}

func parseJournalLine(b []byte) (journalLine, bool) {
	var l journalLine
	if json.Unmarshal(b, &l) != nil {
		return l, false
	}
	if l.Kind == "" { // an older build's preview line
		var p Preview
		if json.Unmarshal(b, &p) != nil {
			return l, false
		}
		l = journalLine{Kind: "p", Preview: &p}
	}
	okPreview := func(p *Preview) bool { return p != nil && p.validate() == nil && p.Version <= recordVersion }
	okMotion := func(m *Motion) bool { return m != nil && m.validate() == nil && m.Version <= recordVersion }
	switch l.Kind {
	case "p": // a new preview, or (durable) one a retried confirm marked used
		return l, okPreview(l.Preview) && l.Motion == nil
	case "c":
		return l, okPreview(l.Preview) && okMotion(l.Motion) && l.Preview.UsedBy == l.Motion.ID
	case "m":
		return l, okMotion(l.Motion) && l.Preview == nil
	}
	return l, false
}

// openJournal creates (or empties) the two files once what they held is
// applied, removes legacy files, and syncs the directory so the files'
// entries are durable before any line relies on them.
func openJournal(path string, opts Options) (*journal, error) {
	files, legacy := journalPaths(path)
	j := &journal{sync: datasync, observe: opts.ObserveCommit}
	if opts.UnsafeNoSync {
		j.sync = func(*os.File) error { return nil }
	}
	for i, p := range files {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
		if err == nil {
			j.files[i] = f
			if _, err = f.WriteAt(make([]byte, journalPrealloc), 0); err == nil {
				err = j.sync(f)
			}
		}
		if err != nil {
			j.close()
			return nil, fmt.Errorf("inflight: journal: %w", err)
		}
	}
	for _, p := range legacy {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			j.close()
			return nil, fmt.Errorf("inflight: journal: %w", err)
		}
	}
	syncDir(filepath.Dir(path))
	return j, nil
}

// appendLocked writes b as one line to the active file, with fdatasync
// when durable. On failure the NUL goes back where the line began, so a
// line whose write failed is not applied by the next Open. j.mu is held.
func (j *journal) appendLocked(b []byte, durable bool) error {
	f, at := j.files[j.active], j.size[j.active]
	start := time.Now()
	_, err := f.WriteAt(append(b, '\n', 0), at)
	if err == nil && durable {
		err = j.sync(f)
		if err == nil && j.observe != nil {
			j.observe(time.Since(start))
		}
	}
	if err != nil {
		_, _ = f.WriteAt([]byte{0}, at)
		return fmt.Errorf("inflight: journal append: %w", err)
	}
	j.size[j.active] += int64(len(b) + 1)
	return nil
}

// turnLocked makes the other file active if it is empty and returns the
// file a successful commit of everything pending now may empty: the one
// that just stopped being active, or the inactive one still waiting for a
// commit that failed before. j.mu is held.
func (j *journal) turnLocked() (inactive int) {
	other := 1 - j.active
	if j.size[other] == 0 {
		j.active = other
	}
	return 1 - j.active
}

// committed empties file i once a commit holds everything written to it.
func (j *journal) committed(i int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if i == j.active || j.size[i] == 0 {
		return
	}
	f := j.files[i]
	if j.size[i] > journalKeep {
		if f.Truncate(0) == nil {
			j.size[i] = 0
		}
		return
	}
	if _, err := f.WriteAt([]byte{0}, 0); err == nil {
		j.size[i] = 0
	}
}

func (j *journal) close() error {
	j.mu.Lock() // an append in flight finishes first
	defer j.mu.Unlock()
	var first error
	for _, f := range j.files {
		if f != nil {
			if err := f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// unapplied reads the journals a previous process left at path and returns
// the versions newer than what the bbolt file holds.
func (s *Store) unapplied(path string) (ms []Motion, ps []Preview, err error) {
	lines, err := readJournals(path)
	if err != nil || len(lines) == 0 {
		return nil, nil, err
	}
	motions, previews := map[string]Motion{}, map[string]Preview{}
	for _, l := range lines {
		if m := l.Motion; m != nil {
			if cur, ok := motions[m.ID]; !ok || newerMotion(*m, cur) {
				motions[m.ID] = *m
			}
		}
		if p := l.Preview; p != nil {
			if cur, ok := previews[p.ID]; !ok || newerPreview(*p, cur) {
				previews[p.ID] = *p
			}
		}
	}
	err = s.view(func(tx *bolt.Tx) error {
		mb, _, pb, err := recordBuckets(tx)
		if err != nil {
			return err
		}
		for _, id := range slices.Sorted(maps.Keys(motions)) {
			m := motions[id]
			if v := mb.Get([]byte(id)); v != nil {
				stored, err := decodeMotion(v)
				if err != nil {
					return err
				}
				if !newerMotion(m, stored) {
					continue
				}
			}
			ms = append(ms, m)
		}
		for _, id := range slices.Sorted(maps.Keys(previews)) {
			p := previews[id]
			stored, err := loadPreview(pb, id)
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				return err
			case !newerPreview(p, stored):
				continue
			}
			ps = append(ps, p)
		}
		return nil
	})
	return ms, ps, err
}

// apply commits journaled versions into bbolt (Open, before any read).
func (s *Store) apply(ms []Motion, ps []Preview) error {
	if len(ms)+len(ps) == 0 {
		return nil
	}
	return s.update(context.Background(), func(tx *bolt.Tx) (bool, error) {
		return true, putRecords(tx, ms, ps)
	})
}

// putRecords writes motions (with their order entries) and previews.
func putRecords(tx *bolt.Tx, ms []Motion, ps []Preview) error {
	motions, order, previews, err := recordBuckets(tx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := putMotion(motions, order, m); err != nil {
			return err
		}
	}
	for _, p := range ps {
		if err := putPreview(previews, p); err != nil {
			return err
		}
	}
	return nil
}

// recordBuckets are the buckets a journal line's records live in.
func recordBuckets(tx *bolt.Tx) (motions, order, previews *bolt.Bucket, err error) {
	if motions, order, err = motionBuckets(tx); err != nil {
		return nil, nil, nil, err
	}
	previews, err = bucket(tx, bucketPreviews)
	return motions, order, previews, err
}

// newerMotion says whether a is a later version of the same motion than b:
// more steps in its history, or the same steps updated later.
func newerMotion(a, b Motion) bool {
	if len(a.History) != len(b.History) {
		return len(a.History) > len(b.History)
	}
	return a.UpdatedAt.After(b.UpdatedAt)
}

// newerPreview: a used preview is later than the same preview unused.
func newerPreview(a, b Preview) bool { return a.UsedBy != "" && b.UsedBy == "" }
