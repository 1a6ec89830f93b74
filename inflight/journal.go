package inflight

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// previewJournal holds new previews in a file written without fsync until
// the flusher commits them: a killed process's writes stay in the page
// cache, so the next Open finds every preview it had issued and a planner's
// confirm retried across a bridge restart still works. Only a machine crash
// can lose journaled previews, and a lost preview is never confirmable,
// never wrong. The flusher rotates the file to <path>.old before a commit
// and removes that once the commit is durable.
type previewJournal struct {
	path  string
	f     *os.File
	stuck bool // the rotated file is still the one written
}

// openJournal reads what a previous process left (the rotated file first)
// and opens path for appending.
func openJournal(path string) (*previewJournal, []Preview, error) {
	var found []Preview
	for _, p := range []string{path + ".old", path} {
		ps, err := readJournal(p)
		if err != nil {
			return nil, nil, err
		}
		found = append(found, ps...)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("inflight: preview journal: %w", err)
	}
	return &previewJournal{path: path, f: f}, found, nil
}

// readJournal returns the valid previews of one journal file. A torn last
// line (the process died mid-write) ends the file; nothing after it counts.
func readJournal(path string) ([]Preview, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inflight: preview journal: %w", err)
	}
	defer f.Close()
	var out []Preview
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var p Preview
		if json.Unmarshal(sc.Bytes(), &p) != nil || p.validate() != nil || p.Version > recordVersion {
			break
		}
		out = append(out, p)
	}
	return out, nil
}

// add appends p with one write call; no fsync.
func (j *previewJournal) add(p Preview) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = j.f.Write(append(b, '\n'))
	return err
}

// rotate moves the journal aside before a flush commits what it holds. If
// an earlier rotated file is still there (its flush failed), the journal
// just keeps growing until a flush succeeds.
func (j *previewJournal) rotate() {
	if _, err := os.Stat(j.path + ".old"); err == nil {
		return
	}
	if err := os.Rename(j.path, j.path+".old"); err != nil {
		return
	}
	f, err := os.OpenFile(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		j.stuck = true // keep appending to the rotated file and never remove it
		return
	}
	_ = j.f.Close()
	j.f = f
}

// committed removes the rotated file once a flush made its previews durable.
func (j *previewJournal) committed() {
	if !j.stuck {
		_ = os.Remove(j.path + ".old")
	}
}

func (j *previewJournal) close() error { return j.f.Close() }

// unstored keeps the journaled previews the store does not hold yet; a
// later line for the same id wins.
func (s *Store) unstored(ps []Preview) []Preview {
	byID := map[string]Preview{}
	var order []string
	for _, p := range ps {
		if _, seen := byID[p.ID]; !seen {
			order = append(order, p.ID)
		}
		byID[p.ID] = p
	}
	var out []Preview
	for _, id := range order {
		if _, err := s.GetPreview(id); errors.Is(err, ErrNotFound) {
			out = append(out, byID[id])
		}
	}
	return out
}
