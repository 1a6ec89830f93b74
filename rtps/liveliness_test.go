package rtps

import (
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// TestLivelinessAssertionRenewsTheLease: a remote participant's own
// liveliness assertion starts its lease again; one naming another
// participant, or a repeat of one already taken, does not.
func TestLivelinessAssertionRenewsTheLease(t *testing.T) {
	p := newParticipant(t, Config{Domain: 48})
	peer, other := wire.GUIDPrefix{1, 2, 3}, wire.GUIDPrefix{9}
	old := time.Now().Add(time.Second)
	tests := []struct {
		name    string
		sn      wire.SequenceNumber
		about   wire.GUIDPrefix
		renewed bool
	}{
		{"another participant's", 1, other, false},
		{"its own", 2, peer, true},
		{"a repeat", 2, peer, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.mu.Lock()
			p.remotes[peer] = &remote{data: ParticipantData{Prefix: peer, LeaseDuration: time.Minute}, deadline: old}
			p.mu.Unlock()
			p.handleParticipantMessage(peer, &wire.Data{WriterID: wire.EntityIDParticipantMessageWriter, WriterSN: tt.sn,
				Payload: participantMessage(tt.about, automaticLiveliness)})
			p.mu.Lock()
			renewed := p.remotes[peer].deadline.After(old.Add(30 * time.Second))
			p.mu.Unlock()
			if renewed != tt.renewed {
				t.Fatalf("lease renewed: %v, want %v", renewed, tt.renewed)
			}
		})
	}
}
