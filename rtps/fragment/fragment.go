// Package fragment reassembles samples that writers send in DATA_FRAG
// submessages (DDSI-RTPS 2.5, 8.4.14.1), within fixed memory bounds: a
// flood of fragments that never complete evicts only its own writer's
// partial samples first, and never grows memory past the budget.
package fragment

import (
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/rtps/wire"
)

// Errors of Add; compare with errors.Is.
var (
	// ErrInvalid means the fragment contradicts itself or earlier
	// fragments of its sample (sizes, numbers, lengths).
	ErrInvalid = errors.New("fragment: invalid fragment")
	// ErrTooLarge means the sample is larger than the limits allow.
	ErrTooLarge = errors.New("fragment: sample too large")
)

// MaxInlineQoS bounds the inline QoS kept with a partial sample, in
// octets as on the wire (4 per parameter header plus its value); ROS 2's
// are a few dozen.
const MaxInlineQoS = 4096

// Limits bound a Reassembler.
type Limits struct {
	// MaxSample is the largest sample accepted, in octets.
	MaxSample int
	// MaxBytes bounds the octets held by all partial samples together.
	MaxBytes int
	// MaxPerWriter bounds the partial samples of one writer.
	MaxPerWriter int
}

// Reassembler rebuilds samples from fragments. It is not safe for
// concurrent use.
type Reassembler struct {
	lim     Limits
	pending map[Key]*sample
	order   []Key // oldest first, for eviction
	bytes   int
}

// Key names one sample: its writer and sequence number.
type Key struct {
	Writer wire.GUID
	SN     wire.SequenceNumber
}

// Sample is a sample the fragments completed.
type Sample struct {
	// Payload is the serialized payload, encapsulation header included;
	// nil while fragments are missing.
	Payload []byte
	// InlineQoS is the inline QoS a fragment of the sample carried
	// (writers send it with the first only), copied; nil when none did.
	InlineQoS wire.ParameterList
	// BigEndian is the byte order of InlineQoS's values.
	BigEndian bool
}

type sample struct {
	qos       wire.ParameterList
	bigEndian bool
	qosBytes  int // octets of qos, counted in Reassembler.bytes
	size      uint32
	fragSize  uint16
	total     uint32 // fragments in the sample
	buf       []byte
	have      []uint64 // bit f-1 set when fragment f arrived
	missing   uint32
}

// New returns a Reassembler with the given limits; zero fields default
// to 8 MiB per sample, 32 MiB in all and 4 partial samples per writer.
func New(lim Limits) *Reassembler {
	if lim.MaxSample <= 0 {
		lim.MaxSample = 8 << 20
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = 32 << 20
	}
	if lim.MaxPerWriter <= 0 {
		lim.MaxPerWriter = 4
	}
	return &Reassembler{lim: lim, pending: map[Key]*sample{}}
}

// Add stores the fragments of f from writer. When they complete the
// sample, it returns the sample: its serialized payload (encapsulation
// header included; it aliases f.Payload when one fragment is the whole
// sample) with the inline QoS a fragment brought, and forgets it; until
// then Sample.Payload is nil. Fragments of a sample already complete
// start it again: the caller drops changes it has delivered. An invalid
// fragment is refused and drops the partial sample it claims to belong to.
func (r *Reassembler) Add(writer wire.GUID, f *wire.DataFrag) (Sample, error) {
	k := Key{writer, f.WriterSN}
	if f.FragmentSize == 0 || f.SampleSize == 0 || f.FragmentStart == 0 || f.Fragments == 0 {
		return Sample{}, fmt.Errorf("%w: size %d, fragment size %d, start %d, count %d", ErrInvalid, f.SampleSize, f.FragmentSize, f.FragmentStart, f.Fragments)
	}
	if int64(f.SampleSize) > int64(r.lim.MaxSample) || int(f.SampleSize) > r.lim.MaxBytes {
		return Sample{}, fmt.Errorf("%w: %d octets", ErrTooLarge, f.SampleSize)
	}
	total := (f.SampleSize + uint32(f.FragmentSize) - 1) / uint32(f.FragmentSize)
	last := uint64(f.FragmentStart) + uint64(f.Fragments) - 1
	if last > uint64(total) {
		return Sample{}, fmt.Errorf("%w: fragments %d..%d of %d", ErrInvalid, f.FragmentStart, last, total)
	}
	off := uint64(f.FragmentStart-1) * uint64(f.FragmentSize)
	want := min(uint64(f.Fragments)*uint64(f.FragmentSize), uint64(f.SampleSize)-off)
	if uint64(len(f.Payload)) != want {
		return Sample{}, fmt.Errorf("%w: %d octets for fragments %d..%d, want %d", ErrInvalid, len(f.Payload), f.FragmentStart, last, want)
	}
	s, ok := r.pending[k]
	if ok && (s.size != f.SampleSize || s.fragSize != f.FragmentSize) {
		r.Drop(k)
		return Sample{}, fmt.Errorf("%w: sample %v changed size", ErrInvalid, k)
	}
	if !ok {
		if total == 1 {
			return Sample{Payload: f.Payload, InlineQoS: f.InlineQoS.Clone(), BigEndian: f.BigEndian}, nil
		}
		s = r.start(k, f.SampleSize, f.FragmentSize, total)
	}
	if f.InlineQoS != nil && s.qos == nil {
		n := 0
		for _, p := range f.InlineQoS {
			n += 4 + len(p.Value) // its header too: empty parameters are not free
		}
		if n > MaxInlineQoS {
			r.Drop(k)
			return Sample{}, fmt.Errorf("%w: %d octets of inline QoS", ErrTooLarge, n)
		}
		r.makeRoom(n, k.Writer, func(o Key) bool { return o != k })
		if r.bytes+n > r.lim.MaxBytes { // only this sample is left to evict
			r.Drop(k)
			return Sample{}, fmt.Errorf("%w: %d octets of inline QoS beyond the budget", ErrTooLarge, n)
		}
		s.qos, s.bigEndian, s.qosBytes = f.InlineQoS.Clone(), f.BigEndian, n
		r.bytes += n
	}
	copy(s.buf[off:], f.Payload)
	for n := uint64(f.FragmentStart); n <= last; n++ {
		if w, b := (n-1)/64, (n-1)%64; s.have[w]&(1<<b) == 0 {
			s.have[w] |= 1 << b
			s.missing--
		}
	}
	if s.missing > 0 {
		return Sample{}, nil
	}
	r.Drop(k)
	return Sample{Payload: s.buf, InlineQoS: s.qos, BigEndian: s.bigEndian}, nil
}

