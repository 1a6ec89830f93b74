package inflight

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

func TestAuditKeepsAppendOrderUnderConcurrentCalls(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	const callers, each = 8, 25
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := AuditRecord{Tool: fmt.Sprint("caller-", c), Code: fmt.Sprint(i), Outcome: OutcomeOK}
				if err := s.appendOne(context.Background(), r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	lines := allAudit(t, s)
	if len(lines) != callers*each {
		t.Fatalf("%d lines, want %d", len(lines), callers*each)
	}
	next := map[string]int{}
	for i, r := range lines {
		if r.Seq != uint64(i+1) {
			t.Fatalf("line %d has seq %d: the order has gaps or repeats", i, r.Seq)
		}
		// Each caller's own lines appear in the order it appended them.
		if r.Code != fmt.Sprint(next[r.Tool]) {
			t.Fatalf("%s: line %s arrived when %d was due", r.Tool, r.Code, next[r.Tool])
		}
		next[r.Tool]++
	}
}

func allAudit(t *testing.T, s *Store) []AuditRecord {
	t.Helper()
	var out []AuditRecord
	cursor := ""
	for {
		page, next, err := s.AuditList(cursor, 7)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page...)
		if next == "" {
			return out
		}
		cursor = next
	}
}

func TestAuditClipsLargeOrInvalidArgs(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	large := `{"points":"` + strings.Repeat("x", AuditArgsLimit) + `"}`
	// A 3-byte rune straddles the limit: clipping must not split it.
	straddle := `{"s":"` + strings.Repeat("a", AuditArgsLimit-7) + "€€€" + `"}`
	cases := []struct {
		name, args    string
		wantArgs      string // exact, when the args are kept
		wantArgsBytes int
	}{
		{"small JSON kept compact", "{ \"a\": [1, 2] }", `{"a":[1,2]}`, 0},
		{"no args", "", "", 0},
		{"large JSON clipped", large, "", len(large)},
		{"rune at the limit", straddle, "", len(straddle)},
		{"not JSON", `{"a":`, `"{\"a\":"`, 5},
	}
	for _, tc := range cases {
		if err := s.appendOne(context.Background(), AuditRecord{Tool: tc.name, Args: json.RawMessage(tc.args)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range allAudit(t, s) {
		tc := cases[i]
		if r.ArgsBytes != tc.wantArgsBytes {
			t.Errorf("%s: ArgsBytes = %d, want %d", tc.name, r.ArgsBytes, tc.wantArgsBytes)
		}
		if tc.wantArgs != "" || tc.wantArgsBytes == 0 {
			if string(r.Args) != tc.wantArgs {
				t.Errorf("%s: Args = %s, want %s", tc.name, r.Args, tc.wantArgs)
			}
			continue
		}
		var kept string
		if err := json.Unmarshal(r.Args, &kept); err != nil || len(kept) > AuditArgsLimit || !utf8.ValidString(kept) || !strings.HasPrefix(tc.args, kept) {
			t.Errorf("%s: clipped args %q (%v) are not a valid prefix of at most %d bytes", tc.name, kept, err, AuditArgsLimit)
		}
	}
}

func TestAuditKeepsRefusedCallsWithOversizedNames(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	huge := strings.Repeat("é", 1000)
	for _, r := range []AuditRecord{{Tool: "", Outcome: OutcomeError, Code: "not_found"}, {Tool: huge, Role: huge, Outcome: OutcomeError}} {
		if err := s.appendOne(context.Background(), r); err != nil {
			t.Fatalf("Append(%.20q…) = %v; every call must be audited", r.Tool, err)
		}
	}
	lines := allAudit(t, s)
	if got := lines[1]; len(got.Tool) > auditTextLimit+len("…") || len(got.Role) > auditTextLimit+len("…") || !utf8.ValidString(got.Tool) {
		t.Errorf("oversized fields kept: tool %d bytes, role %d bytes", len(got.Tool), len(got.Role))
	}
}

func TestAuditListPagesWithACursor(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	for i := range 7 {
		if err := s.appendOne(context.Background(), AuditRecord{Tool: fmt.Sprint("t", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var sizes []int
	for cursor := ""; ; {
		page, next, err := s.AuditList(cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if fmt.Sprint(sizes) != "[3 3 1]" {
		t.Errorf("page sizes %v, want [3 3 1]", sizes)
	}
	motionCursor := encodeCursor(cursorMotions, []byte("0123456789"))
	for _, bad := range []string{"???", motionCursor, encodeCursor(cursorAudit, []byte{1, 2})} {
		if _, _, err := s.AuditList(bad, 3); !errors.Is(err, ErrBadCursor) {
			t.Errorf("AuditList(%q) = %v, want ErrBadCursor", bad, err)
		}
	}
}

func TestWriteAuditJSONLWritesEveryLineInOrder(t *testing.T) {
	s := openStore(t, testPath(t), Options{UnsafeNoSync: true})
	const n = 1234 // more than one internal page
	appendConcurrently(t, s, n)
	_ = s.appendOne(context.Background(), AuditRecord{Tool: "last", MotionID: "m1", Outcome: OutcomePreview})
	var buf bytes.Buffer
	if err := s.WriteAuditJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	var lines int
	var last AuditRecord
	for sc.Scan() {
		var r AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not JSON: %v", lines, err)
		}
		if r.Seq != last.Seq+1 {
			t.Fatalf("line %d has seq %d after %d", lines, r.Seq, last.Seq)
		}
		last = r
		lines++
	}
	if want := n + 1; lines != want || last.Tool != "last" || last.MotionID != "m1" {
		t.Errorf("%d lines ending with %+v; want %d ending with the last append", lines, last, want)
	}
}

// BenchmarkAuditAppend is the bridge's shape: many calls finishing at once,
// with fsync on; each op is one audited call.
func BenchmarkAuditAppend(b *testing.B) {
	s := openStore(b, testPath(b), Options{})
	r := benchAudit()
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.appendOne(context.Background(), r); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAuditAppendSerial is one planner calling tools one at a time: the
// worst case for batching, each append waits out the batch window alone.
func BenchmarkAuditAppendSerial(b *testing.B) {
	s := openStore(b, testPath(b), Options{})
	r := benchAudit()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.appendOne(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}

func benchAudit() AuditRecord {
	return AuditRecord{
		Role: "planner", Tool: "arm_move_joints", ArgsDigest: Digest([]byte("x")),
		Args:    json.RawMessage(`{"joints":{"shoulder":0.1,"elbow":-0.4,"wrist":1.2},"speed":0.5}`),
		Outcome: OutcomePreview, LatencyMicros: 1234, MotionID: "",
	}
}

// appendOne adds r to the audit log through a batched commit: the tests'
// way to append one line (the bridge's auditor uses AppendAll).
func (s *Store) appendOne(ctx context.Context, r AuditRecord) error {
	r = s.auditable(r)
	return s.batch(ctx, func(tx *bolt.Tx) error { return putAudit(tx, r) })
}
