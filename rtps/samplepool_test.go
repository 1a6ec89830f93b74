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
		{"the smallest that fits", []int{1024, 256, 2048}, 900, 1024},
		{"not one more than twice as large", []int{1 << 20}, 1000, 0},
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

func TestSamplePoolIsBounded(t *testing.T) {
	tests := []struct {
		name       string
		size, puts int
		keeps      int
	}{
		{"in buffers", 10, maxPooled + 10, maxPooled},
		{"in octets", 1 << 20, 10, maxPooledOctets / (1 << 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sp samplePool
			for range tt.puts {
				sp.put(make([]byte, tt.size))
			}
			if len(sp.free) != tt.keeps {
				t.Fatalf("pool keeps %d buffers, want %d", len(sp.free), tt.keeps)
			}
			for range tt.keeps {
				sp.copyOf(make([]byte, tt.size))
			}
			if len(sp.free) != 0 || sp.octets != 0 {
				t.Fatalf("after taking them all: %d buffers, %d octets counted", len(sp.free), sp.octets)
			}
		})
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
		lagging(w)
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
		off := cap(w.base) - cap(w.changes)
		for i, c := range w.base {
			if (i < off || i >= off+len(w.changes)) && c.payload != nil {
				t.Fatalf("depth %d: slot %d outside the history (%d..%d) still holds sn %d", depth, i, off, off+len(w.changes)-1, c.sn)
			}
		}
	}
}

// TestRetiredPayloadsComeBackOnlyWhenNothingReadsThem: a change that left
// the history gives its buffer back at once when its write was already
// sent, else once it is, and never when it was lent to a repair.
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
// sample as soon as Write returns changes nothing already written, while
// a reliable writer's history recycles its own copies.
func TestWriteCopiesItsSample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, r := keepAllReaderOf(ctx, t, EndpointData{Topic: "rt/reuse", Type: "T", QoS: QoS{Reliability: Reliable, History: KeepLast, Depth: 2}},
		Config{Domain: 28}, Config{Domain: 28})
	const n = 200
	buf := make([]byte, 0, 4+n)
	for i := range n {
		// Sizes vary, so that pooled buffers are reused for samples of
		// other sizes too.
		buf = append(buf[:0], 0, 1, 0, 0)
		for range 1 + i%37 {
			buf = append(buf, byte(i))
		}
		if err := w.Write(buf, nil); err != nil {
			t.Fatal(err)
		}
		clear(buf[4:]) // the caller reuses its buffer at once
	}
	for _, s := range takeN(t, r, n) {
		i := int(s.SN - 1)
		if want := append([]byte{0, 1, 0, 0}, bytes.Repeat([]byte{byte(i)}, 1+i%37)...); !bytes.Equal(s.Payload, want) {
			t.Fatalf("sample %d arrived as %v, want %v", s.SN, s.Payload, want)
		}
	}
}

// TestBestEffortHistoryKeepsItsOwnCopy: a best-effort transient-local
// writer's history gives a late joiner the sample as written, though the
// caller reused its buffer since.
func TestBestEffortHistoryKeepsItsOwnCopy(t *testing.T) {
	topic := EndpointData{Topic: "rt/latched", Type: "T", QoS: QoS{Reliability: BestEffort, Durability: TransientLocal, History: KeepLast, Depth: 1}}
	w, err := newParticipant(t, Config{Domain: 32}).NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte{0, 1, 0, 0, 'o', 'k'}
	if err := w.Write(buf, nil); err != nil {
		t.Fatal(err)
	}
	copy(buf[4:], "no")
	r, err := newParticipant(t, Config{Domain: 32}).NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	if s := takeN(t, r, 1)[0]; string(s.Payload[4:]) != "ok" {
		t.Fatalf("late joiner got %q, want the sample as written", s.Payload[4:])
	}
}

