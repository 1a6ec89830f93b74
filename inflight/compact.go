package inflight

import (
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

const (
	// defaultCompactMinBytes: smaller files are not worth rewriting at Open.
	defaultCompactMinBytes = 16 << 20
	// compactTxBytes bounds each copy transaction so compaction needs little memory.
	compactTxBytes = 16 << 20
)

// compactIfSparse rewrites the file when less than half of it is live data:
// bbolt reuses free pages but never returns them to the disk, so a burst
// (say a million audit lines later swept by retention) leaves a large file
// behind. It runs inside Open, while we hold the lock. A failure before the
// new file replaces the old one keeps the old one; a failure after is fatal,
// since the old handle then points at an unlinked file.
func compactIfSparse(db *bolt.DB, path string, opts Options) (*bolt.DB, error) {
	tmp := path + ".compact"
	_ = os.Remove(tmp) // left by a crash during an earlier compaction
	if !sparse(db, path, opts.compactMinBytes) {
		return db, nil
	}
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{
		Timeout: opts.LockTimeout, NoSync: opts.UnsafeNoSync, FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		return db, nil
	}
	err = bolt.Compact(dst, db, compactTxBytes)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return db, nil
	}
	syncDir(filepath.Dir(path))
	fresh, err := openBolt(path, opts)
	_ = db.Close()
	if err != nil {
		return nil, fmt.Errorf("inflight: reopen %s after compaction: %w", path, err)
	}
	return fresh, nil
}

// sparse reports whether the file is at least minBytes and under half live.
func sparse(db *bolt.DB, path string, minBytes int64) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < minBytes {
		return false
	}
	var live int64
	_ = db.View(func(tx *bolt.Tx) error {
		live = tx.Size() - int64(db.Stats().FreeAlloc)
		return nil
	})
	return live*2 < fi.Size()
}

// syncDir makes a rename durable. Best effort: some filesystems refuse it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
