package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func testPreview(id string, expires time.Time) Preview {
	m := testMotion("unused")
	return Preview{
		ID: id, Tool: m.Tool, Actuator: m.Actuator, ArgsDigest: m.ArgsDigest, Args: m.Args, Goal: m.Goal,
		StateDigest: "state-1", Summary: json.RawMessage(`{"moves":["shoulder +0.1 rad"]}`), Role: "planner",
		ExpiresAt: expires,
	}
}

func TestPreviewIsConsumedByTheFirstConfirmOnly(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	if err := s.PutPreview(ctx, testPreview("p1", c.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := map[string]int{}
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			p, err := consume(ctx, s, "p1", fmt.Sprint("motion-", i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				winners["won:"+p.UsedBy]++
			case errors.Is(err, ErrPreviewUsed):
				winners[p.UsedBy]++ // the loser learns which motion won
			default:
				t.Errorf("ConsumePreview: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(winners) != 2 {
		t.Fatalf("outcomes %v; want one winner and every loser naming it", winners)
	}
	for k, v := range winners {
		if len(k) > 4 && k[:4] == "won:" {
			if v != 1 || winners[k[4:]] != n-1 {
				t.Fatalf("outcomes %v; want one winner and every loser naming it", winners)
			}
		}
	}
}

func TestPreviewExpiryAndReuse(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	put := func(id string, ttl time.Duration) {
		t.Helper()
		if err := s.PutPreview(ctx, testPreview(id, c.Now().Add(ttl))); err != nil {
			t.Fatal(err)
		}
	}
	put("fresh", time.Minute)
	put("stale", time.Second)
	put("used", time.Second)
	if _, err := consume(ctx, s, "used", "m-used"); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Second)

	cases := []struct {
		id, motion string
		want       error
		usedBy     string
	}{
		{"fresh", "m1", nil, "m1"},
		{"fresh", "m2", ErrPreviewUsed, "m1"},
		{"stale", "m3", ErrPreviewExpired, ""},
		// A late retry of a confirm that won must still find its motion.
		{"used", "m4", ErrPreviewUsed, "m-used"},
		{"missing", "m5", ErrNotFound, ""},
	}
	for _, tc := range cases {
		p, err := consume(ctx, s, tc.id, tc.motion)
		if !errors.Is(err, tc.want) || p.UsedBy != tc.usedBy {
			t.Errorf("ConsumePreview(%s, %s) = used by %q, %v; want %q, %v", tc.id, tc.motion, p.UsedBy, err, tc.usedBy, tc.want)
		}
	}
	if err := s.PutPreview(ctx, testPreview("fresh", c.Now().Add(time.Hour))); !errors.Is(err, ErrDuplicate) {
		t.Errorf("putting a used preview id again = %v, want ErrDuplicate", err)
	}
	if p, err := s.GetPreview("stale"); err != nil || p.StateDigest != "state-1" || string(p.Summary) != `{"moves":["shoulder +0.1 rad"]}` {
		t.Errorf("GetPreview = %+v, %v", p, err)
	}
}

func TestPutPreviewRefusesIncompletePreviews(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	for name, edit := range map[string]func(*Preview){
		"no id":            func(p *Preview) { p.ID = "" },
		"no tool":          func(p *Preview) { p.Tool = "" },
		"no digest":        func(p *Preview) { p.ArgsDigest = "" },
		"never expires":    func(p *Preview) { p.ExpiresAt = time.Time{} },
		"summary not JSON": func(p *Preview) { p.Summary = json.RawMessage(`{`) },
	} {
		p := testPreview("p", time.Now().Add(time.Hour))
		edit(&p)
		if err := s.PutPreview(context.Background(), p); !errors.Is(err, ErrInvalidRecord) {
			t.Errorf("%s: PutPreview = %v, want ErrInvalidRecord", name, err)
		}
	}
}

func TestConfirmPreviewConsumesAndClaimsInOneStep(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	if err := s.PutPreview(ctx, testPreview("p1", c.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	p := testPreview("p1", time.Time{})
	confirm := func(id string) Motion {
		return Motion{ID: id, Tool: p.Tool, ArgsDigest: p.ArgsDigest, Role: "operator"}
	}

	m, created, err := confirmID(ctx, s, "p1", confirm("m1"))
	if err != nil || !created || m.State != StateDispatching || string(m.Goal) != string(p.Goal) || m.Actuator != p.Actuator || m.PreviewID != "p1" {
		t.Fatalf("first confirm = %+v, %v, %v", m, created, err)
	}
	if got, _ := s.GetPreview("p1"); got.UsedBy != "m1" {
		t.Errorf("preview used by %q, want m1", got.UsedBy)
	}

	// The same confirm retried (after a timeout, or after the preview
	// expired) returns the motion and never creates it again.
	c.Advance(time.Hour)
	m, created, err = confirmID(ctx, s, "p1", confirm("m1"))
	if err != nil || created || m.ID != "m1" {
		t.Errorf("retried confirm = %s, %v, %v; want m1, not created", m.ID, created, err)
	}

	// Another motion (another planner task) cannot reuse the preview.
	m, created, err = confirmID(ctx, s, "p1", confirm("m2"))
	if !errors.Is(err, ErrPreviewUsed) || created || m.ID != "m1" {
		t.Errorf("confirm for another motion = %s, %v, %v; want m1 with ErrPreviewUsed", m.ID, created, err)
	}
	if _, err := s.Get("m2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("refused confirm created a motion: %v", err)
	}
}

func TestConfirmPreviewRefusesAMotionThatIsNotThePreview(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	if err := s.PutPreview(ctx, testPreview("p1", c.Now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPreview(ctx, testPreview("p2", c.Now().Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	p := testPreview("p1", time.Time{})
	c.Advance(2 * time.Second)
	cases := []struct {
		name, preview string
		m             Motion
		want          error
	}{
		{"other arguments", "p1", Motion{ID: "m", Tool: p.Tool, ArgsDigest: "other"}, ErrInvalidRecord},
		{"other tool", "p1", Motion{ID: "m", Tool: "base_move", ArgsDigest: p.ArgsDigest}, ErrInvalidRecord},
		{"expired", "p2", Motion{ID: "m", Tool: p.Tool, ArgsDigest: p.ArgsDigest}, ErrPreviewExpired},
		{"unknown preview", "p9", Motion{ID: "m", Tool: p.Tool, ArgsDigest: p.ArgsDigest}, ErrNotFound},
	}
	for _, tc := range cases {
		if _, created, err := confirmID(ctx, s, tc.preview, tc.m); !errors.Is(err, tc.want) || created {
			t.Errorf("%s: ConfirmPreview = %v, %v; want %v", tc.name, created, err, tc.want)
		}
	}
	if got, _ := s.GetPreview("p1"); got.UsedBy != "" {
		t.Errorf("a refused confirm consumed the preview (used by %q)", got.UsedBy)
	}
}

// The previews the store keeps decoded never stand in for the record: a
// record changed or deleted by any other write (another writer, a
// compaction) is what GetPreview returns, and a preview read before its
// consumption cannot be consumed again.
func TestAKeptPreviewNeverOutlivesItsRecord(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	for _, id := range []string{"p1", "p2", "p3"} {
		if err := s.PutPreview(ctx, testPreview(id, c.Now().Add(time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.db.Update(func(tx *bolt.Tx) error {
		previews := tx.Bucket([]byte(bucketPreviews))
		p, err := loadPreview(previews, "p1")
		if err != nil {
			return err
		}
		if err := putPreview(previews, markUsed(p, "another-motion", c.Now())); err != nil {
			return err
		}
		return previews.Delete([]byte("p2"))
	}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.GetPreview("p1"); err != nil || p.UsedBy != "another-motion" {
		t.Errorf("GetPreview(p1) = used by %q, %v; want the stored record, used by another-motion", p.UsedBy, err)
	}
	if _, err := s.GetPreview("p2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetPreview(p2) after its deletion: %v, want ErrNotFound", err)
	}

	before, err := s.GetPreview("p3")
	if err != nil {
		t.Fatal(err)
	}
	if _, created, err := s.ConfirmPreview(ctx, before, Motion{ID: "m1", Tool: before.Tool, ArgsDigest: before.ArgsDigest}); err != nil || !created {
		t.Fatalf("first confirm: created %v, %v", created, err)
	}
	if _, created, err := s.ConfirmPreview(ctx, before, Motion{ID: "m2", Tool: before.Tool, ArgsDigest: before.ArgsDigest}); !errors.Is(err, ErrPreviewUsed) || created {
		t.Errorf("second confirm from the copy read before the first: created %v, %v; want ErrPreviewUsed", created, err)
	}
	if p, err := s.GetPreview("p3"); err != nil || p.UsedBy != "m1" {
		t.Errorf("GetPreview(p3) = used by %q, %v; want m1", p.UsedBy, err)
	}
}

// What GetPreview returns from a kept preview equals what decoding the
// stored record gives, and changing it changes nothing kept.
func TestAKeptPreviewIsTheDecodedRecord(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	pv := testPreview("p1", c.Now().Add(time.Minute))
	pv.Args = json.RawMessage("{ \"positions\" : {\"j1\": 1} }") // stored compact
	if err := s.PutPreview(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	var decoded Preview
	if err := s.view(func(tx *bolt.Tx) error {
		var err error
		decoded, err = loadPreview(tx.Bucket([]byte(bucketPreviews)), "p1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetPreview("p1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, decoded) {
		t.Fatalf("GetPreview = %+v\nwant the decoded record %+v", got, decoded)
	}
	got.Args[0] = 'X'
	if again, _ := s.GetPreview("p1"); !reflect.DeepEqual(again, decoded) {
		t.Errorf("a caller's change to what GetPreview returned reached the kept preview: %s", again.Args)
	}
}
