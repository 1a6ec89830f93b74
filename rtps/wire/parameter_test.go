package wire

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func TestParameterListPadsAndRoundTrips(t *testing.T) {
	le := binary.LittleEndian
	pl := ParameterList{
		{ID: PIDTopicName, Value: AppendString(nil, le, "rt/chatter")}, // 15 octets → padded to 16
		{ID: 0x7123, Value: []byte{1, 2, 3, 4}},                        // unknown: kept
		{ID: PIDVendorMask | 0x0f, Value: []byte{5, 6, 7, 8}},
	}
	b, err := pl.AppendTo(nil, le)
	if err != nil {
		t.Fatal(err)
	}
	if len(b)%4 != 0 || binary.LittleEndian.Uint16(b[2:]) != 16 {
		t.Fatalf("not padded to 4: % x", b)
	}
	got, n, err := UnmarshalParameterList(append(b, 0xff, 0xff), le)
	if err != nil || n != len(b) {
		t.Fatalf("n %d err %v", n, err)
	}
	name, _ := got.Get(PIDTopicName)
	if s, err := ParseString(name, le); err != nil || s != "rt/chatter" {
		t.Fatalf("topic %q %v", s, err)
	}
	if v, ok := got.Get(0x7123); !ok || !reflect.DeepEqual(v, []byte{1, 2, 3, 4}) {
		t.Fatal("unknown pid not preserved")
	}
}

func TestVendorSpecificParameterOnlyForItsVendor(t *testing.T) {
	pl := ParameterList{{ID: 0x800f, Value: []byte{1, 2, 3, 4}}}
	if _, ok := pl.Get(0x800f); ok {
		t.Error("vendor-specific pid found without naming a vendor")
	}
	if _, ok := pl.GetVendor(0x800f, VendorEProsima, VendorCyclone); ok {
		t.Error("eProsima pid interpreted from a Cyclone sender")
	}
	if _, ok := pl.GetVendor(0x800f, VendorEProsima, VendorEProsima); !ok {
		t.Error("eProsima pid not found from an eProsima sender")
	}
}

func TestParameterListRefusesBadLengths(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"no sentinel", []byte{0x05, 0, 4, 0, 1, 2, 3, 4}, ErrNoSentinel},
		{"unaligned length", []byte{0x05, 0, 3, 0, 1, 2, 3, 0, 1, 0, 0, 0}, ErrParameterLength},
		{"length past the end", []byte{0x05, 0, 8, 0, 1, 2, 3, 4}, ErrParameterLength},
	} {
		if _, _, err := UnmarshalParameterList(c.b, le); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v want %v", c.name, err, c.want)
		}
	}
	pl, _, err := UnmarshalParameterList([]byte{0, 0, 4, 0, 9, 9, 9, 9, 1, 0, 0, 0}, le)
	if err != nil || len(pl) != 0 {
		t.Errorf("PID_PAD not dropped: %v %v", pl, err)
	}
}

func TestStringAndOctetValuesAreBounded(t *testing.T) {
	le := binary.LittleEndian
	if _, err := ParseString([]byte{0xff, 0xff, 0xff, 0x7f, 'a', 0}, le); !errors.Is(err, ErrValue) {
		t.Errorf("huge string length: %v", err)
	}
	if _, err := ParseString([]byte{2, 0, 0, 0, 'a', 'b'}, le); !errors.Is(err, ErrValue) {
		t.Errorf("string without NUL: %v", err)
	}
	if _, err := ParseOctets([]byte{9, 0, 0, 0, 1}, le); !errors.Is(err, ErrValue) {
		t.Errorf("octets past the end: %v", err)
	}
}
