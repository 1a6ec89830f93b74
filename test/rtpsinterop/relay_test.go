package rtpsinterop

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// lossyRelay stands between two participants on loopback and loses a
// fraction of the datagrams it forwards, both ways, discovery included:
// the kernel here has no netem and no packet filter. Every unicast
// locator a participant announces (SPDP and SEDP) is replaced by a proxy
// socket of the relay that forwards to it, and multicast locators are
// removed, so that each side reaches the other only through the relay.
type lossyRelay struct {
	t    testing.TB
	loss float64

	mu      sync.Mutex
	rng     *rand.Rand
	proxies map[netip.AddrPort]*net.UDPConn // original locator → its proxy
	closers []func() error                  // multicast listeners
	closed  bool
	wg      sync.WaitGroup

	forwarded, dropped, droppedData, forwardedData int
	start                                          time.Time
	log                                            []string // the last relayLogSize datagrams, described
}

// relayLogSize bounds the relay's log of datagrams, printed when a run
// fails in discovery.
const relayLogSize = 600

// newLossyRelay starts a relay that loses the fraction loss of datagrams
// (seeded, so a run can be replayed); it stops with the test.
func newLossyRelay(t testing.TB, loss float64, seed uint64) *lossyRelay {
	r := &lossyRelay{t: t, loss: loss, rng: rand.New(rand.NewPCG(seed, 11)), proxies: map[netip.AddrPort]*net.UDPConn{}, start: time.Now()}
	t.Cleanup(r.close)
	return r
}

// proxy returns the relay's address that forwards to original, opening
// it on first use.
func (r *lossyRelay) proxy(original netip.AddrPort) netip.AddrPort {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.proxies[original]; ok {
		return c.LocalAddr().(*net.UDPAddr).AddrPort()
	}
	if r.closed {
		return original
	}
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		r.t.Errorf("relay: %v", err)
		return original
	}
	_ = c.SetReadBuffer(4 << 20)
	r.proxies[original] = c
	r.wg.Add(1)
	go r.forward(original.String(), func(b []byte) (int, error) { n, _, err := c.ReadFromUDPAddrPort(b); return n, err },
		func(b []byte) { _, _ = c.WriteToUDPAddrPort(b, original) })
	return c.LocalAddr().(*net.UDPAddr).AddrPort()
}

// groupTo forwards the SPDP multicast of domain (a peer that announces
// itself only there, as Fast DDS does) to original, losing and
// rewriting as the proxies do.
func (r *lossyRelay) groupTo(ctx context.Context, domain int, original netip.AddrPort) {
	port, err := udp.DefaultPorts().MetatrafficMulticast(domain)
	if err != nil {
		r.t.Fatal(err)
	}
	c, err := udp.ListenMulticast(ctx, netip.MustParseAddr("127.0.0.1"), udp.SPDPGroup(), port)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.closers = append(r.closers, c.Close)
	r.mu.Unlock()
	r.wg.Add(1)
	go r.forward("group→"+original.String(), func(b []byte) (int, error) { n, _, err := c.ReadFrom(b); return n, err },
		func(b []byte) { _ = c.WriteTo(b, original) })
}

// forward relays what read returns with write until the relay closes;
// to names the destination in the log.
func (r *lossyRelay) forward(to string, read func([]byte) (int, error), write func([]byte)) {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, err := read(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		// The first datagram with user data is always lost, besides the
		// random loss: a writer that packs many samples a datagram sends
		// so few (35 to 52 datagrams in all, seen) that the random loss
		// missed every one in about one run of six.
		// So are a user writer's heartbeats until its first user data
		// passed: a CycloneDDS reader then first hears of the writer from
		// a heartbeat that came with later samples (see
		// TestFirstHeartbeatAfterALostMatchHeartbeatSkipsNothing in rtps).
		// Only those submessages are lost, not their datagram: CycloneDDS
		// sends its SEDP heartbeats in the same datagrams as its user
		// writer's, and losing them all until user data passed, which
		// needs the match they announce, held discovery up for good
		// (about 1 run in 100, seen in the relay's log).
		data, hb := carriesUserData(buf[:n])
		b := buf[:n]
		r.mu.Lock()
		drop := r.rng.Float64() < r.loss || data && r.droppedData == 0
		stripped := !drop && hb && !data && r.forwardedData == 0
		if stripped {
			b = withoutUserHeartbeats(b)
			drop = b == nil
		}
		switch {
		case drop && data:
			r.dropped++
			r.droppedData++
		case drop:
			r.dropped++
		default:
			r.forwarded++
			if data {
				r.forwardedData++
			}
		}
		if len(r.log) == relayLogSize {
			r.log = slices.Delete(r.log, 0, relayLogSize/2)
		}
		what := map[bool]string{true: "DROPPED "}[drop]
		if stripped && !drop {
			what = "STRIPPED OF ITS USER HEARTBEATS "
		}
		r.log = append(r.log, fmt.Sprintf("%8.3fs %s %s%s", time.Since(r.start).Seconds(), to, what, describe(buf[:n])))
		r.mu.Unlock()
		if drop {
			continue
		}
		write(r.rewrite(b))
	}
}

