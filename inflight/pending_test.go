package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// onDisk reads motion id as committed, ignoring what is pending.
func onDisk(t *testing.T, s *Store, id string) (Motion, bool) {
	t.Helper()
	var m Motion
	var found bool
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(bucketMotions)).Get([]byte(id))
		if v == nil {
			return nil
		}
		found = true
		var err error
		m, err = decodeMotion(v)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, found
}

func previewOnDisk(t *testing.T, s *Store, id string) (Preview, bool) {
	t.Helper()
	var p Preview
	var found bool
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		p, err = loadPreview(tx.Bucket([]byte(bucketPreviews)), id)
		found = err == nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, found
}

// A store whose flusher never runs on its own: what is on disk is exactly
// what was committed at once.
func lazyStore(t *testing.T, path string) *Store {
	return openStore(t, path, Options{flushDelay: time.Hour})
}

// afterKill is what a process killed right now leaves: the store's file and
// its journals copied as they are, opened read-only (journals applied). A
// machine crash keeps less: only what was synced (see
// TestOnlyClaimsAndFinalStatesWaitForTheDisk).
func afterKill(t *testing.T, path string) *Store {
	t.Helper()
	dir := t.TempDir()
	files, _ := journalPaths(path)
	for _, p := range append([]string{path}, files[:]...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return openStore(t, filepath.Join(dir, filepath.Base(path)), Options{ReadOnly: true})
}

func TestWhatIsDurableAtOnceAndWhatIsFlushedLater(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := lazyStore(t, path)
	pv := testPreview("p1", time.Now().Add(time.Minute))
	if err := s.PutPreview(ctx, pv); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetPreview("p1"); err != nil {
		t.Fatalf("a new preview must be readable at once: %v", err)
	}
	if _, found := previewOnDisk(t, s, "p1"); found {
		t.Fatal("a new preview was committed at once; it should wait for the flusher")
	}
	m := testMotion("m1")
	m.Tool, m.ArgsDigest, m.Args, m.Goal = pv.Tool, pv.ArgsDigest, pv.Args, pv.Goal
	if _, created, err := s.ConfirmPreview(ctx, "p1", m); err != nil || !created {
		t.Fatalf("confirm: created=%v err=%v", created, err)
	}
	// The write-ahead record and the used preview are durable (journaled)
	// before ConfirmPreview returns; bbolt gets them with the next flush.
	k := afterKill(t, path)
	if d, err := k.Get("m1"); err != nil || d.State != StateDispatching {
		t.Fatalf("claimed motion after a kill: %s %v", d.State, err)
	}
	if p, err := k.GetPreview("p1"); err != nil || p.UsedBy != "m1" {
		t.Fatalf("consumed preview after a kill: used_by=%q %v", p.UsedBy, err)
	}

	for _, step := range []struct {
		to      State
		durable bool
	}{
		{StateSent, false},
		{StateActive, false},
		{StateSucceeded, true},
	} {
		got, err := s.Transition(ctx, "m1", step.to, nil)
		if err != nil || got.State != step.to {
			t.Fatalf("transition to %s: %s %v", step.to, got.State, err)
		}
		if r, _ := s.Get("m1"); r.State != step.to {
			t.Fatalf("Get after %s reads %s", step.to, r.State)
		}
		d, err := afterKill(t, path).Get("m1")
		if err != nil || step.durable != (d.State == step.to) {
			t.Fatalf("after %s a kill leaves %s (%v); durable at once = %v", step.to, d.State, err, step.durable)
		}
	}
	if d, _ := afterKill(t, path).Get("m1"); len(d.History) != 5 {
		t.Fatalf("terminal record lost earlier steps: %+v", d.History)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _ := onDisk(t, s, "m1"); d.State != StateSucceeded || len(d.History) != 5 {
		t.Fatalf("after a flush the file holds %s with %d steps", d.State, len(d.History))
	}
	if p, _ := previewOnDisk(t, s, "p1"); p.UsedBy != "m1" {
		t.Fatalf("after a flush the file holds the preview used by %q", p.UsedBy)
	}
	files, _ := journalPaths(path)
	for _, f := range files {
		if ls, err := readJournal(f); err != nil || len(ls) != 0 {
			t.Errorf("journal %s after the flush: %d lines, %v; want none", filepath.Base(f), len(ls), err)
		}
	}
}

// TestOnlyClaimsAndFinalStatesWaitForTheDisk counts the journal's syncs: a
// preview and open progress are never synced on the caller's path; a claim
// and a terminal state are, each once, before the call returns.
func TestOnlyClaimsAndFinalStatesWaitForTheDisk(t *testing.T) {
	ctx := context.Background()
	var commits int
	s := openStore(t, testPath(t), Options{flushDelay: time.Hour, ObserveCommit: func(time.Duration) { commits++ }})
	j := s.pend.journal
	var syncs int
	j.sync = func(f *os.File) error { syncs++; return datasync(f) }
	step := func(name string, want int, do func() error) {
		t.Helper()
		before, commitsBefore := syncs, commits
		if err := do(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := syncs - before; got != want {
			t.Errorf("%s: %d journal syncs, want %d", name, got, want)
		}
		if got := commits - commitsBefore; got != want {
			t.Errorf("%s: ObserveCommit saw %d durable writes, want %d", name, got, want)
		}
	}
	pv := testPreview("p1", time.Now().Add(time.Minute))
	m := testMotion("m1")
	m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
	step("preview", 0, func() error { return s.PutPreview(ctx, pv) })
	step("confirm", 1, func() error { _, _, err := s.ConfirmPreview(ctx, "p1", m); return err })
	step("confirm again", 0, func() error {
		_, created, err := s.ConfirmPreview(ctx, "p1", m)
		return errors.Join(err, map[bool]error{true: errors.New("created twice")}[created])
	})
	step("sent", 0, func() error { _, err := s.Transition(ctx, "m1", StateSent, nil); return err })
	step("progress", 0, func() error {
		_, err := s.Transition(ctx, "m1", StateSent, func(m *Motion) { m.Progress = 0.5 })
		return err
	})
	step("unknown", 1, func() error { _, err := s.Transition(ctx, "m1", StateUnknown, nil); return err })
	step("succeeded", 1, func() error { _, err := s.Transition(ctx, "m1", StateSucceeded, nil); return err })
	step("succeeded again", 0, func() error { _, err := s.Transition(ctx, "m1", StateSucceeded, nil); return err })
}

// TestAFailedJournalWriteChangesNothing: a claim or a final state whose
// sync fails is an error, reads still show the record before it, and the
// next open does not apply the line either.
func TestAFailedJournalWriteChangesNothing(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := lazyStore(t, path)
	_, m := previewFor(t, s, "p1", "m1")
	s.pend.journal.sync = func(*os.File) error { return errors.New("EIO") }
	if _, created, err := s.ConfirmPreview(ctx, "p1", m); err == nil || created {
		t.Fatalf("confirm with a failing disk: created=%v err=%v", created, err)
	}
	if s.Healthy() == nil {
		t.Error("a failed claim left the store healthy")
	}
	if _, err := s.Get("m1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a claim that failed to sync is readable: %v", err)
	}
	if p, _ := s.GetPreview("p1"); p.UsedBy != "" {
		t.Errorf("a claim that failed to sync used the preview: %q", p.UsedBy)
	}
	if _, err := afterKill(t, path).Get("m1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a claim that failed to sync comes back after a kill: %v", err)
	}

	s.pend.journal.sync = datasync
	if _, created, err := s.ConfirmPreview(ctx, "p1", m); err != nil || !created {
		t.Fatalf("confirm once the disk works: created=%v err=%v", created, err)
	}
	if s.Healthy() == nil {
		t.Error("a journal write made the store healthy; only a commit to the file may")
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Healthy(); err != nil {
		t.Errorf("a commit to the file left the store unhealthy: %v", err)
	}
	s.pend.journal.sync = func(*os.File) error { return errors.New("EIO") }
	if _, err := s.Transition(ctx, "m1", StateSucceeded, nil); err == nil {
		t.Fatal("a final state that failed to sync was accepted")
	}
	if got, _ := s.Get("m1"); got.State != StateDispatching {
		t.Errorf("after a failed final state reads show %s, want dispatching", got.State)
	}
	if got, _ := afterKill(t, path).Get("m1"); got.State != StateDispatching {
		t.Errorf("after a failed final state a kill leaves %s, want dispatching", got.State)
	}
}

// TestJournalNeverTakesARecordBack: a journal line older than the file's
// version (the file was committed, the journal not yet emptied) changes
// nothing at Open; a newer one is applied.
func TestJournalNeverTakesARecordBack(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := lazyStore(t, path)
	pv, m := previewFor(t, s, "p1", "m1")
	claim, _, err := s.ConfirmPreview(ctx, "p1", m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Transition(ctx, "m1", StateSent, nil); err != nil {
		t.Fatal(err)
	}
	done, err := s.Transition(ctx, "m1", StateSucceeded, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Leave old lines behind: the claim and the preview unused.
	files, _ := journalPaths(path)
	unused := pv
	unused.Version = recordVersion
	var lines []byte
	for _, l := range []journalLine{{Kind: "p", Preview: &unused}, {Kind: "c", Motion: &claim, Preview: &Preview{}}} {
		if l.Kind == "c" {
			used := markUsed(unused, "m1", claim.CreatedAt)
			l.Preview = &used
		}
		b, _ := json.Marshal(l)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(files[1], lines, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := lazyStore(t, path)
	if got, err := s2.Get("m1"); err != nil || got.State != StateSucceeded || len(got.History) != len(done.History) {
		t.Fatalf("after reopening with old lines: %s with %d steps (%v); want succeeded with %d", got.State, len(got.History), err, len(done.History))
	}
	if p, _ := s2.GetPreview("p1"); p.UsedBy != "m1" {
		t.Fatalf("an unused line took the preview back: used_by=%q", p.UsedBy)
	}
}

func TestPendingWritesAreListedAndSurviveClose(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := lazyStore(t, path)
	for i := range 3 {
		if _, _, err := s.Claim(ctx, testMotion(fmt.Sprint("m", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Transition(ctx, "m1", StateSent, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPreview(ctx, testPreview("p-open", time.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	items, total, _, err := s.List(Filter{States: []State{StateSent}}, "", 10)
	if err != nil || total != 1 || len(items) != 1 || items[0].ID != "m1" {
		t.Fatalf("List(sent) = %d %v %v", total, items, err)
	}
	open, err := s.NonTerminal()
	if err != nil || len(open) != 3 || open[1].State != StateSent {
		t.Fatalf("NonTerminal = %+v %v", open, err)
	}
	if pp, err := s.PendingPreviews(time.Now()); err != nil || len(pp) != 1 {
		t.Fatalf("PendingPreviews = %v %v", pp, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := lazyStore(t, path)
	if m, err := s2.Get("m1"); err != nil || m.State != StateSent {
		t.Fatalf("after Close and reopen: %s %v", m.State, err)
	}
	if _, err := s2.GetPreview("p-open"); err != nil {
		t.Fatalf("preview after Close and reopen: %v", err)
	}
}

// Lazy progress, terminal commits and flushes racing on many motions end
// with the disk holding exactly what reads returned.
func TestPendingAndDurableWritesRaceToOneTruth(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := openStore(t, path, Options{flushDelay: time.Millisecond})
	const n = 24
	for i := range n {
		if _, _, err := s.Claim(ctx, testMotion(fmt.Sprint("m", i))); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		id := fmt.Sprint("m", i)
		go func() {
			defer wg.Done()
			for _, to := range []State{StateSent, StateActive} {
				if _, err := s.Transition(ctx, id, to, nil); err != nil {
					t.Error(err)
				}
			}
			for p := 1; p <= 10; p++ {
				_, _ = s.Transition(ctx, id, StateActive, func(m *Motion) { m.Progress = float64(p) / 20 })
			}
			if i%2 == 0 {
				if _, err := s.Transition(ctx, id, StateSucceeded, nil); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 5 {
				if err := s.Flush(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	want := map[string]Motion{}
	for i := range n {
		id := fmt.Sprint("m", i)
		m, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = m
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := lazyStore(t, path)
	for id, w := range want {
		got, found := onDisk(t, s2, id)
		if !found || got.State != w.State || got.Progress != w.Progress || len(got.History) != len(w.History) {
			t.Errorf("%s on disk: %s %.2f %d steps; reads said %s %.2f %d steps", id, got.State, got.Progress, len(got.History), w.State, w.Progress, len(w.History))
		}
	}
}

// kill drops s the way a killed process does: nothing pending is flushed.
func kill(t *testing.T, s *Store) {
	t.Helper()
	s.stopOnce.Do(func() { close(s.pend.stop); <-s.pend.done; _ = s.pend.journal.close() })
	s.closed.Store(true)
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAPreviewIssuedJustBeforeAKillIsConfirmableAfterRestart(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := lazyStore(t, path)
	if err := s.PutPreview(ctx, testPreview("p-kill", time.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	kill(t, s)

	s2 := lazyStore(t, path)
	pv, err := s2.GetPreview("p-kill")
	if err != nil {
		t.Fatalf("journaled preview lost by a kill: %v", err)
	}
	m := testMotion("m-kill")
	m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
	if _, created, err := s2.ConfirmPreview(ctx, "p-kill", m); err != nil || !created {
		t.Fatalf("confirm after restart: created=%v %v", created, err)
	}
	// Replayed again after a second kill, the used preview must stay used.
	kill(t, s2)
	s3 := lazyStore(t, path)
	if p, err := s3.GetPreview("p-kill"); err != nil || p.UsedBy != "m-kill" {
		t.Fatalf("after a second restart: used_by=%q %v", p.UsedBy, err)
	}
	if _, err := s3.ConsumePreview(ctx, "p-kill", "m-other"); err == nil {
		t.Fatal("a used preview was consumed again after replay")
	}
}

func TestJournalReadingStopsAtATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	good, _ := json.Marshal(testPreview("ok", time.Now().Add(time.Minute)))
	after, _ := json.Marshal(testPreview("after", time.Now().Add(time.Minute)))
	m := claimed(testMotion("m1"), time.Now())
	used := markUsed(testPreview("p1", time.Now().Add(time.Minute)), "m1", time.Now())
	other := markUsed(used, "m2", time.Now())
	claim, _ := json.Marshal(journalLine{Kind: "c", Motion: &m, Preview: &used})
	mismatched, _ := json.Marshal(journalLine{Kind: "c", Motion: &m, Preview: &other})
	state, _ := json.Marshal(journalLine{Kind: "m", Motion: &m})
	big := used
	big.Summary = json.RawMessage(`"` + strings.Repeat("x", 17<<20) + `"`)
	long, _ := json.Marshal(journalLine{Kind: "c", Motion: &m, Preview: &big})
	for _, tc := range []struct {
		name, content string
		want          int
	}{
		{"empty", "", 0},
		{"one", string(good) + "\n", 1},
		{"torn tail", string(good) + "\n" + string(good[:len(good)/2]), 1},
		{"garbage stops", string(good) + "\n{\"v\":1}\n" + string(after) + "\n", 1},
		{"newer version stops", `{"v":99,"id":"x","tool":"t","args_digest":"d","expires_at":"2030-01-01T00:00:00Z"}` + "\n", 0},
		{"claim and state", string(claim) + "\n" + string(state) + "\n", 2},
		{"claim of another motion stops", string(good) + "\n" + string(mismatched) + "\n" + string(state) + "\n", 1},
		{"unknown kind stops", `{"k":"x","m":{}}` + "\n", 0},
		{"a claim longer than any scanner buffer", string(long) + "\n" + string(state) + "\n", 2},
		{"the end marker stops", string(claim) + "\n\x00" + string(state) + "\n", 1},
	} {
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readJournal(path)
		if err != nil || len(got) != tc.want {
			t.Errorf("%s: %d lines, %v; want %d", tc.name, len(got), err, tc.want)
		}
	}
}

// TestAnEmptiedJournalShowsOnlyNewLines: emptying keeps a file's blocks and
// stale lines behind a NUL; lines written after show, the stale ones never.
func TestAnEmptiedJournalShowsOnlyNewLines(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := lazyStore(t, path)
	put := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			if err := s.PutPreview(ctx, testPreview(id, time.Now().Add(time.Minute))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	put("stale-1", "stale-2", "stale-3") // into a, then a is emptied
	put("b-1")                           // into b, then b is emptied
	if err := s.PutPreview(ctx, testPreview("new", time.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	files, _ := journalPaths(path)
	ls, err := readJournal(files[0])
	if err != nil || len(ls) != 1 || ls[0].Preview.ID != "new" {
		t.Fatalf("journal a after reuse: %d lines, %v; want only the new preview", len(ls), err)
	}
	if ls, _ := readJournal(files[1]); len(ls) != 0 {
		t.Fatalf("journal b after its flush: %d lines", len(ls))
	}
}

// TestJournaledClaimsAreListedInCreationOrder: a confirmed motion the
// flusher has not copied into the file yet is listed (and re-attached
// after a restart: NonTerminal) at its place among the committed ones.
func TestJournaledClaimsAreListedInCreationOrder(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, flushDelay: time.Hour})
	if _, _, err := s.Claim(ctx, testMotion("m0")); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)
	pv := testPreview("p1", c.Now().Add(time.Minute))
	if err := s.PutPreview(ctx, pv); err != nil {
		t.Fatal(err)
	}
	m := testMotion("m1")
	m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
	if _, _, err := s.ConfirmPreview(ctx, "p1", m); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)
	if _, _, err := s.Claim(ctx, testMotion("m2")); err != nil {
		t.Fatal(err)
	}
	if _, found := onDisk(t, s, "m1"); found {
		t.Fatal("the claim was flushed already; the test needs it only journaled")
	}
	want := []string{"m0", "m1", "m2"}
	ids := func(ms []Motion) (out []string) {
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	if open, err := s.NonTerminal(); err != nil || !slices.Equal(ids(open), want) {
		t.Fatalf("NonTerminal = %v, %v; want %v", ids(open), err, want)
	}
	var paged []Motion
	cursor := ""
	for range 4 {
		page, total, next, err := s.List(Filter{}, cursor, 1)
		if err != nil || total != 3 {
			t.Fatalf("List page: total %d, %v", total, err)
		}
		paged = append(paged, page...)
		if cursor = next; cursor == "" {
			break
		}
	}
	if !slices.Equal(ids(paged), want) {
		t.Fatalf("List pages = %v; want %v", ids(paged), want)
	}
	if only, _, _, err := s.List(Filter{States: []State{StateDispatching}, Actuator: ActuatorArm}, "", 10); err != nil || len(only) != 3 {
		t.Fatalf("filtered List = %v, %v", ids(only), err)
	}
}

// previewFor issues preview id and returns it with a motion that confirms it.
func previewFor(t *testing.T, s *Store, id, motionID string) (Preview, Motion) {
	t.Helper()
	pv := testPreview(id, time.Now().Add(time.Minute))
	if err := s.PutPreview(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	m := testMotion(motionID)
	m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
	return pv, m
}

// TestAStalledFlushNeverEmptiesAFileActiveSince: a flush that stalls
// between its commit and emptying its file used to let later flushes turn
// the files around, so it then emptied a file holding a claim no commit had
// written (found by review). Flushes now run one at a time: claims made
// while one stalls are durable, and survive a kill at every step.
func TestAStalledFlushNeverEmptiesAFileActiveSince(t *testing.T) {
	var armed atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	path := testPath(t)
	s := openStore(t, path, Options{flushDelay: time.Hour, ObserveCommit: func(time.Duration) {
		if armed.CompareAndSwap(true, false) {
			close(entered)
			<-release
		}
	}})
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	confirm := func(pid, mid string) {
		t.Helper()
		p := testPreview(pid, exp)
		if err := s.PutPreview(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, created, err := s.ConfirmPreview(ctx, pid, motionFor(p, mid)); err != nil || !created {
			t.Fatalf("confirm %s: %v %v", mid, created, err)
		}
	}
	survives := func(ids ...string) {
		t.Helper()
		k := afterKill(t, path)
		for _, id := range ids {
			if _, err := k.Get(id); err != nil {
				t.Fatalf("after a kill now, confirmed motion %s is gone: %v", id, err)
			}
		}
		_ = k.Close()
	}
	confirm("p1", "m1")
	armed.Store(true)
	f1 := make(chan error, 1)
	go func() { f1 <- s.Flush(ctx) }() // commits m1, stalls before emptying its file
	within(t, entered)
	confirm("p2", "m2")
	f2 := make(chan error, 1)
	go func() { f2 <- s.Flush(ctx) }() // waits for the stalled one
	confirm("p3", "m3")
	survives("m1", "m2", "m3")
	close(release)
	for _, f := range []chan error{f1, f2} {
		if err := within(t, f); err != nil {
			t.Fatal(err)
		}
	}
	survives("m1", "m2", "m3")
	confirm("p4", "m4")
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	confirm("p5", "m5")
	survives("m1", "m2", "m3", "m4", "m5")
}

// TestAClaimIsNotReadableBeforeItIsDurable: while a claim's fdatasync
// runs, reads show neither the motion nor the used preview, so a failed
// sync never takes back what a read returned (found by review).
func TestAClaimIsNotReadableBeforeItIsDurable(t *testing.T) {
	s := lazyStore(t, testPath(t))
	ctx := context.Background()
	_, m1 := previewFor(t, s, "p1", "m1")
	entered, release := make(chan struct{}, 1), make(chan struct{})
	s.pend.journal.sync = func(*os.File) error { entered <- struct{}{}; <-release; return errors.New("EIO") }
	done := make(chan error, 1)
	go func() { _, _, err := s.ConfirmPreview(ctx, "p1", m1); done <- err }()
	within(t, entered)
	m, err := s.Get("m1")
	pv, _ := s.GetPreview("p1")
	close(release)
	if cerr := within(t, done); cerr == nil {
		t.Fatal("confirm should fail")
	}
	_, after := s.Get("m1")
	pv2, _ := s.GetPreview("p1")
	if err == nil || pv.UsedBy != "" {
		t.Errorf("during fdatasync: Get(m1)=%s err=%v, preview used_by=%q; after the failure: Get err=%v, used_by=%q",
			m.State, err, pv.UsedBy, after, pv2.UsedBy)
	}
}

// TestClaimSeesAJournaledMotion: Claim of a motion a confirm journaled
// (not yet flushed) returns it, created=false (found by review).
func TestClaimSeesAJournaledMotion(t *testing.T) {
	s := lazyStore(t, testPath(t))
	ctx := context.Background()
	_, m := previewFor(t, s, "p1", "m1")
	if _, created, err := s.ConfirmPreview(ctx, "p1", m); err != nil || !created {
		t.Fatal(created, err)
	}
	if _, created, err := s.Claim(ctx, m); err != nil || created {
		t.Errorf("Claim of a motion ConfirmPreview already created: created=%v err=%v (publish twice)", created, err)
	}
}

// TestTwoPreviewsNamingOneMotionCreateItOnce: concurrent confirms of two
// previews naming the same motion id create it once (found by review).
func TestTwoPreviewsNamingOneMotionCreateItOnce(t *testing.T) {
	for i := 0; i < 50; i++ {
		s := lazyStore(t, testPath(t))
		ctx := context.Background()
		var ps []Preview
		for _, id := range []string{"pa", "pb"} {
			p := testPreview(id, time.Now().Add(time.Hour))
			if err := s.PutPreview(ctx, p); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		created := 0
		for _, p := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, c, err := s.ConfirmPreview(ctx, p.ID, motionFor(p, "m1")); err == nil && c {
					mu.Lock()
					created++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if created > 1 {
			t.Fatalf("iteration %d: %s", i, fmt.Sprint(created, " confirms created m1"))
		}
		_ = s.Close()
	}
}

// within receives from ch, failing the test after 30 s: a regression that
// deadlocks shows as a failure, not as a hung test binary.
func within[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("nothing arrived within 30 s")
		panic("unreachable")
	}
}

// TestWarmPreviewsAreNeverOlderThanTheFile: previews a flush committed are
// read from memory afterwards, and every later write of one (a claim, a
// consume, a denial, a retention sweep) shows in reads exactly as in the
// file.
func TestWarmPreviewsAreNeverOlderThanTheFile(t *testing.T) {
	s := openStore(t, testPath(t), Options{flushDelay: time.Hour, Retention: time.Hour})
	ctx := context.Background()
	pv1, m1 := previewFor(t, s, "p1", "m1")
	previewFor(t, s, "p2", "")
	previewFor(t, s, "p3", "")
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s.pend.mu.Lock()
	warm := len(s.pend.warm)
	s.pend.mu.Unlock()
	if warm != 3 {
		t.Fatalf("%d previews warm after a flush, want 3", warm)
	}
	same := func(step, id string) Preview {
		t.Helper()
		got, gerr := s.GetPreview(id)
		want, ferr := s.storedPreview(id) // the file alone
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if (gerr == nil) != (ferr == nil) || string(gj) != string(wj) {
			t.Fatalf("%s: GetPreview(%s) = %+v, %v; the file holds %+v, %v", step, id, got, gerr, want, ferr)
		}
		return got
	}
	same("flushed", pv1.ID)

	if _, created, err := s.ConfirmPreview(ctx, pv1.ID, m1); err != nil || !created {
		t.Fatal(created, err)
	}
	if got, _ := s.GetPreview(pv1.ID); got.UsedBy != "m1" {
		t.Fatalf("claimed preview reads as used by %q", got.UsedBy)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if same("claim flushed", pv1.ID).UsedBy != "m1" {
		t.Fatal("the flushed claim's preview reads as unused")
	}

	if err := s.DenyPreview(ctx, "p2", "operator"); err != nil {
		t.Fatal(err)
	}
	if p2 := same("denied", "p2"); p2.ExpiresAt.After(p2.CreatedAt) {
		t.Fatalf("a denied preview still expires at %v", p2.ExpiresAt)
	}
	if _, err := s.ConsumePreview(ctx, "p3", "m3"); err != nil {
		t.Fatal(err)
	}
	if same("consumed", "p3").UsedBy != "m3" {
		t.Fatal("a consumed preview reads as unused")
	}

	if _, err := s.Compact(ctx, time.Now().Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"p1", "p2", "p3"} {
		if _, err := s.GetPreview(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("preview %s after retention removed it: %v", id, err)
		}
	}
}

// TestWarmPreviewsUnderRacingFlushes (from review): flushes racing
// consumes, denials and claims; a preview once used or denied never reads
// as usable again, and is used by one motion only.
func TestWarmPreviewsUnderRacingFlushes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testPath(t), Options{flushDelay: time.Millisecond, UnsafeNoSync: true})
	const n = 300
	for i := range n {
		previewFor(t, s, fmt.Sprint("p", i), "")
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = s.Flush(ctx)
		}
	}()
	var created atomic.Int64
	var fail atomic.Value
	var work sync.WaitGroup
	for w := range 4 {
		work.Add(1)
		go func() {
			defer work.Done()
			for i := range n {
				id := fmt.Sprint("p", i)
				switch (i + w) % 3 {
				case 0:
					if _, err := s.ConsumePreview(ctx, id, fmt.Sprint("c", w, "-", i)); err == nil {
						created.Add(1)
					}
				case 1:
					_ = s.DenyPreview(ctx, id, "op")
				case 2:
					pv, _ := s.GetPreview(id)
					m := testMotion(fmt.Sprint("m", w, "-", i))
					m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
					if _, ok, err := s.ConfirmPreview(ctx, id, m); err == nil && ok {
						created.Add(1)
					}
				}
				if pv, err := s.GetPreview(id); err == nil && pv.UsedBy == "" && time.Now().Before(pv.ExpiresAt) {
					// After any op by this worker the preview is used or denied.
					fail.Store(fmt.Sprintf("%s reads usable after a consume/deny/claim: %+v", id, pv))
				}
			}
		}()
	}
	work.Wait()
	stop.Store(true)
	wg.Wait()
	if f := fail.Load(); f != nil {
		t.Fatal(f)
	}
	if c := created.Load(); c > n {
		t.Fatalf("%d previews used by %d motions", n, c)
	}
}

// TestWarmPreviewsAreBounded: memory holds at most maxWarmBytes of warm
// previews and none larger than maxWarmPreview; a flush that committed
// before a retention sweep warms nothing the sweep may have deleted.
func TestWarmPreviewsAreBounded(t *testing.T) {
	s := openStore(t, testPath(t), Options{flushDelay: time.Hour, UnsafeNoSync: true})
	ctx := context.Background()
	sized := func(id string, n int) {
		t.Helper()
		pv := testPreview(id, time.Now().Add(time.Minute))
		pv.Args = json.RawMessage(`{"pad":"` + strings.Repeat("x", n) + `"}`)
		if err := s.PutPreview(ctx, pv); err != nil {
			t.Fatal(err)
		}
	}
	warm := func() (int, int) {
		s.pend.mu.Lock()
		defer s.pend.mu.Unlock()
		return len(s.pend.warm), s.pend.warmBytes
	}
	sized("huge", maxWarmPreview)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := warm(); n != 0 {
		t.Fatalf("a preview over %d bytes was kept warm", maxWarmPreview)
	}
	for i := range 40 {
		sized(fmt.Sprint("big-", i), 600<<10)
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if _, b := warm(); b > maxWarmBytes {
			t.Fatalf("after %d previews warm holds %d bytes, bound %d", i+1, b, maxWarmBytes)
		}
	}
	if got, err := s.GetPreview("big-0"); err != nil || len(got.Args) < 600<<10 {
		t.Fatalf("a preview dropped from memory reads from the file: %v", err)
	}

	// A sweep between a flush's snapshot and its flushed(): nothing warms.
	previewFor(t, s, "late", "")
	ms, ps, gen := s.pend.snapshot()
	s.pend.cool()
	s.pend.flushed(ms, ps, gen)
	s.pend.mu.Lock()
	_, warmed := s.pend.warm["late"]
	s.pend.mu.Unlock()
	if warmed {
		t.Fatal("a flush snapshotted before a retention sweep warmed its preview")
	}
}
