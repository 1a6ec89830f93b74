package inflight

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

const (
	// formatVersion is the store layout this build writes; raising it needs a
	// case in migrate.
	formatVersion uint32 = 1
	// recordVersion is stamped on every record; a newer one is refused.
	recordVersion = 1
)

const (
	// DefaultRetention keeps finished motions, previews, idempotency keys and
	// audit lines for a week.
	DefaultRetention = 7 * 24 * time.Hour
	// DefaultLockTimeout is how long Open waits for another process's lock.
	DefaultLockTimeout = 500 * time.Millisecond

	// batchDelay: writes arriving while a commit is in flight share the
	// next one anyway; a short window spares a lone caller bbolt's 10ms.
	batchDelay = time.Millisecond
)

const (
	bucketMeta        = "meta"
	bucketMotions     = "motions"      // id → Motion
	bucketMotionOrder = "motion_order" // created_at|id → state\x00actuator
	bucketPreviews    = "previews"     // id → Preview
	bucketKeys        = "idempotency"  // key → idempotency record
	bucketAudit       = "audit"        // sequence (big-endian) → AuditRecord
	metaFormat        = "format"
)

// Options tunes Open. The zero value is production-safe.
type Options struct {
	// Now stamps records; nil means time.Now. Tests pass a fake clock.
	Now func() time.Time
	// Retention is how long finished records are kept; zero means DefaultRetention.
	Retention time.Duration
	// ObserveCommit, if set, gets the duration of every fsynced commit (not
	// batched ones). It runs on the writer: keep it cheap.
	ObserveCommit func(time.Duration)
	// LockTimeout bounds the wait for another process's lock; zero means DefaultLockTimeout.
	LockTimeout time.Duration
	// ReadOnly opens for inspection (shared lock); every write returns ErrReadOnly.
	ReadOnly bool
	// UnsafeNoSync skips fsync: tests and benchmarks only. A crash can then
	// lose a motion record whose goal was already published.
	UnsafeNoSync bool

	compactMinBytes int64 // files smaller than this are never rewritten at Open
	maxBytes        int   // caps the file size, to simulate a full disk in tests
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.compactMinBytes <= 0 {
		o.compactMinBytes = defaultCompactMinBytes
	}
	return o
}

// Store holds previews, motions, idempotency keys and the audit log in one
// bbolt file. It is safe for concurrent use, and one process at a time owns
// the file: a second Open of the same path fails with ErrLocked.
type Store struct {
	db     *bolt.DB
	path   string
	opts   Options
	closed atomic.Bool

	mu      sync.Mutex
	lastErr error // last write failure; nil after a write succeeds

	// denials says whether a denial may exist, so Denied answers "none"
	// without a read in the usual case (a confirm asks every time). Open
	// sets it when the file holds one, and always for a read-only store
	// (another process writes); DenyPreview sets it before it writes one.
	denials atomic.Bool

	// previews keeps new previews decoded, for the confirm's read; the
	// stored record decides (previewCache).
	previews *previewCache
}

// Open opens (creating if needed) the store at path. Failures are distinct:
// ErrLocked, ErrReadOnly, ErrCorrupt, ErrNewerFormat, ErrOldJournal, or a
// wrapped OS error. A file mostly made of free pages is rewritten compactly first.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := precheck(path, opts.ReadOnly); err != nil {
		return nil, err
	}
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	if err := checkOldJournal(path, opts.ReadOnly); err != nil {
		_ = db.Close()
		return nil, err
	}
	s := &Store{db: db, path: path, opts: opts, previews: newPreviewCache()}
	if err := s.init(); err != nil {
		_ = db.Close()
		return nil, err
	}
	if !opts.ReadOnly {
		if s.db, err = compactIfSparse(db, path, opts); err != nil {
			return nil, err
		}
	}
	if err := s.noteDenials(); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	s.db.MaxBatchDelay = batchDelay
	return s, nil
}

// precheck refuses what bbolt would mishandle: a writable open of a file
// nobody may write (root ignores mode bits, but the operator meant it), and
// an empty file opened read-only (bbolt would try to initialise it).
func precheck(path string, readOnly bool) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !readOnly:
		return nil
	case err != nil:
		return fmt.Errorf("inflight: %w", err)
	case fi.IsDir():
		return fmt.Errorf("inflight: open %s: is a directory", path)
	case readOnly && fi.Size() == 0:
		return fmt.Errorf("%w: %s is empty", ErrCorrupt, path)
	case !readOnly && fi.Mode().Perm()&0o222 == 0:
		return fmt.Errorf("%w: %s has mode %s (use Options.ReadOnly to inspect it)", ErrReadOnly, path, fi.Mode().Perm())
	}
	return nil
}

