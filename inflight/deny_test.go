package inflight

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func motionFor(p Preview, id string) Motion {
	m := testMotion("unused")
	m.ID, m.Tool, m.ArgsDigest = id, p.Tool, p.ArgsDigest
	return m
}

func TestDeniedPreviewCanNeverBeConfirmed(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	p := testPreview("p1", c.Now().Add(time.Minute))
	if err := s.PutPreview(ctx, p); err != nil {
		t.Fatal(err)
	}
	readBefore, err := s.GetPreview("p1") // a confirm in flight while the operator denies
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DenyPreview(ctx, "p1", "operator at the console"); err != nil {
		t.Fatal(err)
	}
	if err := s.DenyPreview(ctx, "p1", "again"); err != nil {
		t.Fatalf("denying twice: %v", err)
	}
	if _, created, err := confirmID(ctx, s, "p1", motionFor(p, "m1")); created || !errors.Is(err, ErrPreviewExpired) {
		t.Fatalf("confirm after deny: created %v, err %v", created, err)
	}
	// The store sees the record changed since that confirm read it.
	if _, created, err := s.ConfirmPreview(ctx, readBefore, motionFor(p, "m1")); created || !errors.Is(err, ErrPreviewExpired) {
		t.Fatalf("confirm holding the preview read before the deny: created %v, err %v", created, err)
	}
	if _, err := s.Get("m1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a denied preview started a motion: %v", err)
	}
	d, ok, err := s.Denied("p1")
	if err != nil || !ok || d.By != "operator at the console" || !d.ExpiresAt.Equal(p.ExpiresAt) {
		t.Fatalf("Denied = %+v %v %v", d, ok, err)
	}
	if _, ok, _ := s.Denied("p2"); ok {
		t.Fatal("an unknown preview reads as denied")
	}
}

func TestDenyRefusesPreviewsThatAlreadyRanOrExpired(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	used := testPreview("used", c.Now().Add(time.Minute))
	old := testPreview("old", c.Now().Add(time.Second))
	for _, p := range []Preview{used, old} {
		if err := s.PutPreview(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := confirmID(ctx, s, "used", motionFor(used, "m1")); err != nil {
		t.Fatal(err)
	}
	if err := s.DenyPreview(ctx, "used", "op"); !errors.Is(err, ErrPreviewUsed) {
		t.Fatalf("deny a used preview: %v", err)
	}
	c.Advance(2 * time.Second)
	if err := s.DenyPreview(ctx, "old", "op"); !errors.Is(err, ErrPreviewExpired) {
		t.Fatalf("deny an expired preview: %v", err)
	}
	if err := s.DenyPreview(ctx, "nope", "op"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deny an unknown preview: %v", err)
	}
}

func TestDenyAndConfirmRacingHaveExactlyOneWinner(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, UnsafeNoSync: true})
	ctx := context.Background()
	for i := range 20 {
		id := fmt.Sprint("p", i)
		p := testPreview(id, c.Now().Add(time.Minute))
		if err := s.PutPreview(ctx, p); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var denyErr, confirmErr error
		var created bool
		wg.Add(2)
		go func() { defer wg.Done(); denyErr = s.DenyPreview(ctx, id, "op") }()
		go func() {
			defer wg.Done()
			_, created, confirmErr = confirmID(ctx, s, id, motionFor(p, "m-"+id))
		}()
		wg.Wait()
		denied := denyErr == nil && errors.Is(confirmErr, ErrPreviewExpired) && !created
		ran := confirmErr == nil && created && errors.Is(denyErr, ErrPreviewUsed)
		if denied == ran {
			t.Fatalf("%s: deny %v, confirm created=%v %v", id, denyErr, created, confirmErr)
		}
	}
}

func TestPendingPreviewsListsOnlyWhatCouldStillRun(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	put := func(id string, ttl time.Duration) Preview {
		p := testPreview(id, c.Now().Add(ttl))
		if err := s.PutPreview(ctx, p); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Millisecond) // distinct creation times
		return p
	}
	put("b-open", time.Minute)
	used := put("used", time.Minute)
	put("denied", time.Minute)
	put("short", 10*time.Millisecond)
	put("a-open", time.Minute)
	if _, _, err := confirmID(ctx, s, "used", motionFor(used, "m1")); err != nil {
		t.Fatal(err)
	}
	if err := s.DenyPreview(ctx, "denied", "op"); err != nil {
		t.Fatal(err)
	}
	c.Advance(20 * time.Millisecond)
	got, err := s.PendingPreviews(c.Now())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range got {
		ids = append(ids, p.ID)
	}
	if fmt.Sprint(ids) != "[b-open a-open]" {
		t.Fatalf("pending %v, want [b-open a-open] (oldest first)", ids)
	}
}

func TestOldDenialsArePrunedByLaterDenials(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, Retention: time.Hour})
	ctx := context.Background()
	for _, id := range []string{"p1", "p2"} {
		if err := s.PutPreview(ctx, testPreview(id, c.Now().Add(3*time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DenyPreview(ctx, "p1", "op"); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Hour)
	if err := s.DenyPreview(ctx, "p2", "op"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Denied("p1"); ok {
		t.Fatal("a denial older than the retention survived")
	}
	if _, ok, _ := s.Denied("p2"); !ok {
		t.Fatal("the new denial is missing")
	}
}

// TestDenialsAreFoundAfterReopen: Denied answers "none" without reading
// only while no denial can exist; a denial on file is found by the next
// process, read-write or read-only.
func TestDenialsAreFoundAfterReopen(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.denials.Load() {
		t.Fatal("a new store says a denial may exist")
	}
	if err := s.PutPreview(ctx, testPreview("p1", time.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if err := s.DenyPreview(ctx, "p1", "op"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{ReadOnly: true}, {}} {
		s2, err := Open(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s2.Denied("p1"); !ok || err != nil {
			t.Errorf("read-only %v: the denial on file is not found: %v", opts.ReadOnly, err)
		}
		_ = s2.Close()
	}
}
