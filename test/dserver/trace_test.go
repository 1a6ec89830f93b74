package dserver

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// EnvTrace names a directory: each rig's test writes there every
// discovery submessage its namespace carried (DATA, HEARTBEAT, ACKNACK,
// GAP, one line per datagram received), as <test>.trace. A flaky
// discovery failure is read from both sides of the server in it.
const EnvTrace = "ACTBRIDGE_DSERVER_TRACE"

// TestTraceHelper is not a test: it is the tracer process trace runs
// inside a rig's namespace.
func TestTraceHelper(t *testing.T) {
	if os.Getenv(ddspeers.SniffEnv) == "" {
		t.Skip("helper process of the discovery server tests")
	}
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_DGRAM, 0x0300) // htons(ETH_P_ALL), receive only
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(os.Stderr, "ready")
	buf := make([]byte, 1<<16)
	for {
		n, sa, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ll, ok := sa.(*syscall.SockaddrLinklayer); ok && ll.Pkttype == 4 { // PACKET_OUTGOING: loopback shows it again as received
			continue
		}
		if line := traceLine(buf[:n]); line != "" {
			fmt.Println(time.Now().Format("15:04:05.000"), line)
		}
	}
}

// traceLine describes an IPv4 UDP packet holding an RTPS message: ports,
// sender prefix and its submessages ("" for anything else).
func traceLine(pkt []byte) string {
	if len(pkt) < 28 || pkt[0]>>4 != 4 || pkt[9] != syscall.IPPROTO_UDP {
		return ""
	}
	ihl := int(pkt[0]&15) * 4
	if len(pkt) < ihl+8 {
		return ""
	}
	var m wire.Message
	if m.Unmarshal(pkt[ihl+8:]) != nil {
		return ""
	}
	line := fmt.Sprintf("%d>%d %v:", binary.BigEndian.Uint16(pkt[ihl:]), binary.BigEndian.Uint16(pkt[ihl+2:]), m.Header.Prefix)
	for _, sm := range m.Submessages {
		switch s := sm.(type) {
		case *wire.InfoDst:
			line += fmt.Sprintf(" DST(%v)", s.Prefix)
		case *wire.Data:
			line += fmt.Sprintf(" DATA(%v sn %d, %d octets, key %v)", s.WriterID, s.WriterSN, len(s.Payload), s.Key)
		case *wire.Heartbeat:
			line += fmt.Sprintf(" HB(%v %d..%d count %d final %v)", s.WriterID, s.First, s.Last, s.Count, s.Final)
		case *wire.AckNack:
			line += fmt.Sprintf(" ACKNACK(%v base %d missing %v count %d)", s.WriterID, s.State.Base, s.State.Members(), s.Count)
		case *wire.Gap:
			line += fmt.Sprintf(" GAP(%v %d..%d %v)", s.WriterID, s.Start, s.List.Base-1, s.List.Members())
		}
	}
	return line
}

// trace starts the tracer in ns when EnvTrace is set.
func trace(t *testing.T, ns string) {
	t.Helper()
	dir := os.Getenv(EnvTrace)
	if dir == "" {
		return
	}
	p := ddspeers.StartPeerEnv(t, ns, os.Args[0], []string{ddspeers.SniffEnv + "=1"}, nil, "-test.run=^TestTraceHelper$")
	if err := p.WaitStderr(timeout(t, 10*time.Second), "ready"); err != nil {
		t.Fatalf("tracer: %v: %s", err, p.Stderr())
	}
	t.Cleanup(func() {
		path := filepath.Join(dir, filepath.Base(t.Name())+".trace")
		if err := os.WriteFile(path, p.Stdout(), 0o644); err != nil {
			t.Errorf("trace: %v", err)
		}
		t.Logf("wire trace in %s", path)
	})
}
