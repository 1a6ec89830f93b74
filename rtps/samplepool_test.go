package rtps

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

func TestSamplePoolReusesBuffersLargeEnough(t *testing.T) {
	tests := []struct {
		name  string
		put   []int // capacities given back, in order
		want  int   // size asked for
		reuse int   // capacity of the buffer reused; 0: a new one
	}{
		{"empty pool: a new buffer", nil, 100, 0},
		{"same size", []int{1024}, 1024, 1024},
		{"smaller than the buffer", []int{1024}, 700, 1024},
		{"larger than every buffer", []int{256, 512}, 600, 0},
		{"the last given back that fits", []int{2048, 256, 1024}, 900, 1024},
		{"a zero-capacity buffer is not kept", []int{0}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sp samplePool
			given := map[*byte]int{}
			for _, c := range tt.put {
				b := make([]byte, 0, c)
				if c > 0 {
					given[&b[:1][0]] = c
				}
				sp.put(b)
			}
			src := bytes.Repeat([]byte{7}, tt.want)
			got := sp.copyOf(src)
			if !bytes.Equal(got, src) {
				t.Fatalf("copy holds %d octets, not the %d given", len(got), len(src))
			}
			reused := 0
			if cap(got) > 0 {
				reused = given[&got[:1][0]]
			}
			if reused != tt.reuse {
				t.Fatalf("reused a buffer of capacity %d, want %d (0: new)", reused, tt.reuse)
			}
			if reused == 0 && cap(got)%poolQuantum != 0 {
				t.Fatalf("a new buffer of capacity %d, not a multiple of %d", cap(got), poolQuantum)
			}
		})
	}
}

func TestSamplePoolKeepsAtMostMaxPooled(t *testing.T) {
	var sp samplePool
	for range maxPooled + 10 {
		sp.put(make([]byte, 10))
	}
	if len(sp.free) != maxPooled {
		t.Fatalf("pool keeps %d buffers, want %d", len(sp.free), maxPooled)
	}
}

// pooledWriter is a reliable user writer's state with a pool, as NewWriter
// makes it.
func pooledWriter(keepLast int) *statefulWriter {
	return &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{},
		keepLast: keepLast, quietWrites: true, pool: &samplePool{}}
}

// TestHistoryKeepsItsOrderWithoutGrowing: a keep-last history that streams
// keeps its last changes in order, and reuses the room at its front instead
// of reallocating its array.
func TestHistoryKeepsItsOrderWithoutGrowing(t *testing.T) {
	for _, depth := range []int{1, 3, 100, maxKeepAll} {
		w := pooledWriter(depth)
		var base *change
		for i := 1; i <= 50*depth+7; i++ {
			w.write(wire.GUID{}, []byte{byte(i)}, nil, time.Now())
			if i == 4*depth {
				base = &w.base[0]
			}
		}
		if len(w.changes) != depth {
			t.Fatalf("depth %d: history holds %d changes", depth, len(w.changes))
		}
		for i, c := range w.changes {
			if want := w.next - wire.SequenceNumber(depth-i); c.sn != want {
				t.Fatalf("depth %d: change %d is sn %d, want %d", depth, i, c.sn, want)
			}
		}
		if &w.base[0] != base {
			t.Fatalf("depth %d: the history's array was reallocated while streaming", depth)
		}
		for _, c := range w.base[:cap(w.base)-cap(w.changes)] {
			if c.payload != nil {
				t.Fatalf("depth %d: a dropped change (sn %d) is still held", depth, c.sn)
			}
		}
	}
}

// TestRetiredPayloadsComeBackOnlyWhenNothingReadsThem: a change that left
// the history gives its buffer back at once when its write was sent, when
// its write's send ends otherwise, and never when it was lent to a repair.
func TestRetiredPayloadsComeBackOnlyWhenNothingReadsThem(t *testing.T) {
	reader := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x104}
	tests := []struct {
		name       string
		inFlight   bool // the first write is still being sent when it leaves
		lent       bool // a repair was built from it
		backAtOnce bool
		backSent   bool
	}{
		{"sent, then dropped: back at once", false, false, true, true},
		{"dropped while being sent: back when sent", true, false, false, true},
		{"lent to a repair: never back", false, true, false, false},
		{"lent and in flight: never back", true, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := pooledWriter(1)
			w.match(reader)
			first := w.pool.copyOf([]byte{0, 1, 0, 0, 1})
			w.write(wire.GUID{}, first, nil, time.Now())
			if tt.inFlight {
				w.inFlight = append(w.inFlight, 1)
			}
			if tt.lent {
				a := &wire.AckNack{ReaderID: 0x104, WriterID: 0x103, State: wire.NewSequenceNumberSet(1), Count: 1}
				a.State.Add(1)
				if len(w.onAckNack(reader, a)) == 0 {
					t.Fatal("no repair for a NACKed change")
				}
			}
			w.write(wire.GUID{}, w.pool.copyOf([]byte{0, 1, 0, 0, 2}), nil, time.Now()) // the first leaves the history
			pooled := func() bool {
				return slices.ContainsFunc(w.pool.free, func(b []byte) bool { return &b[:1][0] == &first[0] })
			}
			if pooled() != tt.backAtOnce {
				t.Fatalf("back in the pool when it left the history: %v, want %v", pooled(), tt.backAtOnce)
			}
			w.sent(1)
			if pooled() != tt.backSent {
				t.Fatalf("back in the pool once its write was sent: %v, want %v", pooled(), tt.backSent)
			}
			if len(w.retired) != 0 {
				t.Fatalf("%d retired changes left after their sends", len(w.retired))
			}
		})
	}
}