// withoutUserHeartbeats is datagram b without the HEARTBEATs of user
// writers, or nil when nothing but INFO submessages would be left.
func withoutUserHeartbeats(b []byte) []byte {
	var m wire.Message
	if err := m.Unmarshal(b); err != nil {
		return b
	}
	left := false
	m.Submessages = slices.DeleteFunc(m.Submessages, func(s wire.Submessage) bool {
		switch s := s.(type) {
		case *wire.Heartbeat:
			if !s.WriterID.IsBuiltin() {
				return true
			}
			left = true
		case *wire.InfoTS, *wire.InfoDst, *wire.InfoSrc:
		default:
			left = true
		}
		return false
	})
	if !left {
		return nil
	}
	nb, err := m.Marshal()
	if err != nil {
		return b
	}
	return nb
}

// carriesUserData reports whether a datagram holds a user writer's DATA
// or DATA_FRAG, and whether it holds a user writer's HEARTBEAT.
func carriesUserData(b []byte) (data, hb bool) {
	var m wire.Message
	_ = m.Unmarshal(b)
	for _, s := range m.Submessages {
		switch s := s.(type) {
		case *wire.Data:
			data = data || !s.WriterID.IsBuiltin()
		case *wire.DataFrag:
			data = data || !s.WriterID.IsBuiltin()
		case *wire.Heartbeat:
			hb = hb || !s.WriterID.IsBuiltin()
		}
	}
	return data, hb
}

// describe names a datagram's sender and its submessages, with the
// writer and sequence numbers of each, for the relay's log.
func describe(b []byte) string {
	var m wire.Message
	if err := m.Unmarshal(b); err != nil {
		return fmt.Sprintf("unparsable (%v)", err)
	}
	out := fmt.Sprintf("from %x:", m.Header.Prefix[:])
	for _, s := range m.Submessages {
		switch s := s.(type) {
		case *wire.Data:
			out += fmt.Sprintf(" DATA(%v #%d)", s.WriterID, s.WriterSN)
		case *wire.DataFrag:
			out += fmt.Sprintf(" DATA_FRAG(%v #%d)", s.WriterID, s.WriterSN)
		case *wire.Heartbeat:
			out += fmt.Sprintf(" HB(%v %d..%d)", s.WriterID, s.First, s.Last)
		case *wire.AckNack:
			out += fmt.Sprintf(" ACKNACK(%v→%v base %d)", s.ReaderID, s.WriterID, s.State.Base)
		case *wire.Gap:
			out += fmt.Sprintf(" GAP(%v from %d)", s.WriterID, s.Start)
		case *wire.InfoDst:
			out += fmt.Sprintf(" DST(%x)", s.Prefix[:4])
		default:
			out += fmt.Sprintf(" %T", s)
		}
	}
	return out
}

// history returns the relay's log of the last datagrams, one a line.
func (r *lossyRelay) history() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.log, "\n")
}

