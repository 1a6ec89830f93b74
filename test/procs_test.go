package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// binDir holds the binaries built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "actbridge-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	cmd := exec.Command("go", "build", "-o", dir+"/", "../cmd/actbridge", "../cmd/simrobot")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building binaries:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a child process a test owns (rostest stops it by pid).
type proc = rostest.Process

func start(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	return rostest.StartProcess(t, filepath.Join(binDir, name), name, env, args...)
}

// world is a master, a simulated robot and a bridge, each a real process.
type world struct {
	t       *testing.T
	master  *rostest.Master
	sim     *proc
	bridge  *bridgetest.Bridge
	addr    string // bridge HTTP address, kept across restarts
	dataDir string
	node    *goroslib.Node
}

type worldOpts struct {
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
	w := &world{t: t, master: rostest.StartMaster(t), dataDir: t.TempDir()}
	w.sim = start(t, "simrobot", w.master.Env(), o.simArgs...)
	w.waitOutput(w.sim, "serving", 30*time.Second)
	if !o.noBridge {
		w.startBridge(o)
	}
	return w
}

func (w *world) startBridge(o worldOpts) {
	w.t.Helper()
	cfg := o.config
	if cfg == "" {
		cfg = "../launch/robots/sim.yaml"
	}
	args := append([]string{"--config", cfg, "--data-dir", w.dataDir, "--wait-master", "20s"}, o.bridgeArgs...)
	bin := "actbridge"
	if o.crashpoints {
		bin = crashpointsBinary(w.t)
	}
	w.bridge = bridgetest.Start(w.t, filepath.Join(binDir, bin), w.addr, append(w.master.Env(), o.bridgeEnv...), args...)
	w.addr = w.bridge.Addr
}

func (w *world) waitOutput(p *proc, s string, d time.Duration) {
	w.t.Helper()
	p.WaitOutput(w.t, s, d)
}

// rosNode is a goroslib node of the test itself (service calls, topics).
func (w *world) rosNode() *goroslib.Node {
	w.t.Helper()
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

func (w *world) trigger(service string) string {
	w.t.Helper()
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

// setFault sets /simrobot/faults/<key> and applies it.
func (w *world) setFault(key string, v any) {
	w.t.Helper()
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
	w.trigger("/simrobot/apply_faults")
}

// callQuiet calls a tool without failing the test (for calls a crash cuts).
func callQuiet(cs *mcp.ClientSession, tool string, args any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _, err := bridgetest.Try(ctx, cs, tool, args)
	return out, err
}

// simConfig writes launch/robots/sim.yaml with the given literal edits
// (and limits_file made absolute) to a temporary file; an edit whose text
// is no longer in sim.yaml fails the test, so a config change is noticed.
func simConfig(t *testing.T, edits map[string]string) string {
	t.Helper()
	b, err := os.ReadFile("../launch/robots/sim.yaml")
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
			t.Fatalf("sim.yaml no longer has %q", old)
		}
		cfg = strings.Replace(cfg, old, repl, 1)
	}
	path := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
