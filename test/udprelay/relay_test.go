package udprelay

import (
	"slices"
	"testing"

	"github.com/actbridge/actbridge/rtps/wire"
)

// TestWithoutUserHeartbeats: the relay takes a user writer's HEARTBEAT out
// of a datagram and keeps the rest, the built-in writers' heartbeats
// included; a datagram left with INFO submessages only is lost whole.
func TestWithoutUserHeartbeats(t *testing.T) {
	user, sedp := wire.EntityID(0x103), wire.EntityIDSEDPPublicationsWriter
	dst := &wire.InfoDst{Prefix: wire.GUIDPrefix{1}}
	tests := []struct {
		name string
		subs []wire.Submessage
		left []wire.EntityID // the heartbeats left, nil: the datagram is lost
	}{
		{"with SEDP heartbeats", []wire.Submessage{dst, &wire.Heartbeat{WriterID: sedp, First: 1, Last: 1}, &wire.Heartbeat{WriterID: user, First: 1}}, []wire.EntityID{sedp}},
		{"alone", []wire.Submessage{dst, &wire.Heartbeat{WriterID: user, First: 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := wire.Message{Header: wire.Header{Version: wire.Version(), Prefix: wire.GUIDPrefix{2}}, Submessages: tt.subs}
			b, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			out := without(b, isUserHeartbeat)
			if tt.left == nil {
				if out != nil {
					t.Fatalf("a datagram of %d octets is left, want none", len(out))
				}
				return
			}
			var got wire.Message
			if err := got.Unmarshal(out); err != nil {
				t.Fatal(err)
			}
			var left []wire.EntityID
			for _, s := range got.Submessages {
				if h, ok := s.(*wire.Heartbeat); ok {
					left = append(left, h.WriterID)
				}
			}
			if !slices.Equal(left, tt.left) {
				t.Fatalf("heartbeats of %v left, want %v", left, tt.left)
			}
		})
	}
}
