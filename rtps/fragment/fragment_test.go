package fragment

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/actbridge/actbridge/rtps/wire"
)

var writer = wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x103}

// split cuts sample into DATA_FRAGs of fragSize, per fragments per
// submessage.
func split(sn wire.SequenceNumber, sample []byte, fragSize, per int) []*wire.DataFrag {
	var out []*wire.DataFrag
	for off := 0; off < len(sample); off += fragSize * per {
		end := min(off+fragSize*per, len(sample))
		n := (end - off + fragSize - 1) / fragSize
		out = append(out, &wire.DataFrag{WriterSN: sn, FragmentStart: uint32(off/fragSize + 1), Fragments: uint16(n),
			FragmentSize: uint16(fragSize), SampleSize: uint32(len(sample)), Payload: sample[off:end]})
	}
	return out
}

func TestFragmentsInAnyOrderAndRepeatedRebuildTheSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ size, fragSize, per int }{{1000, 100, 1}, {1001, 100, 3}, {70000, 1344, 1}, {5, 8, 1}} {
		sample := make([]byte, c.size)
		for i := range sample {
			sample[i] = byte(rng.IntN(256))
		}
		frags := split(7, sample, c.fragSize, c.per)
		frags = append(frags, frags[0]) // a repeat
		rng.Shuffle(len(frags), func(i, j int) { frags[i], frags[j] = frags[j], frags[i] })
		r := New(Limits{})
		var got []byte
		for i, f := range frags {
			out, err := r.Add(writer, f)
			if err != nil {
				t.Fatal(err)
			}
			if out.Payload != nil {
				if got != nil && i != len(frags)-1 {
					t.Fatalf("%+v: completed twice", c)
				}
				got = out.Payload
			}
		}
		if !bytes.Equal(got, sample) {
			t.Fatalf("%+v: sample differs", c)
		}
	}
}

func TestMissingNamesTheFragmentsToNack(t *testing.T) {
	r := New(Limits{})
	frags := split(1, make([]byte, 1000), 100, 1)
	for _, i := range []int{0, 2, 3, 9} {
		r.Add(writer, frags[i])
	}
	set, ok := r.Missing(Key{writer, 1})
	if !ok || set.Base != 2 {
		t.Fatalf("missing %+v %v", set, ok)
	}
	if got := set.Members(); len(got) != 6 || got[0] != 2 || got[1] != 5 || got[5] != 9 {
		t.Fatalf("missing %v, want 2 5 6 7 8 9", got)
	}
}

