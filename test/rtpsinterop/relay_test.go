package rtpsinterop

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/udprelay"
)

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
	}{{vs[0], true}, {vs[0], false}, {vs[1], true}, {vs[1], false}, {vs[2], true}, {vs[2], false}} {
		dir := map[bool]string{true: "ours to ", false: "to ours from "}[c.ourWrite] + c.v.name
		t.Run(dir, func(t *testing.T) {
			ddspeers.SkipMissing(t, c.v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			domain := 60 + i
			relay := udprelay.New(t, 0.1, uint64(i+1))
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
				toPeer = append(toPeer, relay.Proxy(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)))
			}
			p, err := rtps.NewParticipant(ctx, rtps.Config{Domain: domain, PeerAddrs: toPeer, AnnouncePeriod: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			ours, _ := p.Data().MetatrafficUnicast[0].AddrPort()
			toOurs := relay.Proxy(ours)
			var env []string
			if c.v.id == wire.VendorCyclone {
				env = []string{"CYCLONEDDS_URI=<Domain><General><AllowMulticast>false</AllowMulticast></General>" +
					"<Discovery><ParticipantIndex>5</ParticipantIndex><Peers><Peer address=\"" + toOurs.String() + "\"/></Peers></Discovery></Domain>"}
			} else {
				relay.GroupTo(ctx, domain, ours)
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
					fw, dr, _, _ := relay.Counts()
					t.Fatalf("our reader never matched through the relay: %v (ours knows %d participants and %d remote endpoints; the relay forwarded %d datagrams and dropped %d): %s\nthe relay's last datagrams (ours is %v, its proxy %v):\n%s",
						err, len(p.Participants()), len(p.Endpoints()), fw, dr, pub.Stderr(), p.GUID().Prefix, toOurs, relay.History())
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
					if ap, ok := l.AddrPort(); !ok || !relay.IsProxy(ap) {
						t.Fatalf("ours knows the peer at %v, not through the relay", l)
					}
				}
			}
			fw, dr, drData, _ := relay.Counts()
			t.Logf("relay: %d datagrams forwarded, %d dropped (%d of them with user data)", fw, dr, drData)
			if drData == 0 {
				t.Fatal("the relay dropped no user data")
			}
		})
	}
}
