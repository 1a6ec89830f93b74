package ddspeers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/msgs/ros2"
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
// "<vendor> call <n>" (vendor cyclonedds, fastdds, or fastdds3 for the
// Fast DDS 3 build; n counting from 1).
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

// DuplicateGoalExit is the exit status of an action-server that received
// a goal UUID it had seen before; its stderr then holds a line
// "DUPLICATE GOAL UUID <uuid>".
const DuplicateGoalExit = 4

// ActionEvent is one line of action-server's or action-client's stdout.
// Goal ids are UUIDs in their canonical form (lowercase, hyphenated).
// action-server prints:
//
//	{"event":"goal","goal_id":U,"joints":["j1"],"points":1}          a send_goal request came
//	{"event":"accepted"|"rejected","goal_id":U,"replied":true}       its reply went out
//	{"event":"preempted","goal_id":OLD,"by":NEW}                     a new goal ends the running one
//	{"event":"feedback","goal_id":U,"n":1}                           feedback n of the goal sent
//	{"event":"result","goal_id":U,"status":4,"error_code":0,"error_string":""}  the goal ended
//	{"event":"cancel","goal_id":U,"return_code":0,"canceling":[U],"replied":true}  a cancel_goal request (U zero: all)
//	{"event":"get_result","goal_id":U,"status":4,"replied":true}     a get_result answered (status 0: unknown or forgotten)
//	{"event":"forgotten","goal_id":U}                                its result expired (--result-timeout)
//
// action-client prints:
//
//	{"event":"sent","goal_id":U,"accepted":true}                     the send_goal reply
//	{"event":"feedback","goal_id":U,"joints":["j1"]}                 a feedback message
//	{"event":"status","goals":[{"goal_id":U,"status":2}]}            a status message
//	{"event":"cancel","return_code":0,"canceling":[U]}               the cancel_goal reply
//	{"event":"result","goal_id":U,"status":4,"error_code":0,"error_string":""}  the get_result reply
//
// Status codes are action_msgs/msg/GoalStatus's: 0 unknown, 1 accepted,
// 2 executing, 3 canceling, 4 succeeded, 5 canceled, 6 aborted.
type ActionEvent struct {
	Event       string       `json:"event"`
	GoalID      string       `json:"goal_id"`
	Joints      []string     `json:"joints"`
	Points      int          `json:"points"`
	N           int          `json:"n"`
	By          string       `json:"by"`
	Accepted    bool         `json:"accepted"`
	Replied     bool         `json:"replied"`
	Status      int          `json:"status"`
	ErrorCode   int          `json:"error_code"`
	ErrorString string       `json:"error_string"`
	ReturnCode  int          `json:"return_code"`
	Canceling   []string     `json:"canceling"`
	Goals       []GoalStatus `json:"goals"`
}

// GoalStatus is one goal of a status event.
type GoalStatus struct {
	GoalID string `json:"goal_id"`
	Status int    `json:"status"`
}

// StartActionServer starts a node peer serving the action (a ROS name,
// "/arm/follow_joint_trajectory") of type
// control_msgs/action/FollowJointTrajectory in its RMW's dialect, until
// stopped: the three services and the feedback and status topics (status
// reliable, transient_local, keep last 1). It runs a script:
//
//	PEER action-server --action NAME [--goal accept|reject] [--feedback N] [--feedback-period S]
//	                   [--outcome succeed|abort|hold] [--cancel accept|reject] [--preempt aborted|canceled]
//	                   [--result-timeout S] [--node NAME …] [--reply-wait S] [--domain N]
//
// An accepted goal goes EXECUTING at once, gets N feedback messages (3)
// one --feedback-period apart (0.1 s), then ends SUCCEEDED (error_code 0),
// ABORTED (error_code -4, PATH_TOLERANCE_VIOLATED) or, with hold, runs
// until canceled (CANCELED, error_code 0) or preempted. A new accepted
// goal ends the running one with error_code -1 (INVALID_GOAL), ABORTED as
// Jazzy's joint_trajectory_controller does or CANCELED as Humble's.
// Results are kept --result-timeout seconds after a goal ends, then
// forgotten: it leaves the status list and get_result answers status 0.
// This helper passes the flags of p.Distro (DistroFlags, --preempt, and
// --result-timeout 900 on Humble, 10 since Iron, as rcl's defaults);
// extra may override them. It prints an ActionEvent line per event, "ready" on stderr,
// and exits DuplicateGoalExit if a goal UUID it ever saw comes again.
func (p *NodePeers) StartActionServer(t testing.TB, ns, bin, action string, extra ...string) *Proc {
	t.Helper()
	return p.StartActionServerEnv(t, ns, bin, nil, action, extra...)
}

