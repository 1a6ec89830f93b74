package wire

import "encoding/binary"

// decoder reads fixed-size fields in one byte order; the first read past
// the end sets err and every later read returns zero.
type decoder struct {
	b   []byte
	off int
	o   ByteOrder
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b)-d.off < n {
		d.err = ErrShort
		return nil
	}
	v := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return v
}

func (d *decoder) u8() uint8 {
	if v := d.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if v := d.take(2); v != nil {
		return d.o.Uint16(v)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if v := d.take(4); v != nil {
		return d.o.Uint32(v)
	}
	return 0
}

// entityID reads an EntityId_t, an octet array whatever the byte order.
func (d *decoder) entityID() EntityID {
	if v := d.take(4); v != nil {
		return EntityID(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (d *decoder) sn() SequenceNumber {
	hi := int32(d.u32())
	lo := d.u32()
	return SequenceNumber(int64(hi)<<32 | int64(lo))
}

func (d *decoder) rest() []byte { return d.take(len(d.b) - d.off) }

func appendU16(b []byte, o ByteOrder, v uint16) []byte { return o.AppendUint16(b, v) }
func appendU32(b []byte, o ByteOrder, v uint32) []byte { return o.AppendUint32(b, v) }

func appendEntityID(b []byte, e EntityID) []byte { return binary.BigEndian.AppendUint32(b, uint32(e)) }

func appendSN(b []byte, o ByteOrder, s SequenceNumber) []byte {
	b = o.AppendUint32(b, uint32(int64(s)>>32))
	return o.AppendUint32(b, uint32(s))
}

// order maps the E flag (or an encapsulation's endianness) to a byte order.
func order(littleEndian bool) ByteOrder {
	if littleEndian {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// ByteOrder is binary.LittleEndian or binary.BigEndian: the byte order of
// a submessage (its E flag) or of an encapsulated payload.
type ByteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}
