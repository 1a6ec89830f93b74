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

// TestServiceDialectsOnTheWire watches one Trigger call per vendor: Fast
// DDS 2.9's client names its reply reader in PID 0x800f (not 0x0083) on
// the request, and its server answers with {that reader, the request's
// sequence number} in PID 0x800f; Cyclone's frames carry no related
// sample identity at all (its pairing is in the payload).
func TestServiceDialectsOnTheWire(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		sniff, ns := startReady(ctx, t, func(ns string) *Proc { return StartSniffer(t, ns, "TestRTPSSnifferHelper") }, "ready")
		srv := StartTriggerServer(t, ns, v.bin, "/trigger", "--node", "server", "--count", "1")
		cli := StartTriggerClient(t, ns, v.bin, "/trigger", 1, "--node", "client", "--timeout", "20")
		if err := cli.Wait(ctx); err != nil {
			t.Fatalf("client: %v: %s", err, cli.Stderr())
		}
		if err := srv.Wait(ctx); err != nil {
			t.Fatalf("server: %v: %s", err, srv.Stderr())
		}
		time.Sleep(200 * time.Millisecond) // the sniffer prints what it read
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
		if v.name == "fastdds" {
			want[reqWriter] = []SniffedRelated{{PID: 0x800f, GUID: replyReader, SN: int64(wire.SequenceNumberUnknown)}}
			want[replyWriter] = []SniffedRelated{{PID: 0x800f, GUID: replyReader, SN: reqSN}}
		}
		for _, w := range []string{reqWriter, replyWriter} {
			if !slices.Equal(related[w], want[w]) {
				t.Errorf("%s's writer %s sent related sample identities %+v, want %+v", v.name, w, related[w], want[w])
			}
		}
	})
}