// StartActionServerEnv is StartActionServer with variables added to the
// peer's environment (see StartPeerEnv).
func (p *NodePeers) StartActionServerEnv(t testing.TB, ns, bin string, env []string, action string, extra ...string) *Proc {
	t.Helper()
	// joint_trajectory_controller's preempt end and rcl's result timeout:
	// CANCELED and 15 min on Humble, ABORTED and 10 s since.
	distro := []string{"--preempt", "aborted", "--result-timeout", "10"}
	if p.Distro == msgs.Humble {
		distro = []string{"--preempt", "canceled", "--result-timeout", "900"}
	}
	args := append(append([]string{"action-server", "--action", action}, p.DistroFlags()...), distro...)
	return StartPeerEnv(t, ns, bin, env, nil, append(args, extra...)...)
}

// StartActionClient starts a node peer that drives a FollowJointTrajectory
// action server, to test the peers' servers against each other:
//
//	PEER action-client --action NAME --goals U1[,U2…] [--joints a,b] [--points N] [--gap S]
//	                   [--cancel-goal U|all --cancel-after N] [--result-delay S] [--no-result] [--timeout S]
//
// It waits for the server, sends each goal (--points points of zeros, 1 by
// default, 0.1 s apart, for --joints, default j1,j2) and waits --gap seconds between them; with
// --cancel-goal it cancels once the last accepted goal had N feedback
// messages (1); after --result-delay it asks get_result of every accepted
// goal in order. It prints an ActionEvent line per reply, feedback and
// status message, exits 0 when done and 2 when a reply does not come
// within --timeout.
func StartActionClient(t testing.TB, ns, bin, action string, goals []string, extra ...string) *Proc {
	t.Helper()
	return StartPeer(t, ns, bin, nil, append([]string{"action-client", "--action", action, "--goals", strings.Join(goals, ",")}, extra...)...)
}

// ParamValue is an rcl_interfaces/msg/ParameterValue as the parameter
// modes print it: {"type":3,"value":0.5}. Type is ParameterType's code
// (0 not set, 1 bool, 2 integer, 3 double, 4 string; arrays are printed
// with a null value); Value is a JSON bool, number or string.
type ParamValue struct {
	Type  int `json:"type"`
	Value any `json:"value"`
}

// ParamEvent is one line of param-server's stdout, one per request (per
// parameter for set):
//
//	{"event":"list","prefixes":[],"depth":0,"names":["speed"]}
//	{"event":"get","names":["speed"],"values":[{"type":3,"value":0.5}]}   values empty: a name was not declared
//	{"event":"set","name":"speed","value":{"type":3,"value":0.75},"successful":true,"reason":""}
//	{"event":"describe","names":["speed"],"described":1}
type ParamEvent struct {
	Event      string       `json:"event"`
	Prefixes   []string     `json:"prefixes"`
	Depth      uint64       `json:"depth"`
	Names      []string     `json:"names"`
	Values     []ParamValue `json:"values"`
	Name       string       `json:"name"`
	Value      ParamValue   `json:"value"`
	Successful bool         `json:"successful"`
	Reason     string       `json:"reason"`
	Described  int          `json:"described"`
}

// ParamReply is one line of param-client's stdout, one per --call:
//
//	{"call":"list","names":["speed","arm.reach"],"prefixes":["arm"]}
//	{"call":"get","values":[{"type":3,"value":0.5}]}
//	{"call":"set","results":[{"successful":false,"reason":"…"}]}
//	{"call":"describe","descriptors":[{"name":"speed","type":3,"read_only":false}]}
//
// and, with --events N, one line per /parameter_events message it took:
//
//	{"call":"event","node":"/robot/ctl","new":[],"changed":["speed"]}
type ParamReply struct {
	Call     string       `json:"call"`
	Node     string       `json:"node"`
	New      []string     `json:"new"`
	Changed  []string     `json:"changed"`
	Names    []string     `json:"names"`
	Prefixes []string     `json:"prefixes"`
	Values   []ParamValue `json:"values"`
	Results  []struct {
		Successful bool   `json:"successful"`
		Reason     string `json:"reason"`
	} `json:"results"`
	Descriptors []struct {
		Name     string `json:"name"`
		Type     int    `json:"type"`
		ReadOnly bool   `json:"read_only"`
	} `json:"descriptors"`
}