// openBolt opens and locks the file. A fault while bbolt reads a damaged
// mapping becomes ErrCorrupt instead of killing the process.
func openBolt(path string, opts Options) (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, r)
		}
	}()
	for attempt := 0; ; attempt++ {
		var file *os.File
		bo := &bolt.Options{
			Timeout:      opts.LockTimeout,
			ReadOnly:     opts.ReadOnly,
			NoSync:       opts.UnsafeNoSync,
			FreelistType: bolt.FreelistMapType,
			MaxSize:      opts.maxBytes,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, perm)
				file = f
				return f, err
			},
		}
		db, err := bolt.Open(path, 0o600, bo)
		if err != nil {
			return nil, openError(path, opts, err)
		}
		// A compaction by the previous owner may have renamed a new file over
		// path while we waited on the old one's lock: we would own a ghost.
		if cur, err := os.Stat(path); err == nil && file != nil {
			if fi, err := file.Stat(); err == nil && os.SameFile(fi, cur) {
				return db, nil
			}
		}
		_ = db.Close()
		if attempt == 2 {
			return nil, fmt.Errorf("%w: %s keeps being replaced while opening", ErrLocked, path)
		}
	}
}

func openError(path string, opts Options, err error) error {
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return fmt.Errorf("%w: %s (waited %s; is actbridge serve running?)", ErrLocked, path, opts.LockTimeout)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum),
		errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrInvalidMapping):
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w: %s: %w", ErrReadOnly, path, err)
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return fmt.Errorf("inflight: %w", err) // it names the path already
	}
	return fmt.Errorf("inflight: open %s: %w", path, err)
}

// init checks the format marker and, when writable, creates or migrates the
// layout in one transaction.
func (s *Store) init() error {
	if s.opts.ReadOnly {
		return s.view(func(tx *bolt.Tx) error {
			v, err := readFormat(tx)
			switch {
			case err != nil:
				return err
			case v == 0:
				return fmt.Errorf("%w: %s has no actbridge format marker", ErrCorrupt, s.path)
			case v > formatVersion:
				return fmt.Errorf("%w: %s is format %d, this build knows %d", ErrNewerFormat, s.path, v, formatVersion)
			case v < formatVersion:
				return fmt.Errorf("%w: %s is format %d and needs migrating to %d: open it read-write once", ErrReadOnly, s.path, v, formatVersion)
			}
			return nil
		})
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		v, err := readFormat(tx)
		if err != nil {
			return err
		}
		if v > formatVersion {
			return fmt.Errorf("%w: %s is format %d, this build knows %d", ErrNewerFormat, s.path, v, formatVersion)
		}
		if v == formatVersion {
			return nil
		}
		for ; v < formatVersion; v++ {
			if err := migrate(tx, v); err != nil {
				return fmt.Errorf("inflight: migrate %s from format %d: %w", s.path, v, err)
			}
		}
		return tx.Bucket([]byte(bucketMeta)).Put([]byte(metaFormat), binary.BigEndian.AppendUint32(nil, formatVersion))
	})
	if err != nil && !errors.Is(err, ErrNewerFormat) && !errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("inflight: initialise %s: %w", s.path, err)
	}
	return err
}

func readFormat(tx *bolt.Tx) (uint32, error) {
	meta := tx.Bucket([]byte(bucketMeta))
	if meta == nil {
		if k, _ := tx.Cursor().First(); k != nil {
			return 0, fmt.Errorf("%w: %s holds bucket %q but no format marker", ErrCorrupt, tx.DB().Path(), k)
		}
		return 0, nil // a new file
	}
	v := meta.Get([]byte(metaFormat))
	if len(v) != 4 {
		return 0, fmt.Errorf("%w: %s has a malformed format marker", ErrCorrupt, tx.DB().Path())
	}
	return binary.BigEndian.Uint32(v), nil
}

