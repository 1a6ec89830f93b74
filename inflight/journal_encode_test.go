package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// fullMotion and fullPreview set every stored field, so a field the
// encoder forgot shows as a difference from json.Marshal.
func fullMotion() *Motion {
	at := time.Date(2026, 12, 3, 14, 5, 6, 123456789, time.UTC)
	return &Motion{Version: 1, ID: "m-1", Tool: "arm_move_joints", Actuator: "arm", Scope: "task-7",
		PreviewID: "pv-1", ArgsDigest: "sha256:ab", Args: json.RawMessage(`{"positions":{"j1":0.5}}`),
		Goal:  json.RawMessage(`{"trajectory":{"joints":["j1"],"points":[{"t":0.1,"q":[0.5]}]},"start":{"j1":0}}`),
		State: StateSucceeded, Progress: 0.75, Result: json.RawMessage(`{"error_code":0}`), ErrorText: "none",
		Role: "planner", CreatedAt: at, UpdatedAt: at.Add(time.Second),
		History: []Transition{{From: StateDispatching, To: StateSent, At: at, Note: "goal published"}, {From: StateSent, To: StateSucceeded, At: at.Add(time.Second)}}}
}

func fullPreview() *Preview {
	at := time.Date(2026, 12, 3, 14, 5, 6, 5, time.FixedZone("x", 3600))
	return &Preview{Version: 1, ID: "pv-1", Tool: "arm_move_joints", Actuator: "arm", ArgsDigest: "sha256:ab",
		Args: json.RawMessage(`{"positions":{"j1":0.5}}`), Goal: json.RawMessage(`{"start":{"j1":0}}`),
		StateDigest: "sd", Summary: json.RawMessage(`{"joints_moving":["j1"],"warnings":[]}`), Role: "operator",
		CreatedAt: at, ExpiresAt: at.Add(time.Minute), UsedBy: "m-1", UsedAt: at.Add(2 * time.Second)}
}

// TestJournalLineMatchesMarshal: the hand-written encoder writes exactly
// what json.Marshal writes, for full, minimal and awkward records.
func TestJournalLineMatchesMarshal(t *testing.T) {
	odd := fullMotion()
	odd.ID, odd.ErrorText = "m \"quoted\" <tag> & \\ é \u2028", "line1\nline2\x00"
	odd.History = []Transition{}
	odd.Result = nil
	odd.Progress = 1e-7
	odd.Args = json.RawMessage(`{"b": "<&>"}`)
	oddPreview := fullPreview()
	oddPreview.UsedBy, oddPreview.UsedAt, oddPreview.Summary, oddPreview.Goal = "", time.Time{}, nil, nil
	oddPreview.StateDigest = "tab\there"
	cases := map[string]journalLine{
		"claim":           {Kind: "c", Motion: fullMotion(), Preview: fullPreview()},
		"motion":          {Kind: "m", Motion: fullMotion()},
		"preview":         {Kind: "p", Preview: fullPreview()},
		"minimal motion":  {Kind: "m", Motion: &Motion{ID: "x", Goal: json.RawMessage(`{}`)}},
		"zero motion":     {Kind: "m", Motion: &Motion{}},
		"minimal preview": {Kind: "p", Preview: &Preview{ID: "y"}},
		"odd strings":     {Kind: "c", Motion: odd, Preview: oddPreview},
		"raw needing compaction": {Kind: "m", Motion: &Motion{ID: "z", Goal: json.RawMessage("{\n  \"a\": [1, 2]\n}"),
			Args: json.RawMessage(`{"b": "<&>"}`)}},
		"no records": {Kind: "p"},
	}
	for name, l := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendJournalLine(nil, l)
			if err != nil {
				t.Fatal(err)
			}
			if name == "raw needing compaction" || name == "odd strings" {
				// Raw JSON without a newline is copied, not HTML-escaped:
				// the same values, possibly other bytes.
				assertSameLine(t, got, want)
				return
			}
			if string(got) != string(want) {
				t.Errorf("encoder wrote\n%s\njson.Marshal writes\n%s", got, want)
			}
		})
	}
}

func assertSameLine(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w journalLine
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("encoder output does not decode: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Errorf("decoded lines differ:\n%s\n%s", gj, wj)
	}
	for i, c := range got {
		if c == '\n' || c == 0 {
			t.Fatalf("byte %d of the line is %q: it would split the journal line", i, c)
		}
	}
}