// StartParamServer starts a node peer that serves a node's parameters as
// rclcpp does, in its RMW's dialect, until stopped:
//
//	PEER param-server --node NAME [--namespace NS] [--param NAME=TYPE:VALUE]… [--read-only NAME]…
//	                  [--gid-size 16|24] [--reply-wait S] [--domain N]
//
// TYPE is bool, int, double or string. The services are
// <ns>/<node>/list_parameters, get_parameters, set_parameters and
// describe_parameters (rcl_interfaces/srv). As rclcpp without undeclared
// parameters: get and describe answer nothing when a name is not
// declared; set refuses an undeclared, a read-only or a type-changing
// parameter with rclcpp's reason. As rclcpp it publishes on
// /parameter_events (reliable, volatile, keep last 1000) an event naming
// each parameter as new when it starts and as changed after each
// successful set. The node is announced on ros_discovery_info (its
// ParticipantInfo is the first line); then one ParamEvent line per
// request.
func StartParamServer(t testing.TB, ns, bin, node string, params []string, extra ...string) *Proc {
	t.Helper()
	args := repeatFlag([]string{"param-server", "--node", node}, "--param", params)
	return StartPeer(t, ns, bin, nil, append(args, extra...)...)
}

// StartParamClient starts a node peer that calls a node's parameter
// services, each --call in order, and prints a ParamReply line per reply:
//
//	PEER param-client --node NAME [--namespace NS] --call list[:PREFIX,…] --call get:A,B
//	                  --call set:NAME=TYPE:VALUE --call describe:A,B [--events N] [--timeout S]
//
// Its /parameter_events reader exists before the first call; with
// --events N it waits, after the calls, until N events came.
func StartParamClient(t testing.TB, ns, bin, node string, calls []string, extra ...string) *Proc {
	t.Helper()
	args := repeatFlag([]string{"param-client", "--node", node}, "--call", calls)
	return StartPeer(t, ns, bin, nil, append(args, extra...)...)
}

// repeatFlag appends flag and each value to args.
func repeatFlag(args []string, flag string, values []string) []string {
	for _, v := range values {
		args = append(args, flag, v)
	}
	return args
}

// EndpointInfo is one line of cycnode's endpoints mode: a reader or
// writer of another participant as Cyclone's discovery reports it.
//
//	{"kind":"writer","guid":"<32 hex>","participant":"<32 hex>","topic":"rq/triggerRequest",
//	 "type":"std_srvs::srv::dds_::Trigger_Request_","user_data":"clientid=…;typehash=RIHS01_…;"}
//
// and, when an endpoint goes (deleted, or its participant's lease ended),
// only its key:
//
//	{"kind":"writer","guid":"<32 hex>","gone":true}
type EndpointInfo struct {
	Kind        string `json:"kind"` // reader or writer
	GUID        string `json:"guid"`
	Gone        bool   `json:"gone"`
	Participant string `json:"participant"`
	Topic       string `json:"topic"`
	Type        string `json:"type"`
	UserData    string `json:"user_data"`
}

// StartEndpoints starts cycnode (only) printing an EndpointInfo line for
// every reader and writer of other participants that discovery reports
// (Cyclone's DCPSPublication and DCPSSubscription), and another when one
// goes, so a test can see what our endpoints, or the peers', announce:
//
//	cycnode endpoints [--count N] [--domain N]
//
// It says "ready" on stderr and exits 0 after --count lines (0: runs
// until stopped).
func StartEndpoints(t testing.TB, ns, cycnode string, extra ...string) *Proc {
	t.Helper()
	return StartPeer(t, ns, cycnode, nil, append([]string{"endpoints"}, extra...)...)
}

// Every node peer mode takes --lease S: its participant's lease (Cyclone's
// default is 10 s, Fast DDS's 20 s), so a test that kills a peer sees it
// dropped within S seconds.

// DistroFlags are the node peers' flags that make them behave as the RMW
// of p.Distro: the Gid size of ros_discovery_info (24 on Humble, 16 after)
// and, from Jazzy on, typehash=RIHS01_…; in every endpoint's user data
// (--typehash). StartActionServer adds them by itself.
func (p *NodePeers) DistroFlags() []string {
	if p.Distro == msgs.Humble {
		return []string{"--gid-size", "24"}
	}
	return []string{"--gid-size", "16", "--typehash"}
}
