package rtps

import (
	"encoding/binary"
	"net/netip"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// The golden files are datagrams CycloneDDS 0.10.2 (Debian's ddsperf)
// sent, byte for byte: captured inside a test-made namespace by a UDP
// socket bound to 0.0.0.0:7400 (SO_REUSEADDR/SO_REUSEPORT) that joined
// 239.255.0.1 on lo, while `ddsperf -D 2 sub` ran and exited (its SPDP
// announcement, then its dispose). cyclone-sedp-publication.bin comes
// from TestCaptureCycloneSEDP (capture_test.go), which says how to run it
// again.
func readGolden(t *testing.T, name string) *wire.Message {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m wire.Message
	if err := m.Unmarshal(b); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out, err := m.Marshal()
	if err != nil || string(out) != string(b) {
		t.Fatalf("%s does not round-trip byte-exact: %v", name, err)
	}
	return &m
}

func TestCycloneSPDPAnnouncementParses(t *testing.T) {
	m := readGolden(t, "cyclone-spdp-alive.bin")
	if m.Header.Vendor != wire.VendorCyclone {
		t.Fatalf("vendor %v", m.Header.Vendor)
	}
	d := m.Submessages[1].(*wire.Data)
	if d.WriterID != wire.EntityIDSPDPWriter || d.Key || d.InlineQoS != nil {
		t.Fatalf("unexpected data submessage %+v", d)
	}
	pl, o, err := payloadParameterList(d.Payload)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseParticipantData(pl, o, m.Header.Vendor)
	if err != nil {
		t.Fatal(err)
	}
	loc := wire.UDPv4Locator(netip.MustParseAddr("127.0.0.1"), 47302)
	want := ParticipantData{
		Prefix: m.Header.Prefix, Version: wire.ProtocolVersion{Major: 2, Minor: 1}, Vendor: wire.VendorCyclone,
		Domain: 0, HasDomain: true, BuiltinEndpoints: 0xfc3f,
		MetatrafficUnicast:   []wire.Locator{loc},
		MetatrafficMulticast: []wire.Locator{wire.UDPv4Locator(netip.MustParseAddr("239.255.0.1"), 7400)},
		DefaultUnicast:       []wire.Locator{loc},
		DefaultMulticast:     []wire.Locator{wire.UDPv4Locator(netip.MustParseAddr("239.255.0.1"), 7401)},
		LeaseDuration:        10 * time.Second,
		UserData:             []byte("DDSPerf:1:27337:vm"),
		// Cyclone's property list: our property parser's golden sample.
		Properties: []Property{{"__ProcessName", "ddsperf"}, {"__Pid", "27337"}, {"__Hostname", "vm"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// Cyclone's vendor-specific PIDs are there but not for a non-Cyclone reading.
	if _, ok := pl.GetVendor(0x8007, wire.VendorCyclone, m.Header.Vendor); !ok {
		t.Error("Cyclone's PID 0x8007 not found for Cyclone")
	}
	if _, ok := pl.GetVendor(0x8007, wire.VendorEProsima, m.Header.Vendor); ok {
		t.Error("PID 0x8007 read as eProsima's from a Cyclone sender")
	}
}

func TestCycloneSPDPDisposeNamesTheParticipant(t *testing.T) {
	m := readGolden(t, "cyclone-spdp-dispose.bin")
	d := m.Submessages[1].(*wire.Data)
	st, ok := d.InlineQoS.Get(wire.PIDStatusInfo)
	if !ok || st[3] != wire.StatusDisposed|wire.StatusUnregistered || !d.Key {
		t.Fatalf("not a dispose+unregister: %+v", d)
	}
	if got, ok := disposedKey(d, wire.PIDParticipantGUID); !ok || got.Prefix != m.Header.Prefix {
		t.Fatalf("goodbye names %v, want %v", got, m.Header.Prefix)
	}
}

func TestParticipantDataRoundTripsInBothByteOrders(t *testing.T) {
	in := ParticipantData{
		Prefix: wire.GUIDPrefix{1, 0xab, 3}, Version: wire.Version(), Vendor: VendorID,
		Domain: 7, HasDomain: true, BuiltinEndpoints: BuiltinParticipantAnnouncer | BuiltinParticipantDetector,
		MetatrafficUnicast: []wire.Locator{wire.UDPv4Locator(netip.MustParseAddr("127.0.0.1"), 9160)},
		LeaseDuration:      1500 * time.Millisecond, UserData: []byte("enclave=/;"),
	}
	for _, o := range []wire.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		b, err := in.ParameterList(o).AppendTo(nil, o)
		if err != nil {
			t.Fatal(err)
		}
		pl, _, err := wire.UnmarshalParameterList(b, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseParticipantData(pl, o, wire.VendorUnknown)
		if err != nil {
			t.Fatal(err)
		}
		// Duration fractions round to the nanosecond.
		if got.LeaseDuration-in.LeaseDuration > time.Microsecond || in.LeaseDuration-got.LeaseDuration > time.Microsecond {
			t.Fatalf("lease %v", got.LeaseDuration)
		}
		got.LeaseDuration = in.LeaseDuration
		if !reflect.DeepEqual(got, in) {
			t.Fatalf("%v: got %+v", o, got)
		}
	}
}

func TestParticipantDataWithoutGUIDIsRefused(t *testing.T) {
	pl := wire.ParameterList{{ID: wire.PIDProtocolVersion, Value: []byte{2, 4, 0, 0}}}
	if _, err := ParseParticipantData(pl, binary.LittleEndian, 0); err == nil {
		t.Fatal("accepted")
	}
}

// FuzzSPDPPayload: any serialized payload parses without panic, and
// participant data that parses encodes to a list that parses the same.
func FuzzSPDPPayload(f *testing.F) {
	for _, name := range []string{"cyclone-spdp-alive.bin", "cyclone-spdp-dispose.bin"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		var m wire.Message
		if err := m.Unmarshal(b); err == nil {
			f.Add(m.Submessages[1].(*wire.Data).Payload)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pl, o, err := payloadParameterList(b)
		if err != nil {
			return
		}
		d, err := ParseParticipantData(pl, o, 0)
		if err != nil {
			return
		}
		enc, err := d.ParameterList(o).AppendTo(nil, o)
		if err != nil {
			t.Fatal(err)
		}
		pl2, _, err := wire.UnmarshalParameterList(enc, o)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := ParseParticipantData(pl2, o, 0)
		if err != nil || d2.Prefix != d.Prefix || d2.Vendor != d.Vendor || string(d2.UserData) != string(d.UserData) {
			t.Fatalf("re-parse differs: %v %+v %+v", err, d, d2)
		}
	})
}
