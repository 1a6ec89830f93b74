package inflight

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// clock is a fake Options.Now that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func testPath(t testing.TB) string { return filepath.Join(t.TempDir(), "inflight.db") }

func openStore(t testing.TB, path string, opts Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func testMotion(id string) Motion {
	return Motion{
		ID: id, Tool: "arm_move_joints", Actuator: ActuatorArm, Scope: "task-1",
		ArgsDigest: Digest([]byte(id)), Args: json.RawMessage(`{"joints":[0.1,0.2]}`),
		Goal: json.RawMessage(`{"trajectory":{"points":[]}}`), Role: "planner",
	}
}

func TestOpenFailuresAreDistinctErrors(t *testing.T) {
	holdOpen := func(t *testing.T, path string) string {
		openStore(t, path, Options{})
		return path
	}
	withStore := func(t *testing.T, path string) string {
		s := openStore(t, path, Options{UnsafeNoSync: true})
		for i := range 200 {
			if _, _, err := claim(context.Background(), s, testMotion("m"+strings.Repeat("x", i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	garbage := func(n int) func(*testing.T, string) string {
		return func(t *testing.T, path string) string {
			b := make([]byte, n)
			_, _ = rand.Read(b)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	rawBolt := func(fn func(tx *bolt.Tx) error) func(*testing.T, string) string {
		return func(t *testing.T, path string) string {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(fn); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	newer := rawBolt(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte(bucketMeta))
		if err != nil {
			return err
		}
		return b.Put([]byte(metaFormat), binary.BigEndian.AppendUint32(nil, formatVersion+1))
	})
	cases := []struct {
		name  string
		setup func(t *testing.T, path string) string
		opts  Options
		want  error
	}{
		{"another bridge holds the file", holdOpen, Options{LockTimeout: 200 * time.Millisecond}, ErrLocked},
		{"inspecting while a bridge holds the file", holdOpen, Options{ReadOnly: true, LockTimeout: 200 * time.Millisecond}, ErrLocked},
		{"file mode forbids writing", func(t *testing.T, path string) string {
			withStore(t, path)
			if err := os.Chmod(path, 0o444); err != nil {
				t.Fatal(err)
			}
			return path
		}, Options{}, ErrReadOnly},
		{"garbage bytes", garbage(64 << 10), Options{}, ErrCorrupt},
		{"a few garbage bytes", garbage(100), Options{}, ErrCorrupt},
		{"garbage opened for inspection", garbage(64 << 10), Options{ReadOnly: true}, ErrCorrupt},
		{"empty file opened for inspection", garbage(0), Options{ReadOnly: true}, ErrCorrupt},
		{"truncated store", func(t *testing.T, path string) string {
			withStore(t, path)
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()/10); err != nil {
				t.Fatal(err)
			}
			return path
		}, Options{}, ErrCorrupt},
		{"bbolt file of another program", rawBolt(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("widgets"))
			return err
		}), Options{}, ErrCorrupt},
		{"written by a newer actbridge", newer, Options{}, ErrNewerFormat},
		{"newer store opened for inspection", newer, Options{ReadOnly: true}, ErrNewerFormat},
		{"directory does not exist", func(t *testing.T, path string) string {
			return filepath.Join(filepath.Dir(path), "missing", "inflight.db")
		}, Options{}, fs.ErrNotExist},
		{"inspecting a file that does not exist", func(t *testing.T, path string) string { return path }, Options{ReadOnly: true}, fs.ErrNotExist},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t, testPath(t))
			start := time.Now()
			s, err := Open(path, tc.opts)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open succeeded, want %v", tc.want)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open: %v, want errors.Is %v", err, tc.want)
			}
			t.Log(err) // what an operator reads
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			// Bounded: a lock wait must not hang the bridge's start-up.
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("Open took %s", elapsed)
			}
		})
	}
}

