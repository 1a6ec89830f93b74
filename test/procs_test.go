package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/netns"
)

// binDir holds the binaries built once by TestMain.
var binDir string

// TestMain runs the package inside a network namespace it made (the ROS 2
// worlds' discovery multicasts stay in it; the ROS 1 worlds use its
// loopback), after preparing outside it what needs the host's network.
func TestMain(m *testing.M) {
	if !netns.Inside() {
		prepareOutsideNamespace()
	}
	netns.MainFunc(func() int {
		dir, err := os.MkdirTemp("", "actbridge-e2e-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = dir
		cmd := exec.Command("go", "build", "-o", dir+"/", "../cmd/actbridge", "../cmd/simrobot")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building binaries:", err)
			return 1
		}
		return m.Run()
	})
}

// proc is a child process a test owns (rostest stops it by pid).
type proc = rostest.Process

func start(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	return rostest.StartProcess(t, filepath.Join(binDir, name), name, env, args...)
}

// transport is the ROS a world's robot and bridge speak.
type transport string

const (
	ros1 transport = "ros1" // rosmaster, simrobot, launch/robots/sim.yaml
	ros2 transport = "ros2" // simrobot --ros 2 on a domain of its own, launch/robots/sim-ros2.yaml
)

// transports is every transport a test runs under unless it says otherwise.
var transports = []transport{ros1, ros2}

// eachTransport runs f as a subtest per transport of trs (every one when
// trs is empty), named after it.
func eachTransport(t *testing.T, f func(t *testing.T, tr transport), trs ...transport) {
	if len(trs) == 0 {
		trs = transports
	}
	for _, tr := range trs {
		t.Run(string(tr), func(t *testing.T) { f(t, tr) })
	}
}

// world is a simulated robot and a bridge, each a real process, over one
// transport: under ROS 1 with a rosmaster, under ROS 2 alone on a domain.
type world struct {
	t       *testing.T
	tr      transport
	sim     *proc
	bridge  *bridgetest.Bridge
	addr    string // bridge HTTP address, kept across restarts
	dataDir string
	// ROS 1: the master and the test's own node.
	master *rostest.Master
	node   *goroslib.Node
	// ROS 2: the world's domain and the test's own participant on it.
	domain int
	peer   *simPeer
}

type worldOpts struct {
	tr         transport // ros1 when empty
	simArgs    []string
	bridgeArgs []string
	bridgeEnv  []string
	config     string
	noBridge   bool
	// crashpoints runs the bridge built with the crashpoints tag
	// (crashpointsBinary), which dies at the stage bridgeEnv names.
	crashpoints bool
}

func newWorld(t *testing.T, o worldOpts) *world {
	t.Helper()
	w := &world{t: t, tr: o.tr, dataDir: t.TempDir()}
	if w.tr == "" {
		w.tr = ros1
	}
	if w.tr == ros1 {
		w.master = rostest.StartMaster(t)
	} else {
		netns.Require(t)
		w.domain = domains.take(t)
	}
	w.startSim(o.simArgs...)
	if !o.noBridge {
		w.startBridge(o)
	}
	return w
}

// startSim starts simrobot on the world's transport and waits until it serves.
func (w *world) startSim(args ...string) {
	w.t.Helper()
	if w.tr == ros2 {
		args = append([]string{"--ros", "2", "--distro", string(ros2Distro)}, args...)
	}
	w.sim = start(w.t, "simrobot", w.env(), args...)
	w.waitOutput(w.sim, "serving", 30*time.Second)
}

// env is the environment of the world's ROS processes: ROS 1's master, or
// ROS 2's domain with localhost-only discovery (whatever the shell set).
func (w *world) env() []string {
	if w.tr == ros1 {
		return w.master.Env()
	}
	return []string{fmt.Sprintf("ROS_DOMAIN_ID=%d", w.domain), "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS="}
}

// defaultConfig is the shipped config of the world's transport.
func defaultConfig(tr transport) string {
	if tr == ros2 {
		return "../launch/robots/sim-ros2.yaml"
	}
	return "../launch/robots/sim.yaml"
}

