package wire

// SequenceNumber numbers the changes of a writer, starting at 1.
type SequenceNumber int64

// SequenceNumberUnknown is the spec's SEQUENCENUMBER_UNKNOWN {-1, 0}.
const SequenceNumberUnknown SequenceNumber = -1 << 32

// MaxSetBits bounds SequenceNumberSet and FragmentNumberSet (spec 9.4.2.6).
const MaxSetBits = 256

// bitmap is the numBits + bitmap[] part shared by both number sets; bit i
// (0 = base) is the most significant bit of word i/32 first.
type bitmap struct {
	NumBits uint32
	Bits    [MaxSetBits / 32]uint32
}

func (m *bitmap) has(i uint64) bool {
	return i < uint64(m.NumBits) && m.Bits[i/32]&(1<<(31-i%32)) != 0
}

// add sets bit i, growing NumBits to cover it; it reports false when i is
// beyond MaxSetBits.
func (m *bitmap) add(i uint64) bool {
	if i >= MaxSetBits {
		return false
	}
	if uint32(i) >= m.NumBits {
		m.NumBits = uint32(i) + 1
	}
	m.Bits[i/32] |= 1 << (31 - i%32)
	return true
}

// offsets returns the set bits' offsets from the base, in order.
func (m *bitmap) offsets() []uint64 {
	var out []uint64
	for i := range uint64(m.NumBits) {
		if m.has(i) {
			out = append(out, i)
		}
	}
	return out
}

func (m *bitmap) decode(d *decoder) {
	m.NumBits = d.u32()
	if d.err != nil {
		return
	}
	if m.NumBits > MaxSetBits {
		d.err = ErrSetTooLarge
		return
	}
	for i := range int((m.NumBits + 31) / 32) {
		m.Bits[i] = d.u32()
	}
}

func (m *bitmap) appendTo(b []byte, o ByteOrder) []byte {
	n := min(m.NumBits, MaxSetBits)
	b = o.AppendUint32(b, n)
	for i := range int((n + 31) / 32) {
		b = o.AppendUint32(b, m.Bits[i])
	}
	return b
}

// SequenceNumberSet is a base and up to 256 numbers after it (an ACKNACK's
// missing changes, a GAP's list).
type SequenceNumberSet struct {
	Base SequenceNumber
	bitmap
}

// NewSequenceNumberSet returns an empty set starting at base.
func NewSequenceNumberSet(base SequenceNumber) SequenceNumberSet {
	return SequenceNumberSet{Base: base}
}

// Add puts sn in the set; it reports false if sn is below Base or 256 or
// more past it.
func (s *SequenceNumberSet) Add(sn SequenceNumber) bool {
	return sn >= s.Base && s.add(uint64(sn-s.Base))
}

// Contains reports whether sn is in the set.
func (s *SequenceNumberSet) Contains(sn SequenceNumber) bool {
	return sn >= s.Base && s.has(uint64(sn-s.Base))
}

// Members returns the numbers in the set, in order.
func (s *SequenceNumberSet) Members() []SequenceNumber {
	var out []SequenceNumber
	for _, i := range s.offsets() {
		out = append(out, s.Base+SequenceNumber(i))
	}
	return out
}

func (s *SequenceNumberSet) decode(d *decoder) {
	s.Base = d.sn()
	s.bitmap.decode(d)
}

func (s *SequenceNumberSet) appendTo(b []byte, o ByteOrder) []byte {
	return s.bitmap.appendTo(appendSN(b, o, s.Base), o)
}

// FragmentNumberSet is a base fragment number (from 1) and up to 256
// fragment numbers after it, as NACK_FRAG carries.
type FragmentNumberSet struct {
	Base uint32
	bitmap
}

// Add puts fragment n in the set; it reports false if n is out of range.
func (s *FragmentNumberSet) Add(n uint32) bool { return n >= s.Base && s.add(uint64(n-s.Base)) }

// Contains reports whether fragment n is in the set.
func (s *FragmentNumberSet) Contains(n uint32) bool { return n >= s.Base && s.has(uint64(n-s.Base)) }

// Members returns the fragment numbers in the set, in order.
func (s *FragmentNumberSet) Members() []uint32 {
	var out []uint32
	for _, i := range s.offsets() {
		out = append(out, s.Base+uint32(i))
	}
	return out
}

func (s *FragmentNumberSet) decode(d *decoder) {
	s.Base = d.u32()
	s.bitmap.decode(d)
}

func (s *FragmentNumberSet) appendTo(b []byte, o ByteOrder) []byte {
	return s.bitmap.appendTo(o.AppendUint32(b, s.Base), o)
}