// TestRecycledSamplesSurviveRepairs: a reliable keep-last writer that
// streams under loss repairs from its history (NACK_FRAG too) while it
// recycles what left it; every sample that arrives holds what was written
// under its number. (Whether it catches a repair built from a recycled
// buffer depends on timing; TestRetiredPayloadsComeBackOnlyWhenNothingReadsThem
// pins the rule.)
func TestRecycledSamplesSurviveRepairs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, r := keepAllReaderOf(ctx, t, EndpointData{Topic: "rt/repairs", Type: "T", QoS: QoS{Reliability: Reliable, History: KeepLast, Depth: 8}},
		Config{Domain: 29, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 3)},
		Config{Domain: 29, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 4)})
	const n = 2000
	size := func(i int) int { return 100 + i%1000 + i%7/6*20000 } // one in seven in DATA_FRAGs
	buf := make([]byte, 0, 4+size(6))
	for i := range n {
		buf = append(buf[:0], 0, 1, 0, 0)
		for range size(i) {
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
		if want := append([]byte{0, 1, 0, 0}, bytes.Repeat([]byte{byte(i)}, size(i))...); !bytes.Equal(s.Payload, want) {
			t.Fatalf("sample %d arrived with %d octets starting %v, want %d of %d", s.SN, len(s.Payload), s.Payload[:min(8, len(s.Payload))], len(want), byte(i))
		}
		got++
	}
	if got < n/10 {
		t.Fatalf("only %d of %d samples arrived", got, n)
	}
	t.Logf("%d of %d samples arrived (keep-last 8 under 20 %% loss)", got, n)
}

// TestManyRetiredComeBackAsTheyAreSent: a keep-last 2 writer with 100
// writes still being sent retires 98 of them; each comes back as its own
// send ends, in order, and none is left behind.
func TestManyRetiredComeBackAsTheyAreSent(t *testing.T) {
	w := pooledWriter(2)
	w.match(wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x104})
	const n = 100
	for i := range n {
		w.write(wire.GUID{}, w.pool.copyOf([]byte{0, 1, 0, 0, byte(i)}), nil, time.Now())
		w.inFlight = append(w.inFlight, w.next-1)
	}
	if len(w.retired) != n-2 {
		t.Fatalf("%d retired while being sent, want %d", len(w.retired), n-2)
	}
	for sn := wire.SequenceNumber(1); sn <= n; sn++ {
		w.sent(sn)
		if want := min(int(sn), n-2); len(w.pool.free) != min(want, maxPooled) {
			t.Fatalf("after sn %d was sent: %d buffers back, want %d", sn, len(w.pool.free), min(want, maxPooled))
		}
	}
	if len(w.retired) != 0 || len(w.inFlight) != 0 {
		t.Fatalf("left: %d retired, %d in flight", len(w.retired), len(w.inFlight))
	}
}

// TestVolatileHistoryLetsGoOfWhatEveryReaderAcknowledged: a volatile
// writer's history keeps a change until every reliable reader has
// acknowledged it (a best-effort one is not waited for), or the reader
// that lacked it goes away; its buffer then comes back to the pool. A
// transient-local writer keeps its history for later readers.
func TestVolatileHistoryLetsGoOfWhatEveryReaderAcknowledged(t *testing.T) {
	a := wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x104}
	b := wire.GUID{Prefix: wire.GUIDPrefix{2}, Entity: 0x104}
	slow := wire.GUID{Prefix: wire.GUIDPrefix{3}, Entity: 0x104}
	tests := []struct {
		name    string
		durable bool
		steps   []func(w *statefulWriter)
		first   wire.SequenceNumber // the history's first change after the steps
		pooled  int
	}{
		{name: "one reader acknowledged part", first: 4, pooled: 3,
			steps: []func(*statefulWriter){ack(a, 4), ack(b, 4)}},
		{name: "the other reader lags", first: 2, pooled: 1,
			steps: []func(*statefulWriter){ack(a, 6), ack(b, 2)}},
		{name: "all acknowledged", first: 6, pooled: 5,
			steps: []func(*statefulWriter){ack(b, 6), ack(a, 6)}},
		{name: "the lagging reader went away", first: 6, pooled: 5,
			steps: []func(*statefulWriter){ack(a, 6), func(w *statefulWriter) { w.unmatch(b) }}},
		{name: "transient-local keeps it", durable: true, first: 1, pooled: 0,
			steps: []func(*statefulWriter){ack(a, 6), ack(b, 6)}},
		{name: "a change still being sent comes back once sent", first: 6, pooled: 3,
			steps: []func(*statefulWriter){inFlight(4, 5), ack(a, 6), ack(b, 6)}},
		{name: "and then", first: 6, pooled: 5,
			steps: []func(*statefulWriter){inFlight(4, 5), ack(a, 6), ack(b, 6), sent(4, 5)}},
		{name: "a change a repair was built from never comes back", first: 6, pooled: 4,
			steps: []func(*statefulWriter){func(w *statefulWriter) { w.lend(1, nil, a.Entity) }, ack(a, 6), ack(b, 6)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := pooledWriter(maxKeepAll)
			w.durable = tt.durable
			w.match(a)
			w.match(b)
			w.match(slow)
			w.readers[slow].bestEffort = true
			for i := range 5 {
				w.write(wire.GUID{}, w.pool.copyOf([]byte{0, 1, 0, 0, byte(i)}), nil, time.Now())
			}
			for _, step := range tt.steps {
				step(w)
			}
			if got := w.first(); got != tt.first {
				t.Fatalf("history starts at %d, want %d", got, tt.first)
			}
			if len(w.pool.free) != tt.pooled {
				t.Fatalf("%d buffers back in the pool, want %d", len(w.pool.free), tt.pooled)
			}
		})
	}
}