func (w *world) startBridge(o worldOpts) {
	w.t.Helper()
	cfg := o.config
	if cfg == "" {
		cfg = defaultConfig(w.tr)
	}
	args := append([]string{"--config", cfg, "--data-dir", w.dataDir}, o.bridgeArgs...)
	if w.tr == ros1 {
		args = append(args, "--wait-master", "20s")
	}
	bin := "actbridge"
	if o.crashpoints {
		bin = crashpointsBinary(w.t)
	}
	env := append(w.env(), "ACTBRIDGE_PLANNER_TOKEN=", "ACTBRIDGE_OPERATOR_TOKEN=")
	w.bridge = bridgetest.Start(w.t, filepath.Join(binDir, bin), w.addr, append(env, o.bridgeEnv...), args...)
	w.addr = w.bridge.Addr
}

// operatorToken is the token a bridge started without one wrote to its
// data dir: in the loopback demo only it makes a caller the operator.
func (w *world) operatorToken() string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dataDir, "operator.token"))
	if err != nil {
		w.t.Fatalf("the generated operator token: %v", err)
	}
	return strings.TrimSpace(string(b))
}

func (w *world) waitOutput(p *proc, s string, d time.Duration) {
	w.t.Helper()
	p.WaitOutput(w.t, s, d)
}

// rosNode is a goroslib node of the test itself (service calls, topics);
// ROS 1 worlds only.
func (w *world) rosNode() *goroslib.Node {
	w.t.Helper()
	if w.tr != ros1 {
		w.t.Fatalf("rosNode: a ROS 1 node in a %s world", w.tr)
	}
	if w.node != nil {
		return w.node
	}
	env, err := roslink.EnvFrom(func(k string) string {
		if k == "ROS_MASTER_URI" {
			return w.master.URI()
		}
		return ""
	})
	if err != nil {
		w.t.Fatal(err)
	}
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: fmt.Sprintf("e2e_%d", os.Getpid()), MasterAddress: env.MasterAddress, Host: "127.0.0.1"})
	if err != nil {
		w.t.Fatal(err)
	}
	w.node = n
	w.t.Cleanup(func() {
		done := make(chan struct{})
		go func() { n.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(6 * time.Second):
		}
	})
	return n
}

// simGoals reads the sim's goal counter: every goal it received, by action.
type simGoalLog map[string]struct {
	Received   int `json:"received"`
	Duplicates int `json:"duplicates"`
	Goals      []struct {
		ID string `json:"id"`
	} `json:"goals"`
}

func (w *world) simGoals() simGoalLog {
	w.t.Helper()
	out := w.trigger("/simrobot/goals")
	var g simGoalLog
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		w.t.Fatalf("goal log: %v: %s", err, out)
	}
	return g
}

// simGoalState is the sim's own record of one goal, for diagnostics.
func (w *world) simGoalState(id string) string {
	var raw map[string]struct {
		Goals []map[string]any `json:"goals"`
	}
	_ = json.Unmarshal([]byte(w.trigger("/simrobot/goals")), &raw)
	for _, a := range raw {
		for _, g := range a.Goals {
			if g["id"] == id {
				b, _ := json.Marshal(g)
				return string(b)
			}
		}
	}
	return "(not received)"
}

func (w *world) goalsReceived() int {
	n := 0
	for _, a := range w.simGoals() {
		n += a.Received
	}
	return n
}

// trigger calls one of the sim's std_srvs/Trigger services (its goal
// log, apply_faults, ...) over the world's transport and returns its message.
func (w *world) trigger(service string) string {
	w.t.Helper()
	if w.tr == ros2 {
		return w.simPeer().trigger(w.t, service)
	}
	sc, err := goroslib.NewServiceClient(goroslib.ServiceClientConf{Node: w.rosNode(), Name: service, Srv: &std_srvs.Trigger{}})
	if err != nil {
		w.t.Fatalf("service %s: %v", service, err)
	}
	defer sc.Close()
	var res std_srvs.TriggerRes
	if err := sc.Call(&std_srvs.TriggerReq{}, &res); err != nil {
		w.t.Fatalf("call %s: %v", service, err)
	}
	return res.Message
}

// mcpClient connects an MCP client over streamable HTTP.
func (w *world) mcpClient(token string) *mcp.ClientSession {
	w.t.Helper()
	return bridgetest.Connect(w.t, w.addr, token, nil)
}

