package rtps

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// TestCaptureCycloneSEDP writes golden datagrams for the parsing tests;
// it runs only when ACTBRIDGE_RTPS_CAPTURE names a folder:
//
//	ACTBRIDGE_RTPS_CAPTURE=$PWD/rtps/testdata go test -run TestCaptureCycloneSEDP ./rtps/
//
// Inside the test's namespace, ddsperf (CycloneDDS 0.10.2) publishes and
// a participant of ours taps every datagram it receives; the first one
// that carries Cyclone's SEDP publication of DDSPerfRDataKS is saved as
// cyclone-sedp-publication.bin.
func TestCaptureCycloneSEDP(t *testing.T) {
	dir := os.Getenv("ACTBRIDGE_RTPS_CAPTURE")
	if dir == "" {
		t.Skip("set ACTBRIDGE_RTPS_CAPTURE to a folder to capture golden datagrams")
	}
	netns.Require(t)
	startDDSPerf(t, 6, "", 60, "pub", "1Hz")
	var mu sync.Mutex
	var found []byte
	tap := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if found == nil && bytes.Contains(b, []byte("DDSPerfRDataKS")) && bytes.Contains(b, []byte("KeyedSeq")) {
			var m wire.Message
			if m.Unmarshal(b) == nil && m.Header.Vendor == wire.VendorCyclone {
				for _, s := range m.Submessages {
					if d, ok := s.(*wire.Data); ok && d.WriterID == wire.EntityIDSEDPPublicationsWriter {
						found = bytes.Clone(b)
					}
				}
			}
		}
	}
	newParticipant(t, Config{Domain: 6, Multicast: true, tap: tap})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		b := found
		mu.Unlock()
		if b != nil {
			if err := os.WriteFile(filepath.Join(dir, "cyclone-sedp-publication.bin"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no SEDP publication of DDSPerfRDataKS captured")
}