// rewrite replaces the locators in the discovery data (SPDP, SEDP) of a
// datagram by the relay's proxies; anything else passes as it came.
func (r *lossyRelay) rewrite(b []byte) []byte {
	var m wire.Message
	if err := m.Unmarshal(b); err != nil {
		return b
	}
	changed := false
	for _, s := range m.Submessages {
		d, ok := s.(*wire.Data)
		if !ok || !d.WriterID.IsBuiltin() || d.WriterID == wire.EntityIDParticipantMessageWriter || len(d.Payload) < 4 {
			continue
		}
		var o wire.ByteOrder = binary.LittleEndian
		switch binary.BigEndian.Uint16(d.Payload) {
		case 0x0002: // PL_CDR_BE
			o = binary.BigEndian
		case 0x0003: // PL_CDR_LE
		default:
			continue
		}
		pl, _, err := wire.UnmarshalParameterList(d.Payload[4:], o)
		if err != nil {
			continue
		}
		var out wire.ParameterList
		for _, p := range pl {
			switch p.ID {
			case wire.PIDMulticastLocator, wire.PIDMetatrafficMulticastLocator, wire.PIDDefaultMulticastLocator:
				continue
			case wire.PIDUnicastLocator, wire.PIDMetatrafficUnicastLocator, wire.PIDDefaultUnicastLocator:
				l, err := wire.UnmarshalLocator(p.Value, o)
				if ap, ok := l.AddrPort(); err == nil && ok {
					px := r.proxy(ap)
					p.Value = wire.LocatorValue(wire.UDPv4Locator(px.Addr(), px.Port()), o)
				}
			}
			out = append(out, p)
		}
		payload, err := out.AppendTo(append([]byte(nil), d.Payload[:4]...), o)
		if err != nil {
			continue
		}
		d.Payload, changed = payload, true
	}
	if !changed {
		return b
	}
	nb, err := m.Marshal()
	if err != nil {
		return b
	}
	return nb
}

// counts returns the datagrams forwarded and dropped so far, and those
// dropped that carried user data.
func (r *lossyRelay) counts() (forwarded, dropped, droppedData int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.forwarded, r.dropped, r.droppedData
}

// isProxy reports whether ap is one of the relay's sockets.
func (r *lossyRelay) isProxy(ap netip.AddrPort) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.proxies {
		if c.LocalAddr().(*net.UDPAddr).AddrPort() == ap {
			return true
		}
	}
	return false
}

