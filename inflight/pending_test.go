package inflight

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

func TestWhatIsDurableAtOnceAndWhatIsFlushedLater(t *testing.T) {
	ctx := context.Background()
	s := lazyStore(t, testPath(t))
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
	// The write-ahead record and the used preview are on disk before
	// ConfirmPreview returns.
	if d, found := onDisk(t, s, "m1"); !found || d.State != StateDispatching {
		t.Fatalf("claimed motion on disk: found=%v state=%s", found, d.State)
	}
	if p, found := previewOnDisk(t, s, "p1"); !found || p.UsedBy != "m1" {
		t.Fatalf("consumed preview on disk: found=%v used_by=%q", found, p.UsedBy)
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
		d, _ := onDisk(t, s, "m1")
		if step.durable != (d.State == step.to) {
			t.Fatalf("after %s the disk holds %s; durable at once = %v", step.to, d.State, step.durable)
		}
	}
	d, _ := onDisk(t, s, "m1")
	if len(d.History) != 5 {
		t.Fatalf("terminal record lost earlier steps: %+v", d.History)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _ := onDisk(t, s, "m1"); d.State != StateSucceeded {
		t.Fatalf("a flush overwrote the terminal state with %s", d.State)
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
	for _, tc := range []struct {
		name, content string
		want          int
	}{
		{"empty", "", 0},
		{"one", string(good) + "\n", 1},
		{"torn tail", string(good) + "\n" + string(good[:len(good)/2]), 1},
		{"garbage stops", string(good) + "\n{\"v\":1}\n" + string(after) + "\n", 1},
		{"newer version stops", `{"v":99,"id":"x","tool":"t","args_digest":"d","expires_at":"2030-01-01T00:00:00Z"}` + "\n", 0},
	} {
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readJournal(path)
		if err != nil || len(got) != tc.want {
			t.Errorf("%s: %d previews, %v; want %d", tc.name, len(got), err, tc.want)
		}
	}
}
