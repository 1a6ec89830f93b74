package rtps

import (
	"context"
	"sync"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// Defaults of the pacing of best-effort fragments (Config.FragmentRate,
// Config.FragmentBurst). A reader that keeps the kernel's default socket
// buffer (Fast DDS: 208 KiB) dropped about a third of a 1 MB sample sent
// as one burst of DATA_FRAGs, and best effort never repairs.
const (
	defaultFragmentRate  = 128 << 20 // octets a second
	defaultFragmentBurst = 64 << 10  // octets at once
)

// pacer sends a best-effort writer's fragmented samples in bursts of at
// most burst octets of payload, spaced so that on average at most rate
// octets a second leave; one sample at a time, so that two writes do not
// interleave their fragments.
type pacer struct {
	rate, burst int

	mu   sync.Mutex
	next time.Time // when the next burst may leave
}

// send sends out, waiting between bursts; it stops early (and says so)
// when ctx ends, which only a caller's own deadline makes happen.
func (pc *pacer) send(ctx context.Context, p *Participant, out []outgoing) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, o := range out {
		for i := 0; i < len(o.subs); {
			n, j := 0, i
			for j < len(o.subs) && (j == i || n+payloadSize(o.subs[j]) <= pc.burst) {
				n += payloadSize(o.subs[j])
				j++
			}
			if wait := time.Until(pc.next); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				case <-t.C:
				}
			}
			p.send([]outgoing{{dst: o.dst, to: o.to, subs: o.subs[i:j]}})
			pc.next = later(pc.next, time.Now()).Add(time.Duration(float64(n) / float64(pc.rate) * float64(time.Second)))
			i = j
		}
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// payloadSize is the octets a submessage carries, about.
func payloadSize(s wire.Submessage) int {
	switch s := s.(type) {
	case *wire.DataFrag:
		return len(s.Payload) + 36
	case *wire.Data:
		return len(s.Payload) + 24
	}
	return 32
}
