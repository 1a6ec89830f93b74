package inflight

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// oldJournalPaths are the files builds before the journal's removal kept
// beside the store at path: the journal's two turns and the preview logs
// that came before them. This build never reads their records; it only
// asks whether they hold any.
func oldJournalPaths(path string) []string {
	return []string{path + ".previews.old", path + ".previews", path + ".journal-a", path + ".journal-b"}
}

// checkOldJournal refuses a store whose old journal still holds records
// bbolt may not have (a confirmed motion, a used preview: opening without
// them could send a goal twice) and removes old files that hold nothing,
// unless readOnly. Open calls it holding the store's lock, so no old
// bridge is writing them, and before anything is written to the file.
func checkOldJournal(path string, readOnly bool) error {
	var empty []string
	for _, p := range oldJournalPaths(path) {
		held, err := holdsLines(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("inflight: old journal: %w", err)
		case held:
			return fmt.Errorf("%w: %s holds records that may be missing from %s; "+
				"start the previous actbridge build (one older than commit 77a76ca, which removed the journal) once on this store "+
				"and stop it cleanly, which applies the journal into the store, then start this build again",
				ErrOldJournal, p, path)
		}
		empty = append(empty, p)
	}
	if readOnly || len(empty) == 0 {
		return nil
	}
	for _, p := range empty {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("inflight: old journal: %w", err)
		}
	}
	syncDir(filepath.Dir(path))
	return nil
}

// holdsLines says whether an old journal file holds anything: the old
// build preallocated its files with zeros and wrote a NUL after its last
// line, so an empty file or one whose first byte is NUL holds nothing.
// Any other first byte counts, even a torn line the old build would have
// skipped: refusing then costs one start of that build, while judging
// lines here would bring back a decoder of a format nothing writes.
func holdsLines(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var first [1]byte
	switch _, err := f.Read(first[:]); {
	case errors.Is(err, io.EOF):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return first[0] != 0, nil
}
