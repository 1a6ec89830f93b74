package service

import (
	"bytes"
	"testing"

	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

func FuzzParseCycloneFrame(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0xaa})
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, body, err := ParseCycloneFrame(b)
		if err != nil {
			return
		}
		again, err := AppendCycloneFrame(nil, h, body)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("% x parsed to %+v % x, which frames to % x (%v)", b, h, body, again, err)
		}
	})
}

func FuzzParseSampleIdentity(f *testing.F) {
	v := SampleIdentity{Writer: wire.GUID{Entity: 0x104}, SN: 7}.InlineQoS()[0].Value
	f.Add(uint16(0x0083), v, false)
	f.Add(uint16(0x800f), v, true)
	f.Add(uint16(0x0083), v[:10], false)
	f.Fuzz(func(t *testing.T, pid uint16, v []byte, bigEndian bool) {
		s := rtps.Sample{InlineQoS: wire.ParameterList{{ID: wire.ParameterID(pid), Value: v}}, BigEndian: bigEndian}
		id, ok, err := ParseSampleIdentity(s, wire.VendorEProsima)
		if err != nil || !ok || bigEndian {
			return
		}
		if got := id.InlineQoS()[0].Value; !bytes.Equal(got, v[:identitySize]) {
			t.Fatalf("% x read as %+v, written back as % x", v, id, got)
		}
	})
}
