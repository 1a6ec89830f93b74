package ddspeers

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/actbridge/actbridge/rtps/wire"
)

// SniffEnv, set in its environment, tells a test binary's sniffer helper
// (a test function calling Sniff, see StartSniffer) to run.
const SniffEnv = "ACTBRIDGE_DDSPEERS_SNIFF"

// SniffedData is one RTPS DATA submessage as Sniff prints it, a JSON line:
//
//	{"writer":"<32 hex>","sn":1,"pids":[32783,1],"related":[{"pid":32783,"guid":"<32 hex>","sn":-4294967296}],"encapsulation":1}
//
// Pids are the inline QoS parameter ids; Related holds each related
// sample identity among them (PID 0x800f, Fast DDS's until 2.13, or
// 0x0083, the standard one), SN -4294967296 being SEQUENCENUMBER_UNKNOWN.
// Encapsulation is the payload's encapsulation id (1 CDR_LE, 3 PL_CDR_LE;
// -1 without a payload); Params are the parameter ids of a parameter-list
// payload (PL_CDR: SPDP and SEDP announcements), Sentinel excluded.
type SniffedData struct {
	Writer        string           `json:"writer"`
	SN            int64            `json:"sn"`
	PIDs          []int            `json:"pids"`
	Related       []SniffedRelated `json:"related"`
	Encapsulation int              `json:"encapsulation"`
	Params        []int            `json:"params,omitempty"`
}

// SniffedRelated is a related sample identity seen in inline QoS.
type SniffedRelated struct {
	PID  uint16 `json:"pid"`
	GUID string `json:"guid"`
	SN   int64  `json:"sn"`
}

// Sniff reads every IPv4 UDP packet on the host's (the namespace's)
// interfaces with a receive-only AF_PACKET socket and writes a SniffedData
// line to w for each RTPS DATA submessage, until reading fails. It says
// "ready" on stderr once the socket is open. It sends nothing.
func Sniff(w io.Writer) error {
	const ethPAll = 0x0300 // htons(ETH_P_ALL)
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_DGRAM, ethPAll)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	fmt.Fprintln(os.Stderr, "ready")
	buf := make([]byte, 1<<16)
	enc := json.NewEncoder(w)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return err
		}
		for _, d := range sniffPacket(buf[:n]) {
			if err := enc.Encode(d); err != nil {
				return err
			}
		}
	}
}

// sniffPacket returns the DATA submessages of an IPv4 UDP packet holding
// an RTPS message.
func sniffPacket(pkt []byte) []SniffedData {
	if len(pkt) < 20 || pkt[0]>>4 != 4 || pkt[9] != syscall.IPPROTO_UDP {
		return nil
	}
	ihl := int(pkt[0]&15) * 4
	if len(pkt) < ihl+8 {
		return nil
	}
	var m wire.Message
	if m.Unmarshal(pkt[ihl+8:]) != nil {
		return nil
	}
	var out []SniffedData
	for _, sm := range m.Submessages {
		d, ok := sm.(*wire.Data)
		if !ok {
			continue
		}
		g := wire.GUID{Prefix: m.Header.Prefix, Entity: d.WriterID}.Bytes()
		sd := SniffedData{Writer: hex.EncodeToString(g[:]), SN: int64(d.WriterSN)}
		var order binary.ByteOrder = binary.LittleEndian
		if d.BigEndian {
			order = binary.BigEndian
		}
		for _, p := range d.InlineQoS {
			sd.PIDs = append(sd.PIDs, int(p.ID))
			if (p.ID == 0x800f || p.ID == 0x0083) && len(p.Value) >= 24 {
				high, low := int32(order.Uint32(p.Value[16:])), order.Uint32(p.Value[20:])
				sd.Related = append(sd.Related, SniffedRelated{PID: uint16(p.ID), GUID: hex.EncodeToString(p.Value[:16]), SN: int64(high)<<32 | int64(low)})
			}
		}
		sd.Encapsulation, sd.Params = payloadParams(d.Payload)
		out = append(out, sd)
	}
	return out
}

// payloadParams returns a payload's encapsulation id and, for PL_CDR_BE
// and PL_CDR_LE, its parameter ids (none when the list does not parse).
func payloadParams(p []byte) (int, []int) {
	if len(p) < 4 {
		return -1, nil
	}
	enc := int(binary.BigEndian.Uint16(p))
	var order wire.ByteOrder
	switch enc {
	case 2:
		order = binary.BigEndian
	case 3:
		order = binary.LittleEndian
	default:
		return enc, nil
	}
	pl, _, err := wire.UnmarshalParameterList(p[4:], order)
	if err != nil {
		return enc, nil
	}
	var ids []int
	for _, q := range pl {
		ids = append(ids, int(q.ID))
	}
	return enc, ids
}

// StartSniffer runs the calling test binary's sniffer helper inside ns:
// helper names a test function of the package that, when SniffEnv is set,
// calls Sniff(os.Stdout) (and skips otherwise). Its stdout is one
// SniffedData line per DATA submessage seen; wait for "ready" on its
// stderr before sending what it should see. Loopback traffic is seen
// twice (out and in).
func StartSniffer(t testing.TB, ns, helper string) *Proc {
	t.Helper()
	return StartPeerEnv(t, ns, os.Args[0], []string{SniffEnv + "=1"}, nil, "-test.run=^"+helper+"$")
}
