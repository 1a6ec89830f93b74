package rtps

import (
	"encoding/binary"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// automaticLiveliness is ParticipantMessageData's kind of an automatic
// liveliness assertion (spec 9.6.2.1: AUTOMATIC_LIVELINESS_UPDATE).
var automaticLiveliness = [4]byte{0, 0, 0, 1}

// participantMessage is the serialized ParticipantMessageData (spec
// 9.6.2.1, CDR little endian) by which participant prefix asserts kind:
// the prefix, the kind's four octets and an empty data sequence.
func participantMessage(prefix wire.GUIDPrefix, kind [4]byte) []byte {
	b := []byte{0, 1, 0, 0}
	b = append(b, prefix[:]...)
	b = append(b, kind[:]...)
	return binary.LittleEndian.AppendUint32(b, 0)
}

// assertLiveliness writes our automatic liveliness assertion into the
// participant-message writer, keyed (prefix, kind) as the key hash peers
// read; transient-local, so a participant that matches later gets it.
// p.mu must be held.
func (p *Participant) assertLiveliness() {
	key := wire.GUID{Prefix: p.self.Prefix, Entity: wire.EntityID(binary.BigEndian.Uint32(automaticLiveliness[:]))}
	p.sedp.pmWriter.write(key, participantMessage(p.self.Prefix, automaticLiveliness), nil)
}

// handleParticipantMessage takes a remote participant's liveliness
// assertion: it is alive, so its lease starts again, as an SPDP
// announcement would make it.
func (p *Participant) handleParticipantMessage(src wire.GUIDPrefix, d *wire.Data) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.remotes[src]
	if !ok || !p.sedp.pmReader.onData(src, d.WriterSN) {
		return nil
	}
	if d.Payload != nil && !d.Key && len(d.Payload) >= 4+12 && [12]byte(d.Payload[4:16]) == src {
		r.deadline = time.Now().Add(min(r.data.LeaseDuration, 24*time.Hour))
	}
	return nil
}