// TestJournalLineFieldsKnown fails when a stored field is added to a
// record the encoder writes by hand: teach appendMotion/appendPreview it.
func TestJournalLineFieldsKnown(t *testing.T) {
	for typ, want := range map[reflect.Type]int{
		reflect.TypeFor[Motion]():      18,
		reflect.TypeFor[Transition]():  4,
		reflect.TypeFor[Preview]():     14,
		reflect.TypeFor[journalLine](): 3,
	} {
		if n := typ.NumField(); n != want {
			t.Errorf("%s has %d fields, the journal encoder knows %d: update journal_encode.go and this test", typ, n, want)
		}
	}
}

// TestJournalLineFloats: progress is written as encoding/json writes it.
func TestJournalLineFloats(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	vals := []float64{0, 1, 0.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125, math.SmallestNonzeroFloat64, -0.25, 1.0 / 3}
	for range 2000 {
		vals = append(vals, r.Float64(), math.Float64frombits(r.Uint64()))
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		want, _ := json.Marshal(v)
		if got := appendFloat(nil, v); string(got) != string(want) {
			t.Fatalf("appendFloat(%v) = %s, json.Marshal writes %s", v, got, want)
		}
	}
}

// TestJournalLineRefusesWhatMarshalRefuses: a time json.Marshal cannot
// write is an error here too, never a line that would not parse back.
func TestJournalLineRefusesWhatMarshalRefuses(t *testing.T) {
	m := fullMotion()
	m.UpdatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := appendJournalLine(nil, journalLine{Kind: "m", Motion: m}); err == nil {
		t.Fatal("a year-10000 time was encoded; json.Marshal refuses it")
	}
	m = fullMotion()
	m.CreatedAt = m.CreatedAt.In(time.FixedZone("far", 24*3600+60)) // an offset MarshalJSON refuses
	if _, err := appendJournalLine(nil, journalLine{Kind: "m", Motion: m}); err == nil {
		t.Fatal("a time 24 h from UTC was encoded; json.Marshal refuses it")
	}
	p := fullPreview()
	p.ExpiresAt = p.ExpiresAt.In(time.FixedZone("far", -25*3600))
	if _, err := appendJournalLine(nil, journalLine{Kind: "p", Preview: p}); err == nil {
		t.Fatal("a preview time 25 h from UTC was encoded; json.Marshal refuses it")
	}
	m = fullMotion()
	m.Progress = math.NaN()
	if _, err := appendJournalLine(nil, journalLine{Kind: "m", Motion: m}); err == nil {
		t.Fatal("a NaN progress was encoded; json.Marshal refuses it")
	}
}

func BenchmarkJournalLineClaim(b *testing.B) {
	l := journalLine{Kind: "c", Motion: fullMotion(), Preview: fullPreview()}
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = appendJournalLine(nil, l)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(l)
		}
	})
}

// TestATimeTheJournalCannotHoldIsRefused (found by review): the encoder
// once wrote a time json.Marshal refuses (an offset of 24 h or more), the
// line did not parse back, and replay stopped there, so a claim journaled
// after it was lost at the next Open and its preview could be confirmed a
// second time. Such a preview is refused; if it were not, the claim after
// it must still survive a kill.
func TestATimeTheJournalCannotHoldIsRefused(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := openStore(t, path, Options{flushDelay: time.Hour})
	good, m := previewFor(t, s, "p-good", "m-good")
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	bad := testPreview("p-bad", time.Now().Add(time.Minute).In(time.FixedZone("odd", 25*3600)))
	if err := s.PutPreview(ctx, bad); errors.Is(err, ErrInvalidRecord) {
		return
	} else if err != nil {
		t.Fatal(err)
	}
	t.Error("a preview json.Marshal cannot write was accepted")
	if _, created, err := s.ConfirmPreview(ctx, good.ID, m); err != nil || !created {
		t.Fatal(created, err)
	}
	t.Logf("Flush after the odd preview: %v", s.Flush(ctx))
	// A kill now: copy the files as they are.
	dir := t.TempDir()
	for _, suf := range []string{"", ".journal-a", ".journal-b"} {
		b, err := os.ReadFile(path + suf)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "inflight.db"+suf), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s2 := openStore(t, filepath.Join(dir, "inflight.db"), Options{flushDelay: time.Hour})
	if _, err := s2.Get(m.ID); errors.Is(err, ErrNotFound) {
		_, created, cerr := s2.ConfirmPreview(ctx, good.ID, m)
		t.Fatalf("claimed motion %s lost after restart; confirming the preview again: created=%v err=%v", m.ID, created, cerr)
	}
}
