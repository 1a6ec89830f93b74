package ddspeers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// MalformedExit is the exit status of a node peer that received a frame
// its RMW would not send (a request in the other dialect, a graph sample
// with the other Gid size, a payload that does not decode). Its stderr
// then holds a line "MALFORMED: <why>" (Malformed).
const MalformedExit = 3

// Malformed returns the peer's "MALFORMED: …" line, if it printed one.
func (p *Proc) Malformed() (string, bool) {
	for line := range strings.Lines(p.Stderr()) {
		if strings.HasPrefix(line, "MALFORMED: ") {
			return strings.TrimSpace(line), true
		}
	}
	return "", false
}

// JSONLines decodes a node peer's stdout, one JSON object a line, into
// values of T (TriggerReply, ServedCall, ParticipantInfo).
func JSONLines[T any](out []byte) ([]T, error) {
	var res []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("ddspeers: line %d %q: %w", len(res)+1, sc.Text(), err)
		}
		res = append(res, v)
	}
	return res, sc.Err()
}

// ServedCall is one line of a service mode's stdout (trigger-server):
//
//	{"call":1,"client":"<hex>","seq":1,"replied":true}
//
// Client is who the reply went to, in the peer's dialect: cycnode prints
// the request header's guid (16 hex digits, the client writer's instance
// handle), fastnode the GUID in the request's related_sample_identity (32
// hex digits, the client's reply reader). Seq is the header's seq
// (cycnode) or the request's RTPS sequence number (fastnode). Replied is
// false when the peer dropped the reply as its rmw would: the client's
// reply reader was not matched within --reply-wait.
type ServedCall struct {
	Call    int    `json:"call"`
	Client  string `json:"client"`
	Seq     int64  `json:"seq"`
	Replied bool   `json:"replied"`
}

// TriggerReply is one line of trigger-client's stdout, a reply it took:
//
//	{"call":1,"seq":1,"success":true,"message":"cyclonedds call 1"}
//
// Seq is the sequence number the request went out with (the header's
// seq, counting from 1, for cycnode; the RTPS sequence number for
// fastnode). The peers' servers answer success true and the message
// "<vendor> call <n>" (vendor cyclonedds or fastdds, n counting from 1).
type TriggerReply struct {
	Call    int    `json:"call"`
	Seq     int64  `json:"seq"`
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// ParticipantInfo is a ros_discovery_info sample as the graph mode prints
// it, and as every mode run with --node prints the one it announces:
//
//	{"gid":"<hex>","nodes":[{"namespace":"/","name":"talker","readers":["<hex>"],"writers":["<hex>"]}]}
//
// Gids are all their bytes in hex: 48 digits with --gid-size 24 (Humble:
// the 16-byte GUID, then 8 zero bytes), 32 with 16 (Jazzy and later).
type ParticipantInfo struct {
	Gid   string     `json:"gid"`
	Nodes []NodeInfo `json:"nodes"`
}

// NodeInfo is one node of a ParticipantInfo.
type NodeInfo struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Readers   []string `json:"readers"`
	Writers   []string `json:"writers"`
}

// StartTriggerServer starts a node peer (cycnode or fastnode from
// BuildNodes) serving std_srvs/srv/Trigger on service (a ROS name,
// "/trigger": topics rq/triggerRequest and rr/triggerReply) in its RMW's
// dialect:
//
//	PEER trigger-server --service NAME [--count N] [--timeout S] [--reply-wait S] [--linger S]
//	                    [--node NAME [--namespace NS] [--gid-size 16|24]] [--domain N]
//
// It says "ready" on stderr once its endpoints exist, prints a ServedCall
// line per request, exits 0 after --count requests (0: runs until
// stopped) and 2 after --timeout seconds (default 30, 0: never) without a
// request; MalformedExit on a frame of the other dialect. With --node it
// also announces its node on ros_discovery_info (request reader, reply
// writer), printing that ParticipantInfo line first.
func StartTriggerServer(t testing.TB, ns, bin, service string, extra ...string) *Proc {
	t.Helper()
	return StartPeer(t, ns, bin, nil, append([]string{"trigger-server", "--service", service}, extra...)...)
}

// StartTriggerClient starts a node peer calling std_srvs/srv/Trigger n
// times, one call at a time, in its RMW's dialect:
//
//	PEER trigger-client --service NAME --count N [--timeout S] [--node NAME …] [--domain N]
//
// It waits (up to --timeout) until its request writer and reply reader
// have each matched the server, sends each request once, and prints a
// TriggerReply line per reply; it exits 0 after n replies, 2 when a reply
// does not come within --timeout, MalformedExit on a reply of the other
// dialect. Replies to other clients are skipped, as the rmw does.
func StartTriggerClient(t testing.TB, ns, bin, service string, n int, extra ...string) *Proc {
	t.Helper()
	return StartPeer(t, ns, bin, nil, append([]string{"trigger-client", "--service", service, "--count", fmt.Sprint(n)}, extra...)...)
}

// StartAnnouncer starts a node peer that announces one node on
// ros_discovery_info (reliable, transient_local, keep last 1) until
// stopped:
//
//	PEER announce --node NAME [--namespace NS] [--gid-size 16|24] [--pub TOPIC]… [--sub TOPIC]… [--domain N]
//
// --pub and --sub (DDS topic names, "rt/chatter") make writers and
// readers of std_msgs/msg/String whose Gids the node lists. It prints the
// ParticipantInfo it announced (stdout) and "announced NAME" (stderr).
func StartAnnouncer(t testing.TB, ns, bin, node string, gidSize int, extra ...string) *Proc {
	t.Helper()
	return StartPeer(t, ns, bin, nil, append([]string{"announce", "--node", node, "--gid-size", fmt.Sprint(gidSize)}, extra...)...)
}

// StartGraphListener starts a node peer that subscribes to
// ros_discovery_info (reliable, transient_local, keep all) and prints
// each sample as a ParticipantInfo line:
//
//	PEER graph [--gid-size 16|24] [--count N] [--domain N]
//
// It says "ready" on stderr, exits 0 after --count samples (0: runs until
// stopped), and MalformedExit on a sample that is not a
// ParticipantEntitiesInfo with Gids of --gid-size bytes.
func StartGraphListener(t testing.TB, ns, bin string, gidSize int, extra ...string) *Proc {
	t.Helper()
	return StartPeer(t, ns, bin, nil, append([]string{"graph", "--gid-size", fmt.Sprint(gidSize)}, extra...)...)
}