func (r *lossyRelay) close() {
	r.mu.Lock()
	r.closed = true
	for _, c := range r.proxies {
		c.Close()
	}
	for _, c := range r.closers {
		c()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// TestReliableSamplesSurviveALossyRelay: between our participant and a
// Fast DDS or CycloneDDS peer, a relay loses a tenth of all datagrams
// both ways, discovery included. Both directions, 150 JointStates each
// (every tenth of 10 KB, in DATA_FRAGs): every sample arrives, in order,
// exactly once, and ours knows the peer only through the relay.
func TestReliableSamplesSurviveALossyRelay(t *testing.T) {
	ns, js, vs := setup(t)
	rng := rand.New(rand.NewPCG(5, 7))
	sent := make([]*cdr.Message, 150)
	var text string
	for i := range sent {
		sent[i] = ddspeers.RandomMessage(js, rng, 3)
		if i%10 == 9 {
			sent[i].Fields[js.FieldIndex("position")] = make([]float64, 10<<10/8)
		}
		l, err := ddspeers.SampleLine(sent[i])
		if err != nil {
			t.Fatal(err)
		}
		text += l
	}
	for i, c := range []struct {
		v        vendor
		ourWrite bool
	}{{vs[0], true}, {vs[0], false}, {vs[1], true}, {vs[1], false}} {
		dir := map[bool]string{true: "ours to ", false: "to ours from "}[c.ourWrite] + c.v.name
		t.Run(dir, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			domain := 60 + i
			relay := newLossyRelay(t, 0.1, uint64(i+1))
			// Ours sends its SPDP only to relay proxies of the peer's
			// discovery ports: Cyclone is told to take participant index 5
			// (no multicast, the relay as its one peer); Fast DDS takes the
			// first free of 0..3 and announces itself by multicast, which
			// only the relay hears (ours has multicast off).
			indices := []int{0, 1, 2, 3}
			if c.v.id == wire.VendorCyclone {
				indices = []int{5}
			}
			var toPeer []netip.AddrPort
			for _, idx := range indices {
				port, err := udp.DefaultPorts().MetatrafficUnicast(domain, idx)
				if err != nil {
					t.Fatal(err)
				}
				toPeer = append(toPeer, relay.proxy(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)))
			}
			p, err := rtps.NewParticipant(ctx, rtps.Config{Domain: domain, PeerAddrs: toPeer, AnnouncePeriod: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			ours, _ := p.Data().MetatrafficUnicast[0].AddrPort()
			toOurs := relay.proxy(ours)
			var env []string
			if c.v.id == wire.VendorCyclone {
				env = []string{"CYCLONEDDS_URI=<Domain><General><AllowMulticast>false</AllowMulticast></General>" +
					"<Discovery><ParticipantIndex>5</ParticipantIndex><Peers><Peer address=\"" + toOurs.String() + "\"/></Peers></Discovery></Domain>"}
			} else {
				relay.groupTo(ctx, domain, ours)
			}
			topic := rtps.EndpointData{Topic: "rt/lossy", Type: ddsType, QoS: rtps.QoS{Reliability: rtps.Reliable, History: rtps.KeepAll}}
			args := append([]string{"--keep-all"}, peerArgs(domain, "rt/lossy", rtps.Reliable)...)
			if c.ourWrite {
				sub := ddspeers.StartPeerEnv(t, ns, c.v.bin, env, nil, append([]string{"sub", "--count", fmt.Sprint(len(sent))}, args...)...)
				w, err := p.NewWriter(topic)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.WaitMatched(ctx, 1); err != nil {
					t.Fatalf("never matched through the relay: %v: %s", err, sub.Stderr())
				}
				if err := sub.WaitStderr(ctx, "matched"); err != nil {
					t.Fatalf("the peer's reader never learned our writer: %v: %s", err, sub.Stderr())
				}
				for _, m := range sent {
					b, err := cdr.Encode(m, cdr.LittleEndian)
					if err != nil {
						t.Fatal(err)
					}
					if err := w.WriteContext(ctx, b, nil); err != nil {
						t.Fatal(err)
					}
				}
				got := waitLines(ctx, t, sub, func(got [][]byte) bool { return len(got) >= len(sent) })
				if len(got) != len(sent) {
					t.Fatalf("the peer took %d samples, sent %d", len(got), len(sent))
				}
				for j, b := range got {
					if k := decodeAs(t, js, b, sent); k != j {
						t.Fatalf("sample %d arrived as sample %d", k, j)
					}
				}
			} else {
				r, err := p.NewReader(topic)
				if err != nil {
					t.Fatal(err)
				}
				in, feed := io.Pipe()
				pub := ddspeers.StartPeerEnv(t, ns, c.v.bin, env, in, append([]string{"pub", "--linger", "30"}, args...)...)
				t.Cleanup(func() { feed.Close() })
				if _, err := p.WaitEndpoints(ctx, func([]rtps.EndpointData) bool {
					m, _ := p.Matched(r.GUID())
					return len(m) > 0
				}); err != nil {
					fw, dr, _ := relay.counts()
					t.Fatalf("our reader never matched through the relay: %v (ours knows %d participants and %d remote endpoints; the relay forwarded %d datagrams and dropped %d): %s\nthe relay's last datagrams (ours is %v, its proxy %v):\n%s",
						err, len(p.Participants()), len(p.Endpoints()), fw, dr, pub.Stderr(), p.GUID().Prefix, toOurs, relay.history())
				}
				go func() {
					io.WriteString(feed, text)
					feed.Close()
				}()
				for n := range sent {
					s, err := r.Take(ctx)
					if err != nil {
						t.Fatalf("after %d samples: %v: %s", n, err, pub.Stderr())
					}
					if k := decodeAs(t, js, s.Payload, sent); k != n {
						t.Fatalf("sample %d arrived as sample %d", k, n)
					}
				}
				short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancelShort()
				if s, err := r.Take(short); err == nil {
					t.Fatalf("a sample arrived twice (sample %d)", decodeAs(t, js, s.Payload, sent))
				}
			}
			// Ours knows Cyclone only by the relay's proxies.
			for _, d := range p.Participants() {
				for _, l := range append(append([]wire.Locator{}, d.MetatrafficUnicast...), d.DefaultUnicast...) {
					if ap, ok := l.AddrPort(); !ok || !relay.isProxy(ap) {
						t.Fatalf("ours knows the peer at %v, not through the relay", l)
					}
				}
			}
			fw, dr, drData := relay.counts()
			t.Logf("relay: %d datagrams forwarded, %d dropped (%d of them with user data)", fw, dr, drData)
			if drData == 0 {
				t.Fatal("the relay dropped no user data")
			}
		})
	}
}

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
			out := withoutUserHeartbeats(b)
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