// migrate moves the layout from format `from` to from+1 inside Open's
// transaction. This is the hook for format changes: add a case, never edit
// an old one, and keep decoding every record version still on disk.
func migrate(tx *bolt.Tx, from uint32) error {
	switch from {
	case 0: // a new file
		for _, name := range []string{bucketMeta, bucketMotions, bucketMotionOrder, bucketPreviews, bucketKeys, bucketAudit} {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("no migration from format %d", from)
}

// Close releases the file and its lock. Stop RunRetention first.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.db.Close()
}

// Path is the store's file; the console names it on inspection answers.
func (s *Store) Path() string { return s.path }

// Healthy returns why the store cannot take irreversible calls: the last
// write failure (cleared by the next successful write), ErrReadOnly or
// ErrClosed. nil means the last write reached the disk.
func (s *Store) Healthy() error {
	switch {
	case s.closed.Load():
		return ErrClosed
	case s.opts.ReadOnly:
		return fmt.Errorf("%w: %s was opened for inspection", ErrReadOnly, s.path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *Store) now() time.Time { return s.opts.Now().UTC() }

func (s *Store) writable(ctx context.Context) error {
	switch {
	case s.closed.Load():
		return ErrClosed
	case s.opts.ReadOnly:
		return fmt.Errorf("%w: %s was opened for inspection", ErrReadOnly, s.path)
	}
	return ctx.Err()
}

// update runs fn in one write transaction and commits it with fsync before
// returning. fn returns write=false when it changed nothing: the transaction
// is rolled back and no fsync is paid. Errors from fn are the caller's
// (validation, state machine); errors from bbolt mark the store unhealthy.
func (s *Store) update(ctx context.Context, fn func(tx *bolt.Tx) (write bool, err error)) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
			return ErrClosed
		}
		return s.noteWrite(fmt.Errorf("inflight: begin write on %s: %w", s.path, err))
	}
	defer func() { _ = tx.Rollback() }() // after Commit this is a no-op
	if err := ctx.Err(); err != nil {    // we may have waited for the writer lock
		return err
	}
	write, err := fn(tx)
	if err != nil || !write {
		return err
	}
	start := time.Now()
	if err := tx.Commit(); err != nil {
		return s.noteWrite(fmt.Errorf("inflight: commit to %s: %w", s.path, err))
	}
	if s.opts.ObserveCommit != nil {
		s.opts.ObserveCommit(time.Since(start))
	}
	s.noteWrite(nil)
	return nil
}

// batch runs fn through bbolt's Batch: concurrent callers share one commit
// (with fsync). fn may run more than once, so it must only touch the
// transaction. Errors from fn are the caller's, as for update.
func (s *Store) batch(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	var fnErr error
	err := s.db.Batch(func(tx *bolt.Tx) error { fnErr = fn(tx); return fnErr })
	switch {
	case err == nil:
		s.noteWrite(nil)
		return nil
	case fnErr != nil && err == fnErr: //nolint:errorlint // the very value fn returned: the caller's refusal
		return err
	case errors.Is(err, bolterrors.ErrDatabaseNotOpen):
		return ErrClosed
	}
	return s.noteWrite(fmt.Errorf("inflight: batched commit to %s: %w", s.path, err))
}

// view runs fn in a read transaction. A panic inside bbolt while reading
// means a damaged page: it becomes ErrCorrupt rather than a dead bridge.
func (s *Store) view(fn func(tx *bolt.Tx) error) (err error) {
	if s.closed.Load() {
		return ErrClosed
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: reading: %v", ErrCorrupt, s.path, r)
		}
	}()
	err = s.db.View(fn)
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// noteWrite records the outcome of a write for Healthy and returns err.
func (s *Store) noteWrite(err error) error {
	s.mu.Lock()
	s.lastErr = err
	s.mu.Unlock()
	return err
}

// bucket returns a bucket that Open guarantees; its absence means damage.
func bucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(name))
	if b == nil {
		return nil, fmt.Errorf("%w: bucket %q is missing", ErrCorrupt, name)
	}
	return b, nil
}

// Stats describes the file for metrics and for deciding on compaction.
type Stats struct {
	FileBytes int64 // size on disk; bbolt never shrinks it in place
	LiveBytes int64 // pages in use; the rest is free or preallocated
	Motions   int
	Previews  int
	Keys      int
	Audit     int
}

// Stats counts records and measures the file. It walks every bucket: call
// it for metrics every few seconds, not per request.
func (s *Store) Stats() (Stats, error) {
	var st Stats
	err := s.view(func(tx *bolt.Tx) error {
		st.LiveBytes = tx.Size() - int64(s.db.Stats().FreeAlloc)
		for name, n := range map[string]*int{bucketMotions: &st.Motions, bucketPreviews: &st.Previews, bucketKeys: &st.Keys, bucketAudit: &st.Audit} {
			b, err := bucket(tx, name)
			if err != nil {
				return err
			}
			*n = b.Stats().KeyN
		}
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return Stats{}, fmt.Errorf("inflight: stat %s: %w", s.path, err)
	}
	st.FileBytes = fi.Size()
	return st, nil
}