// setFault sets the sim's fault key ("arm/abort_after") and applies it:
// ROS 1's parameter /simrobot/faults/<key>, ROS 2's parameter
// faults.<key with dots> of the sim's node.
func (w *world) setFault(key string, v any) {
	w.t.Helper()
	if w.tr == ros2 {
		w.simPeer().setFault(w.t, key, v)
	} else {
		n := w.rosNode()
		var err error
		switch x := v.(type) {
		case bool:
			err = n.ParamSetBool("/simrobot/faults/"+key, x)
		case int:
			err = n.ParamSetInt("/simrobot/faults/"+key, x)
		case float64:
			err = n.ParamSetFloat64("/simrobot/faults/"+key, x)
		}
		if err != nil {
			w.t.Fatalf("fault %s: %v", key, err)
		}
	}
	w.trigger("/simrobot/apply_faults")
}

// crashSim makes the sim die as a crashed robot process does: ROS 1's
// exit_code fault, a SIGKILL by pid over ROS 2 (whose sim has no such fault).
func (w *world) crashSim() {
	w.t.Helper()
	if w.tr == ros1 {
		w.setFault("exit_code", 3)
		return
	}
	w.sim.Stop(syscall.SIGKILL)
}

// odomTopic is where each transport's sim publishes odometry: ROS 1's
// /odom, diff_drive_controller's ~/odom on ROS 2.
var odomTopic = map[transport]string{ros1: "/odom", ros2: "/diff_drive_controller/odom"}

// baseX is the base's x in the odom frame, read as the planner reads it:
// topic_sample of the odometry through cs.
func (w *world) baseX(t *testing.T, cs *mcp.ClientSession) float64 {
	t.Helper()
	s := bridgetest.MustCall(t, cs, "topic_sample", map[string]any{"topic": odomTopic[w.tr], "n": 1})
	msg := s["messages"].([]any)[0].(map[string]any)
	return msg["pose"].(map[string]any)["pose"].(map[string]any)["position"].(map[string]any)["x"].(float64)
}

// countTwists counts the velocity commands reaching the base from now
// until t ends (ROS 1's /cmd_vel, ROS 2's diff_drive_controller/cmd_vel);
// the returned func reads the count.
func (w *world) countTwists(t *testing.T) func() int64 {
	t.Helper()
	if w.tr == ros2 {
		return w.simPeer().countCmdVel(t)
	}
	var n atomic.Int64
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: w.rosNode(), Topic: "/cmd_vel",
		Callback: func(*geometry_msgs.Twist) { n.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	return n.Load
}

// simJointPositions reads one /joint_states message the sim publishes, by
// a node of the test's own (goroslib over ROS 1, ours over ROS 2).
func (w *world) simJointPositions(t *testing.T) map[string]float64 {
	t.Helper()
	if w.tr == ros2 {
		return w.simPeer().jointPositions(t)
	}
	got := make(chan map[string]float64, 1)
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: w.rosNode(), Topic: "/joint_states",
		Callback: func(m *sensor_msgs.JointState) {
			out := map[string]float64{}
			for i, n := range m.Name {
				if i < len(m.Position) {
					out[n] = m.Position[i]
				}
			}
			select {
			case got <- out:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	select {
	case m := <-got:
		return m
	case <-time.After(20 * time.Second):
		t.Fatal("/joint_states: nothing in 20 s")
		return nil
	}
}

// artifactsDir is where a world's screenshots go: test/artifacts for
// ROS 1 (as before both transports ran), test/artifacts/ros2 for ROS 2.
func artifactsDir(tr transport) (string, error) {
	if tr == ros2 {
		return filepath.Abs(filepath.Join("artifacts", "ros2"))
	}
	return filepath.Abs("artifacts")
}

// callQuiet calls a tool without failing the test (for calls a crash cuts).
func callQuiet(cs *mcp.ClientSession, tool string, args any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _, err := bridgetest.Try(ctx, cs, tool, args)
	return out, err
}

// simConfig writes the shipped config of transport tr with the given
// literal edits (and limits_file made absolute) to a temporary file; an
// edit whose text is no longer in the config fails the test, so a config
// change is noticed.
func simConfig(t *testing.T, tr transport, edits map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(defaultConfig(tr))
	if err != nil {
		t.Fatal(err)
	}
	limits, err := filepath.Abs("../launch/joint_limits.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "limits_file: ../joint_limits.yaml", "limits_file: "+limits, 1)
	for old, repl := range edits {
		if !strings.Contains(cfg, old) {
			t.Fatalf("%s no longer has %q", defaultConfig(tr), old)
		}
		cfg = strings.Replace(cfg, old, repl, 1)
	}
	path := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
