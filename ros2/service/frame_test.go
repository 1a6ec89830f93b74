package service

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

func TestCycloneFrameRoundTripsInBothByteOrders(t *testing.T) {
	h := RequestHeader{GUID: 0x0102030405060708, Seq: -2}
	for _, tc := range []struct {
		name string
		body []byte
		want []byte
	}{
		{"little endian", []byte{0, 1, 0, 0, 0xaa}, []byte{0, 1, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xaa}},
		{"big endian", []byte{0, 0, 0, 0, 0xaa}, []byte{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xaa}},
		{"empty message", []byte{0, 1, 0, 0}, []byte{0, 1, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendCycloneFrame(nil, h, tc.body)
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Fatalf("AppendCycloneFrame = % x, %v; want % x", got, err, tc.want)
			}
			gh, body, err := ParseCycloneFrame(got)
			if err != nil || gh != h || !bytes.Equal(body, tc.body) {
				t.Fatalf("ParseCycloneFrame = %+v % x %v", gh, body, err)
			}
		})
	}
}

func TestCycloneFrameRefusesWhatIsNotOne(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload []byte
	}{
		{"nothing", nil},
		{"encapsulation only", []byte{0, 1, 0, 0}},
		// A Fast DDS-dialect Trigger request: the message alone.
		{"plain Trigger request", []byte{0, 1, 0, 0, 0, 0, 0, 0}},
		{"header cut short", []byte{0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{"XCDR2 encapsulation", append([]byte{0, 7, 0, 0}, make([]byte, 16)...)},
	} {
		if _, _, err := ParseCycloneFrame(tc.payload); !errors.Is(err, ErrFrame) {
			t.Errorf("%s: err %v, want ErrFrame", tc.name, err)
		}
	}
}

func TestSampleIdentityIsSentUnderBothIDsAndReadFromEither(t *testing.T) {
	id := SampleIdentity{Writer: wire.GUID{Prefix: wire.GUIDPrefix{1, 0xab, 3}, Entity: 0x000104c7}, SN: 0x1_00000002}
	pl := id.InlineQoS()
	if len(pl) != 2 || pl[0].ID != 0x0083 || pl[1].ID != 0x800f || !bytes.Equal(pl[0].Value, pl[1].Value) {
		t.Fatalf("InlineQoS = %v", pl)
	}
	want := []byte{1, 0xab, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0xc7, 1, 0, 0, 0, 2, 0, 0, 0}
	if !bytes.Equal(pl[0].Value, want) {
		t.Fatalf("value % x, want % x", pl[0].Value, want)
	}
	be := append(append([]byte{}, want[:16]...), 0, 0, 0, 1, 0, 0, 0, 2)
	for _, tc := range []struct {
		name   string
		s      rtps.Sample
		sender wire.VendorID
		ok     bool
	}{
		{"both ids", rtps.Sample{InlineQoS: pl}, wire.VendorEProsima, true},
		{"standard id from Cyclone", rtps.Sample{InlineQoS: pl[:1]}, wire.VendorCyclone, true},
		{"0x800f from Fast DDS 2.9", rtps.Sample{InlineQoS: pl[1:]}, wire.VendorEProsima, true},
		{"0x800f from us", rtps.Sample{InlineQoS: pl[1:]}, rtps.VendorID, true},
		{"0x800f from RTI means something else", rtps.Sample{InlineQoS: pl[1:]}, wire.VendorRTI, false},
		{"big-endian submessage", rtps.Sample{InlineQoS: wire.ParameterList{{ID: 0x0083, Value: be}}, BigEndian: true}, wire.VendorCyclone, true},
		{"none", rtps.Sample{}, wire.VendorEProsima, false},
	} {
		got, ok, err := ParseSampleIdentity(tc.s, tc.sender)
		if err != nil || ok != tc.ok || (ok && got != id) {
			t.Errorf("%s: %+v %v %v", tc.name, got, ok, err)
		}
	}
	short := rtps.Sample{InlineQoS: wire.ParameterList{{ID: 0x0083, Value: want[:20]}}}
	if _, _, err := ParseSampleIdentity(short, wire.VendorEProsima); !errors.Is(err, ErrFrame) {
		t.Errorf("a 20-octet identity: %v, want ErrFrame", err)
	}
	unknown := SampleIdentity{SN: wire.SequenceNumberUnknown}.InlineQoS()[0].Value
	if got := binary.LittleEndian.Uint32(unknown[16:]); got != 0xffffffff {
		t.Errorf("SN unknown has high %#x, want -1 as DDS writes it", got)
	}
}

func TestDialectFollowsTheVendor(t *testing.T) {
	for _, tc := range []struct {
		v    wire.VendorID
		want Dialect
	}{{wire.VendorCyclone, Cyclone}, {wire.VendorEProsima, FastDDS}, {rtps.VendorID, FastDDS}, {wire.VendorRTI, FastDDS}} {
		if got := DialectOf(tc.v); got != tc.want {
			t.Errorf("DialectOf(%v) = %v, want %v", tc.v, got, tc.want)
		}
		if got := Cyclone.resolve(tc.v); got != Cyclone {
			t.Errorf("a forced dialect changed to %v", got)
		}
	}
}