func TestReadOnlyStoreReadsButRefusesEveryWrite(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path, Options{})
	ctx := context.Background()
	if _, _, err := claim(ctx, s, testMotion("m1")); err != nil {
		t.Fatal(err)
	}
	if err := s.appendOne(ctx, AuditRecord{Tool: "robot_state", Outcome: OutcomeOK}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}

	ro := openStore(t, path, Options{ReadOnly: true})
	if m, err := ro.Get("m1"); err != nil || m.State != StateDispatching {
		t.Fatalf("Get on read-only store = %v, %v", m.State, err)
	}
	if lines, _, err := ro.AuditList("", 10); err != nil || len(lines) != 1 {
		t.Fatalf("AuditList on read-only store = %d lines, %v", len(lines), err)
	}
	if err := ro.Healthy(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Healthy() = %v, want ErrReadOnly so the bridge refuses motions", err)
	}
	writes := []struct {
		name string
		do   func() error
	}{
		{"Claim", func() error { _, _, err := claim(ctx, ro, testMotion("m2")); return err }},
		{"Transition", func() error { _, err := ro.Transition(ctx, "m1", StateSent, nil); return err }},
		{"PutPreview", func() error { return ro.PutPreview(ctx, testPreview("p1", time.Now().Add(time.Hour))) }},
		{"ConfirmPreview", func() error { _, _, err := confirmID(ctx, ro, "pv-m1", testMotion("m2")); return err }},
		{"Remember", func() error { return ro.Remember(ctx, "k", "d", json.RawMessage(`{}`)) }},
		{"appendOne", func() error { return ro.appendOne(ctx, AuditRecord{Tool: "t"}) }},
		{"Compact", func() error { _, err := ro.Compact(ctx, time.Now().Add(365*24*time.Hour)); return err }},
	}
	for _, w := range writes {
		if err := w.do(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only store = %v, want ErrReadOnly", w.name, err)
		}
	}
}