// inFlight is a step in which the writes of sns are still being sent.
func inFlight(sns ...wire.SequenceNumber) func(*statefulWriter) {
	return func(w *statefulWriter) { w.inFlight = append(w.inFlight, sns...) }
}

// sent is a step in which the writes of sns are out.
func sent(sns ...wire.SequenceNumber) func(*statefulWriter) {
	return func(w *statefulWriter) {
		for _, sn := range sns {
			w.sent(sn)
		}
	}
}

// ack is a step in which reader g acknowledges every change below base.
func ack(g wire.GUID, base wire.SequenceNumber) func(*statefulWriter) {
	return func(w *statefulWriter) {
		w.onAckNack(g, &wire.AckNack{State: wire.NewSequenceNumberSet(base), Count: w.readers[g].lastNack + 2, Final: true})
	}
}

// TestAVolatileWriterWithoutReliableReadersKeepsOnlyItsLast: with only a
// best-effort reader, no one can ask for an earlier change, so each write
// lets go of the one before.
func TestAVolatileWriterWithoutReliableReadersKeepsOnlyItsLast(t *testing.T) {
	w := pooledWriter(maxKeepAll)
	r := wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x104}
	w.match(r)
	w.readers[r].bestEffort = true
	for i := range 5 {
		w.write(wire.GUID{}, []byte{0, 1, 0, 0, byte(i)}, nil, time.Now())
	}
	if first := w.first(); first != 5 || len(w.changes) != 1 {
		t.Fatalf("history holds %d changes from %d, want the last, 5", len(w.changes), first)
	}
	if len(w.pool.free) != 4 {
		t.Fatalf("%d buffers back in the pool, want 4", len(w.pool.free))
	}
}

// TestAnAcknowledgedWindowComesBackWhole: one acknowledgment lets a
// volatile writer's history go of hundreds of small samples at once; the
// pool keeps them all for the writes that follow, which then allocate
// nothing.
func TestAnAcknowledgedWindowComesBackWhole(t *testing.T) {
	const n = 600
	w := pooledWriter(maxKeepAll)
	r := wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x104}
	w.match(r)
	sample := make([]byte, 1024)
	for range n {
		w.write(wire.GUID{}, w.pool.copyOf(sample), nil, time.Now())
	}
	ack(r, n+1)(w)
	if len(w.pool.free) != n {
		t.Fatalf("%d buffers back in the pool, want %d", len(w.pool.free), n)
	}
	if allocs := testing.AllocsPerRun(n-1, func() { w.pool.copyOf(sample) }); allocs != 0 {
		t.Fatalf("a copy allocated %.1f times with %d buffers pooled", allocs, len(w.pool.free))
	}
}