// start makes room and begins a sample.
func (r *Reassembler) start(k Key, size uint32, fragSize uint16, total uint32) *sample {
	for r.count(k.Writer) >= r.lim.MaxPerWriter {
		r.evict(func(o Key) bool { return o.Writer == k.Writer })
	}
	r.makeRoom(int(size), k.Writer, func(Key) bool { return true })
	s := &sample{size: size, fragSize: fragSize, total: total, buf: make([]byte, size), have: make([]uint64, (total+63)/64), missing: total}
	r.pending[k] = s
	r.order = append(r.order, k)
	r.bytes += int(size)
	return s
}

// makeRoom evicts partial samples that spare allows, writer's own first,
// until n more octets fit the budget.
func (r *Reassembler) makeRoom(n int, writer wire.GUID, spare func(Key) bool) {
	for r.bytes+n > r.lim.MaxBytes && len(r.order) > 0 {
		before := r.bytes
		r.evict(func(o Key) bool { return spare(o) && o.Writer == writer })
		if r.bytes+n > r.lim.MaxBytes {
			r.evict(spare)
		}
		if r.bytes == before {
			return // nothing left that may go
		}
	}
}

func (r *Reassembler) count(w wire.GUID) int {
	n := 0
	for _, k := range r.order {
		if k.Writer == w {
			n++
		}
	}
	return n
}

// evict drops the oldest pending sample whose key passes which.
func (r *Reassembler) evict(which func(Key) bool) {
	for _, k := range r.order {
		if which(k) {
			r.Drop(k)
			return
		}
	}
}

// Drop forgets a partial sample (the writer gave it up, say).
func (r *Reassembler) Drop(k Key) {
	s, ok := r.pending[k]
	if !ok {
		return
	}
	delete(r.pending, k)
	r.bytes -= int(s.size) + s.qosBytes
	for i, o := range r.order {
		if o == k {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// Missing returns the first (up to 256) fragments of a partial sample not
// yet received, for a NACK_FRAG; ok is false if the sample is not pending.
func (r *Reassembler) Missing(k Key) (set wire.FragmentNumberSet, ok bool) {
	s, ok := r.pending[k]
	if !ok {
		return set, false
	}
	for n := uint32(1); n <= s.total; n++ {
		if w, b := (n-1)/64, (n-1)%64; s.have[w]&(1<<b) == 0 {
			if set.Base == 0 {
				set.Base = n
			}
			if !set.Add(n) {
				break
			}
		}
	}
	return set, true
}

// Pending is the number of partial samples and the octets they hold.
func (r *Reassembler) Pending() (samples, bytes int) { return len(r.pending), r.bytes }

// Started reports whether a partial sample k is held.
func (r *Reassembler) Started(k Key) bool { _, ok := r.pending[k]; return ok }

// Held is the octets the partial samples of each writer hold.
func (r *Reassembler) Held() map[wire.GUID]int {
	out := map[wire.GUID]int{}
	for k, s := range r.pending {
		out[k.Writer] += int(s.size) + s.qosBytes
	}
	return out
}

// DropOldest forgets writer w's oldest partial sample, for a budget
// shared beyond this Reassembler; false when w has none.
func (r *Reassembler) DropOldest(w wire.GUID) bool {
	for _, k := range r.order {
		if k.Writer == w {
			r.Drop(k)
			return true
		}
	}
	return false
}
