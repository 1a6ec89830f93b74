package ddspeers

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/rtps/wire"
)

// TestRTPSSnifferHelper is not a test: it is the process StartSniffer
// runs inside a namespace.
func TestRTPSSnifferHelper(t *testing.T) {
	if os.Getenv(SniffEnv) == "" {
		t.Skip("helper process for the wire tests")
	}
	if err := Sniff(os.Stdout); err != nil {
		t.Fatal(err)
	}
}

// sniffTriggerCall runs one Trigger call between bin's server and client,
// each announcing its node, in a new namespace watched by the sniffer,
// and returns the three once the call is over.
func sniffTriggerCall(ctx context.Context, t *testing.T, bin string) (sniff, cli, srv *Proc) {
	t.Helper()
	sniff, ns := startReady(ctx, t, func(ns string) *Proc { return StartSniffer(t, ns, "TestRTPSSnifferHelper") }, "ready")
	srv = StartTriggerServer(t, ns, bin, "/trigger", "--node", "server", "--count", "1")
	cli = StartTriggerClient(t, ns, bin, "/trigger", 1, "--node", "client", "--timeout", "20")
	if err := cli.Wait(ctx); err != nil {
		t.Fatalf("client: %v: %s", err, cli.Stderr())
	}
	if err := srv.Wait(ctx); err != nil {
		t.Fatalf("server: %v: %s", err, srv.Stderr())
	}
	time.Sleep(200 * time.Millisecond) // the sniffer prints what it read
	return sniff, cli, srv
}

// TestServiceDialectsOnTheWire watches one Trigger call per vendor: Fast
// DDS 2.9's client names its reply reader in PID 0x800f (not 0x0083) on
// the request, and its server answers with {that reader, the request's
// sequence number} in PID 0x800f; Fast DDS 3.1 sends the same identity
// under the standard 0x0083 and again under 0x800f; Cyclone's frames
// carry no related sample identity at all (its pairing is in the
// payload).
func TestServiceDialectsOnTheWire(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		sniff, cli, srv := sniffTriggerCall(ctx, t, v.bin)
		// With --node each printed its node first: reader and writer Gids.
		c := jsonLines[ParticipantInfo](t, cli)[0].Nodes[0]
		s := jsonLines[ParticipantInfo](t, srv)[0].Nodes[0]
		reqWriter, replyReader, replyWriter := c.Writers[0], c.Readers[0], s.Writers[0]
		related := map[string][]SniffedRelated{} // by writer, each once
		var reqSN int64
		for _, d := range jsonLines[SniffedData](t, sniff) {
			if d.Writer == reqWriter {
				reqSN = d.SN
			}
			for _, r := range d.Related {
				if !slices.Contains(related[d.Writer], r) {
					related[d.Writer] = append(related[d.Writer], r)
				}
			}
		}
		if reqSN == 0 {
			t.Fatalf("the sniffer never saw the request writer %s: %s", reqWriter, sniff.Stdout())
		}
		want := map[string][]SniffedRelated{}
		switch v.name {
		case "fastdds":
			want[reqWriter] = []SniffedRelated{{PID: 0x800f, GUID: replyReader, SN: int64(wire.SequenceNumberUnknown)}}
			want[replyWriter] = []SniffedRelated{{PID: 0x800f, GUID: replyReader, SN: reqSN}}
		case "fastdds3":
			// The standard id first, then the same identity under 0x800f.
			want[reqWriter] = []SniffedRelated{{PID: 0x0083, GUID: replyReader, SN: int64(wire.SequenceNumberUnknown)}, {PID: 0x800f, GUID: replyReader, SN: int64(wire.SequenceNumberUnknown)}}
			want[replyWriter] = []SniffedRelated{{PID: 0x0083, GUID: replyReader, SN: reqSN}, {PID: 0x800f, GUID: replyReader, SN: reqSN}}
		}
		for _, w := range []string{reqWriter, replyWriter} {
			if !slices.Equal(related[w], want[w]) {
				t.Errorf("%s's writer %s sent related sample identities %+v, want %+v", v.name, w, related[w], want[w])
			}
		}
	})
}

// TestFastDDSDiscoveryDataOnTheWire pins what docs/fastdds3.md says Fast
// DDS 3.1 announces beyond 2.9, all of which the bridge ignores: its
// participant data adds the product version (0x8000), the network
// configuration set (0x8007) and the domain id (0x000f); its publications
// of a generated type add XTypes type information (0x0075). Samples stay
// plain CDR, little endian, in both.
func TestFastDDSDiscoveryDataOnTheWire(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	const spdp, sedpPub = "000100c2", "000003c2"
	for _, v := range nodeVendors(t, p)[1:] {
		t.Run(v.name, func(t *testing.T) {
			SkipMissing(t, v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			sniff, cli, _ := sniffTriggerCall(ctx, t, v.bin)
			reqWriter := jsonLines[ParticipantInfo](t, cli)[0].Nodes[0].Writers[0]
			seen := map[string]map[int]bool{} // parameter ids by builtin writer
			reqEnc := -2
			for _, d := range jsonLines[SniffedData](t, sniff) {
				if d.Writer == reqWriter {
					reqEnc = d.Encapsulation
				}
				if e := d.Writer[24:]; (e == spdp || e == sedpPub) && len(d.Params) > 0 {
					if seen[e] == nil {
						seen[e] = map[int]bool{}
					}
					for _, id := range d.Params {
						seen[e][id] = true
					}
				}
			}
			if reqEnc != 1 {
				t.Errorf("the request went out with encapsulation %d, want 1 (CDR_LE)", reqEnc)
			}
			fd3 := v.name == "fastdds3"
			for _, c := range []struct {
				writer string
				pid    int
			}{{spdp, 0x8000}, {spdp, 0x8007}, {spdp, 0x000f}, {sedpPub, 0x0075}} {
				if got := seen[c.writer][c.pid]; got != fd3 {
					t.Errorf("%s: writer %s sent PID %#04x: %v, want %v", v.name, c.writer, c.pid, got, fd3)
				}
			}
		})
	}
}
