package rtps

import (
	"context"
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

func waitEndpoints(t *testing.T, p *Participant, what string, cond func([]EndpointData) bool) []EndpointData {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := p.WaitEndpoints(ctx, cond)
	if err != nil {
		t.Fatalf("%s: %v (known: %+v)", what, err, got)
	}
	return got
}

func hasEndpoint(g wire.GUID) func([]EndpointData) bool {
	return func(es []EndpointData) bool {
		for _, e := range es {
			if e.GUID == g {
				return true
			}
		}
		return false
	}
}

func TestEndpointsAreAnnouncedLearnedMatchedAndWithdrawn(t *testing.T) {
	a, b := newParticipant(t, Config{Domain: 13}), newParticipant(t, Config{Domain: 13})
	reliable := QoS{Reliability: Reliable, Durability: TransientLocal, History: KeepLast, Depth: 1}
	w, err := a.AddEndpoint(EndpointData{Writer: true, Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", QoS: reliable, UserData: []byte("typehash=x;")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.AddEndpoint(EndpointData{Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", QoS: QoS{Reliability: BestEffort, History: KeepLast, Depth: 10}})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := b.AddEndpoint(EndpointData{Topic: "rt/chatter", Type: "other::Type_"})
	got := waitEndpoints(t, b, "b learns a's writer", hasEndpoint(w))
	if e := got[0]; !e.Writer || e.Topic != "rt/chatter" || e.QoS != reliable || e.Vendor != VendorID || string(e.UserData) != "typehash=x;" || len(e.Unicast) != 1 {
		t.Fatalf("b sees %+v", e)
	}
	waitEndpoints(t, a, "a learns b's readers", func(es []EndpointData) bool { return hasEndpoint(r)(es) && hasEndpoint(other)(es) })
	if m, _ := a.Matched(w); len(m) != 1 || m[0].GUID != r {
		t.Fatalf("a's writer matches %+v, want only %v", m, r)
	}
	if m, _ := b.Matched(r); len(m) != 1 || m[0].GUID != w {
		t.Fatalf("b's reader matches %+v", m)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !a.Acknowledged(b.GUID().Prefix) || !b.Acknowledged(a.GUID().Prefix) {
		if time.Now().After(deadline) {
			t.Fatal("announcements never acknowledged")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := a.RemoveEndpoint(w); err != nil {
		t.Fatal(err)
	}
	waitEndpoints(t, b, "b forgets a's writer", func(es []EndpointData) bool { return !hasEndpoint(w)(es) })
}

func TestLateParticipantLearnsEarlierEndpoints(t *testing.T) {
	a := newParticipant(t, Config{Domain: 14})
	var gs []wire.GUID
	for i := range 40 { // more than one datagram's worth
		g, err := a.AddEndpoint(EndpointData{Writer: i%2 == 0, Topic: "rt/t" + string(rune('a'+i%26)), Type: "T"})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	a.RemoveEndpoint(gs[0])
	b := newParticipant(t, Config{Domain: 14})
	waitEndpoints(t, b, "b learns all of a's endpoints", func(es []EndpointData) bool { return len(es) == 39 })
	if hasEndpoint(gs[0])(b.Endpoints()) {
		t.Fatal("withdrawn endpoint learned")
	}
}

func TestQoSCompatibility(t *testing.T) {
	for _, c := range []struct {
		w, r QoS
		want bool
	}{
		{QoS{Reliability: Reliable}, QoS{Reliability: BestEffort}, true},
		{QoS{Reliability: BestEffort}, QoS{Reliability: Reliable}, false},
		{QoS{Reliability: Reliable, Durability: TransientLocal}, QoS{Reliability: Reliable, Durability: Volatile}, true},
		{QoS{Reliability: Reliable, Durability: Volatile}, QoS{Reliability: Reliable, Durability: TransientLocal}, false},
	} {
		if got := Compatible(c.w, c.r); got != c.want {
			t.Errorf("writer %+v reader %+v: %v", c.w, c.r, got)
		}
	}
}

func TestEndpointDataKeepsUnknownParameters(t *testing.T) {
	le := binary.LittleEndian
	in := EndpointData{GUID: wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x103}, Writer: true, Topic: "t", Type: "T",
		QoS: defaultQoS(true), Vendor: wire.VendorEProsima,
		Extra: wire.ParameterList{{ID: wire.PIDDataRepresentation, Value: []byte{1, 0, 0, 0, 0, 0, 0, 0}}, {ID: 0x800f, Value: []byte{1, 2, 3, 4}}}}
	pl, _, err := wire.UnmarshalParameterList(mustAppend(t, in.ParameterList(le)), le)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseEndpointData(pl, le, true, wire.VendorUnknown)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("got %+v\nwant %+v", got, in)
	}
	if _, err := ParseEndpointData(pl, le, false, 0); err == nil {
		t.Fatal("a writer's GUID accepted from the subscriptions announcer")
	}
}

func mustAppend(t *testing.T, pl wire.ParameterList) []byte {
	t.Helper()
	b, err := pl.AppendTo(nil, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzSEDPPayload: any serialized payload parses as endpoint data
// without panic, for a writer or a reader.
func FuzzSEDPPayload(f *testing.F) {
	e := EndpointData{GUID: wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x107}, Topic: "rt/chatter", Type: "T", QoS: defaultQoS(false), UserData: []byte("x")}
	b, err := plPayload(e.ParameterList(binary.LittleEndian))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, false)
	f.Fuzz(func(t *testing.T, b []byte, writer bool) {
		pl, o, err := payloadParameterList(b)
		if err != nil {
			return
		}
		e, err := ParseEndpointData(pl, o, writer, 0)
		if err != nil {
			return
		}
		enc, err := e.ParameterList(o).AppendTo(nil, o)
		if err != nil {
			return // an Extra value too long to re-encode after padding
		}
		pl2, _, err := wire.UnmarshalParameterList(enc, o)
		if err != nil {
			t.Fatal(err)
		}
		e2, err := ParseEndpointData(pl2, o, writer, 0)
		if err != nil || e2.GUID != e.GUID || e2.Topic != e.Topic || e2.QoS != e.QoS {
			t.Fatalf("re-parse differs: %v\n%+v\n%+v", err, e, e2)
		}
	})
}

func TestCycloneSEDPPublicationParses(t *testing.T) {
	m := readGolden(t, "cyclone-sedp-publication.bin")
	var got *EndpointData
	for _, s := range m.Submessages {
		d, ok := s.(*wire.Data)
		if !ok || d.WriterID != wire.EntityIDSEDPPublicationsWriter {
			continue
		}
		pl, o, err := payloadParameterList(d.Payload)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ParseEndpointData(pl, o, true, m.Header.Vendor)
		if err != nil {
			t.Fatalf("sn %d: %v", d.WriterSN, err)
		}
		if e.Topic == "DDSPerfRDataKS" {
			got = &e
		}
	}
	if got == nil {
		t.Fatal("no publication of DDSPerfRDataKS in the capture")
	}
	if got.Type != "KeyedSeq" || !got.Keyed || got.GUID.Prefix != m.Header.Prefix || got.Vendor != wire.VendorCyclone ||
		got.QoS.Reliability != Reliable || got.QoS.Durability != Volatile || got.QoS.History != KeepAll {
		t.Fatalf("read as %+v", *got)
	}
	if _, ok := got.Extra.Get(wire.PIDDataRepresentation); !ok {
		t.Error("data representation not kept in Extra")
	}
	if _, ok := got.Extra.GetVendor(0x800c, wire.VendorCyclone, got.Vendor); !ok {
		t.Error("Cyclone's vendor-specific 0x800c not kept for Cyclone")
	}
	if _, ok := got.Extra.GetVendor(0x800c, wire.VendorEProsima, got.Vendor); ok {
		t.Error("Cyclone's 0x800c read as eProsima's")
	}
}
