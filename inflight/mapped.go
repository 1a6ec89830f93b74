package inflight

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// ReleaseMapped drops this process's mappings of the store file's pages.
// bbolt reads the file through a memory map, and every page it ever read
// (each audit leaf, while it was the one appended to) stays mapped and
// counted in the bridge's RSS: tens of MB after a busy hour. The pages
// stay in the page cache; the next read maps them again with a minor
// fault. The read transaction keeps bbolt from remapping meanwhile; the
// range is bounded by the file's size as well as the transaction's, so a
// damaged meta page can never make it reach past bbolt's mapping (which
// covers at least the file).
func (s *Store) ReleaseMapped() error {
	if s.closed.Load() {
		return ErrClosed
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("inflight: release mapped pages of %s: %w", s.path, err)
	}
	return s.db.View(func(tx *bolt.Tx) error {
		if err := dropMapping(s.db.Info().Data, min(tx.Size(), fi.Size())); err != nil {
			return fmt.Errorf("inflight: release mapped pages of %s: %w", s.path, err)
		}
		return nil
	})
}