func TestInvalidFragmentsAreRefused(t *testing.T) {
	good := split(1, make([]byte, 1000), 100, 1)
	for _, c := range []struct {
		name string
		f    wire.DataFrag
		want error
	}{
		{"zero fragment size", wire.DataFrag{SampleSize: 10, FragmentStart: 1, Fragments: 1}, ErrInvalid},
		{"past the last fragment", wire.DataFrag{SampleSize: 100, FragmentSize: 10, FragmentStart: 10, Fragments: 2, Payload: make([]byte, 20)}, ErrInvalid},
		{"short payload", wire.DataFrag{SampleSize: 100, FragmentSize: 10, FragmentStart: 1, Fragments: 2, Payload: make([]byte, 19)}, ErrInvalid},
		{"too large", wire.DataFrag{SampleSize: 1 << 30, FragmentSize: 1000, FragmentStart: 1, Fragments: 1, Payload: make([]byte, 1000)}, ErrTooLarge},
	} {
		if _, err := New(Limits{}).Add(writer, &c.f); !errors.Is(err, c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	r := New(Limits{})
	r.Add(writer, good[0])
	changed := *good[1]
	changed.SampleSize = 2000
	changed.Payload = make([]byte, 100)
	if _, err := r.Add(writer, &changed); !errors.Is(err, ErrInvalid) {
		t.Fatalf("size change: %v", err)
	}
	if n, _ := r.Pending(); n != 0 {
		t.Fatal("sample that changed size kept")
	}
}

// A writer flooding first fragments of samples it never completes cannot
// push memory past the budget, nor evict another writer's partial sample.
func TestFloodOfIncompleteSamplesStaysInBudgetAndSparesOthers(t *testing.T) {
	r := New(Limits{MaxSample: 10000, MaxBytes: 40000, MaxPerWriter: 3})
	good := wire.GUID{Prefix: wire.GUIDPrefix{2}, Entity: 0x103}
	sample := bytes.Repeat([]byte{7}, 5000)
	gf := split(1, sample, 1000, 1)
	r.Add(good, gf[0])
	for sn := range wire.SequenceNumber(1000) {
		if _, err := r.Add(writer, split(sn+1, make([]byte, 10000), 1000, 1)[0]); err != nil {
			t.Fatal(err)
		}
		if _, b := r.Pending(); b > 40000 {
			t.Fatalf("%d octets pending, budget 40000", b)
		}
	}
	var got Sample
	for _, f := range gf[1:] {
		got, _ = r.Add(good, f)
	}
	if !bytes.Equal(got.Payload, sample) {
		t.Fatal("the flood evicted another writer's partial sample")
	}
}

// The inline QoS of a fragmented sample comes with the sample whichever
// fragment completes it (writers send it with the first only, and a
// service reply is matched to its request by it), and a fragment with
// more inline QoS than MaxInlineQoS is refused.
func TestInlineQoSOfTheFirstFragmentComesWithTheSample(t *testing.T) {
	qos := wire.ParameterList{{ID: 0x800f, Value: bytes.Repeat([]byte{9}, 24)}}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}} {
		r := New(Limits{})
		frags := split(3, make([]byte, 2500), 1000, 1)
		frags[0].InlineQoS, frags[0].BigEndian = qos, true
		var got Sample
		for _, i := range order {
			out, err := r.Add(writer, frags[i])
			if err != nil {
				t.Fatal(err)
			}
			if out.Payload != nil {
				got = out
			}
		}
		if len(got.InlineQoS) != 1 || got.InlineQoS[0].ID != 0x800f || !bytes.Equal(got.InlineQoS[0].Value, qos[0].Value) || !got.BigEndian {
			t.Fatalf("order %v: inline QoS %+v big-endian %v, want the first fragment's", order, got.InlineQoS, got.BigEndian)
		}
		if n, b := r.Pending(); n != 0 || b != 0 {
			t.Fatalf("order %v: %d samples, %d octets still pending", order, n, b)
		}
	}
	r := New(Limits{})
	f := split(4, make([]byte, 2500), 1000, 1)[0]
	f.InlineQoS = wire.ParameterList{{ID: 0x800f, Value: make([]byte, MaxInlineQoS+4)}}
	if _, err := r.Add(writer, f); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized inline QoS: %v, want ErrTooLarge", err)
	}
	f = split(5, make([]byte, 2500), 1000, 1)[0]
	f.InlineQoS = make(wire.ParameterList, MaxInlineQoS/4+1) // empty values
	if _, err := r.Add(writer, f); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%d empty parameters: %v, want ErrTooLarge", len(f.InlineQoS), err)
	}
	if n, b := r.Pending(); n != 0 || b != 0 {
		t.Fatalf("refused samples left %d pending, %d octets", n, b)
	}
}

// FuzzAdd: arbitrary fragments never panic or exceed the budget.
func FuzzAdd(f *testing.F) {
	f.Add(uint32(1000), uint16(100), uint32(1), uint16(2), 200, int64(1))
	f.Fuzz(func(t *testing.T, size uint32, fragSize uint16, start uint32, count uint16, n int, sn int64) {
		r := New(Limits{MaxSample: 1 << 16, MaxBytes: 1 << 17, MaxPerWriter: 2})
		if n < 0 || n > 1<<16 {
			return
		}
		for i := range 3 {
			r.Add(writer, &wire.DataFrag{WriterSN: wire.SequenceNumber(sn + int64(i)), SampleSize: size, FragmentSize: fragSize,
				FragmentStart: start, Fragments: count, Payload: make([]byte, n)})
			r.Missing(Key{writer, wire.SequenceNumber(sn)})
			if _, b := r.Pending(); b > 1<<17 || r.Held()[writer] != b {
				t.Fatalf("%d octets pending, %d held by the writer", b, r.Held()[writer])
			}
		}
		for r.DropOldest(writer) {
		}
		if n, b := r.Pending(); n != 0 || b != 0 || r.Started(Key{writer, wire.SequenceNumber(sn)}) {
			t.Fatalf("%d samples (%d octets) pending after the writer's were dropped", n, b)
		}
	})
}