func TestWriteFailureMakesStoreUnhealthyUntilNextSuccess(t *testing.T) {
	// maxBytes stands in for a full disk: the commit cannot grow the file.
	s := openStore(t, testPath(t), Options{maxBytes: 1 << 20})
	ctx := context.Background()
	if err := s.Healthy(); err != nil {
		t.Fatalf("fresh store Healthy() = %v", err)
	}

	huge := testMotion("huge")
	huge.Goal = json.RawMessage(`{"pad":"` + strings.Repeat("a", 2<<20) + `"}`)
	_, created, err := claim(ctx, s, huge)
	if err == nil || created {
		t.Fatalf("Claim beyond the disk = created %v, %v; want an error", created, err)
	}
	if !errors.Is(err, bolterrors.ErrMaxSizeReached) {
		t.Errorf("Claim error %v does not wrap the cause", err)
	}
	if h := s.Healthy(); !errors.Is(h, bolterrors.ErrMaxSizeReached) {
		t.Errorf("Healthy() after a failed commit = %v, want the failure", h)
	}
	if _, err := s.Get("huge"); !errors.Is(err, ErrNotFound) {
		t.Errorf("failed Claim left a record: %v", err)
	}

	// Refusals by the state machine are not store failures.
	if _, _, err := claim(ctx, s, testMotion("small")); err != nil {
		t.Fatalf("small Claim after the failure: %v", err)
	}
	if err := s.Healthy(); err != nil {
		t.Errorf("Healthy() after a successful write = %v, want nil", err)
	}
	if _, err := s.Transition(ctx, "small", StateActive, nil); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("dispatching → active = %v, want ErrInvalidTransition", err)
	}
	if err := s.Healthy(); err != nil {
		t.Errorf("Healthy() after a refused transition = %v, want nil", err)
	}

	// Audit lines are small: keep appending until the disk is full.
	var full atomic.Bool
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000 && !full.Load(); i++ {
				if err := s.appendOne(ctx, benchAudit()); err != nil {
					full.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if !full.Load() {
		t.Fatal("64000 audit lines fit in 1 MiB")
	}
	// Now alone on a full disk, the next failure is the last word.
	for i := 0; ; i++ {
		err := s.appendOne(ctx, benchAudit())
		if err != nil {
			if h := s.Healthy(); !errors.Is(h, bolterrors.ErrMaxSizeReached) {
				t.Errorf("Healthy() after a failed audit commit (%v) = %v", err, h)
			}
			break
		}
		if i == 1000 {
			t.Fatal("a full disk took 1000 more audit lines")
		}
	}
}

func TestClosedStoreSaysSo(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	ctx := context.Background()
	for name, err := range map[string]error{
		"Healthy":   s.Healthy(),
		"Claim":     func() error { _, _, err := claim(ctx, s, testMotion("m")); return err }(),
		"Get":       func() error { _, err := s.Get("m"); return err }(),
		"appendOne": s.appendOne(ctx, AuditRecord{Tool: "t"}),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

func TestProductionStoreFsyncsEveryCommit(t *testing.T) {
	var commits int
	s := openStore(t, testPath(t), Options{ObserveCommit: func(d time.Duration) { commits++ }})
	if s.db.NoSync {
		t.Fatal("the default Options turn fsync off")
	}
	if _, _, err := claim(context.Background(), s, testMotion("m")); err != nil {
		t.Fatal(err)
	}
	if commits != 1 {
		t.Errorf("ObserveCommit saw %d commits for one Claim, want 1", commits)
	}
}

func TestReopeningKeepsEverythingAndTheFormatMarker(t *testing.T) {
	path := testPath(t)
	ctx := context.Background()
	s := openStore(t, path, Options{})
	if _, _, err := claim(ctx, s, testMotion("m")); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember(ctx, "k", "d", json.RawMessage(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	s = openStore(t, path, Options{})
	if _, err := s.Get("m"); err != nil {
		t.Errorf("motion lost on reopen: %v", err)
	}
	if _, found, err := s.Lookup("k", "d"); err != nil || !found {
		t.Errorf("idempotency key lost on reopen: %v %v", found, err)
	}
	err := s.view(func(tx *bolt.Tx) error {
		v, err := readFormat(tx)
		if err == nil && v != formatVersion {
			t.Errorf("format marker = %d, want %d", v, formatVersion)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// claim records m as a confirm does: through a preview of its own
// ("pv-" + m.ID, issued if missing) that ConfirmPreview consumes.
func claim(ctx context.Context, s *Store, m Motion) (Motion, bool, error) {
	p := Preview{ID: "pv-" + m.ID, Tool: m.Tool, Actuator: m.Actuator, ArgsDigest: m.ArgsDigest,
		Args: m.Args, Goal: m.Goal, ExpiresAt: s.now().Add(time.Hour)}
	if err := s.PutPreview(ctx, p); err != nil && !errors.Is(err, ErrDuplicate) {
		return Motion{}, false, err
	}
	return confirmID(ctx, s, p.ID, m)
}

// confirmID confirms preview id as the bridge does: one GetPreview, then
// ConfirmPreview with what it read.
func confirmID(ctx context.Context, s *Store, id string, m Motion) (Motion, bool, error) {
	p, err := s.GetPreview(id)
	if err != nil {
		return Motion{}, false, err
	}
	return s.ConfirmPreview(ctx, p, m)
}

// consume confirms preview id for a motion named motionID and returns the
// preview as stored afterwards: UsedBy names the motion that won it.
func consume(ctx context.Context, s *Store, id, motionID string) (Preview, error) {
	p, err := s.GetPreview(id)
	if err != nil {
		return p, err
	}
	_, _, err = s.ConfirmPreview(ctx, p, Motion{ID: motionID, Tool: p.Tool, ArgsDigest: p.ArgsDigest})
	if after, gerr := s.GetPreview(id); gerr == nil {
		p = after
	}
	return p, err
}