// keepAllReaderOf is a writer of topic on a participant of config a and a
// keep-all reader of it on one of config b, once the writer is matched
// (and, reliable, heard from).
func keepAllReaderOf(ctx context.Context, t *testing.T, topic EndpointData, a, b Config) (*Writer, *Reader) {
	t.Helper()
	w, err := newParticipant(t, a).NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	rq := topic
	rq.QoS.History, rq.QoS.Depth = KeepAll, 0
	r, err := newParticipant(t, b).NewReader(rq)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if topic.QoS.Reliability == Reliable {
		if err := w.WaitReady(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	return w, r
}

// TestWriteCopiesItsSample: a caller that reuses its buffer for the next
// sample as soon as Write returns changes nothing already written, for
// reliable and best-effort writers, while the history recycles.
func TestWriteCopiesItsSample(t *testing.T) {
	for name, rel := range map[string]Reliability{"reliable": Reliable, "best effort": BestEffort} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			w, r := keepAllReaderOf(ctx, t, EndpointData{Topic: "rt/reuse", Type: "T", QoS: QoS{Reliability: rel, History: KeepLast, Depth: 2}},
				Config{Domain: 28}, Config{Domain: 28})
			const n = 200
			buf := make([]byte, 0, 4+n)
			for i := range n {
				// Sizes vary, so that pooled buffers are reused for
				// samples of other sizes too.
				buf = append(buf[:0], 0, 1, 0, 0)
				for range 1 + i%37 {
					buf = append(buf, byte(i))
				}
				if err := w.Write(buf, nil); err != nil {
					t.Fatal(err)
				}
				clear(buf[4:]) // the caller reuses its buffer at once
				if rel == BestEffort {
					time.Sleep(200 * time.Microsecond) // a best-effort reader may drop what floods it
				}
			}
			got := 0
			for got < n {
				tctx, tcancel := context.WithTimeout(ctx, time.Second)
				s, err := r.Take(tctx)
				tcancel()
				if err != nil {
					break
				}
				i := int(s.SN - 1)
				want := append([]byte{0, 1, 0, 0}, bytes.Repeat([]byte{byte(i)}, 1+i%37)...)
				if !bytes.Equal(s.Payload, want) {
					t.Fatalf("sample %d arrived as %v, want %v", s.SN, s.Payload, want)
				}
				got++
			}
			if rel == Reliable && got != n {
				t.Fatalf("%d of %d reliable samples arrived", got, n)
			}
			if got == 0 {
				t.Fatal("no sample arrived")
			}
		})
	}
}

// TestRecycledSamplesSurviveRepairs: a reliable keep-last writer that
// streams under loss repairs from its history while it recycles what left
// it; every sample that arrives holds what was written under its number.
func TestRecycledSamplesSurviveRepairs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, r := keepAllReaderOf(ctx, t, EndpointData{Topic: "rt/repairs", Type: "T", QoS: QoS{Reliability: Reliable, History: KeepLast, Depth: 8}},
		Config{Domain: 29, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 3)},
		Config{Domain: 29, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 4)})
	const n = 2000
	buf := make([]byte, 0, 1100)
	for i := range n {
		buf = append(buf[:0], 0, 1, 0, 0)
		for range 100 + i%1000 { // some go in more than one datagram
			buf = append(buf, byte(i))
		}
		if err := w.Write(buf, nil); err != nil {
			t.Fatal(err)
		}
		clear(buf[4:])
	}
	got := 0
	for {
		tctx, tcancel := context.WithTimeout(ctx, 2*time.Second)
		s, err := r.Take(tctx)
		tcancel()
		if err != nil {
			break
		}
		i := int(s.SN - 1)
		if want := append([]byte{0, 1, 0, 0}, bytes.Repeat([]byte{byte(i)}, 100+i%1000)...); !bytes.Equal(s.Payload, want) {
			t.Fatalf("sample %d arrived with %d octets starting %v, want %d of %d", s.SN, len(s.Payload), s.Payload[:min(8, len(s.Payload))], len(want), byte(i))
		}
		got++
	}
	if got < n/10 {
		t.Fatalf("only %d of %d samples arrived", got, n)
	}
	t.Logf("%d of %d samples arrived (keep-last 8 under 20 %% loss)", got, n)
}
