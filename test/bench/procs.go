package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"

	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/test/bridgetest"
)

// OperatorToken is the operator's bearer token of the world: it runs as
// the loopback demo (no token configured, the planner needs none), so it
// is the one the bridge wrote to its data dir; only estop_reset carries it.
func (w *World) OperatorToken() string {
	b, err := os.ReadFile(filepath.Join(w.DataDir, "operator.token"))
	if err != nil {
		w.env.TB.Fatalf("the bridge's operator token: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// Env is what every measurement needs: a test or benchmark that owns the
// processes, the binaries, and this test binary (re-executed as the floor
// processes, see floorproc.go).
type Env struct {
	TB     testing.TB
	BinDir string // holds actbridge and simrobot
	Self   string // this test binary
	Module string // the module root, for go test of other packages
	Logf   func(format string, args ...any)
}

func (e *Env) logf(format string, args ...any) {
	if e.Logf != nil {
		e.Logf(format, args...)
	}
}

// proc is a child process owned by a test; rostest stops it by pid.
type proc = rostest.Process

func startProc(tb testing.TB, path, name string, env []string, args ...string) *proc {
	tb.Helper()
	return rostest.StartProcess(tb, path, name, env, args...)
}

func tail(s string, n int) string { return rostest.Tail(s, n) }

func freeAddr(tb testing.TB) string {
	tb.Helper()
	return bridgetest.FreeAddr(tb)
}

// World is a real rosmaster, bin/simrobot and bin/actbridge, each a process
// killed by pid when the test ends; a ROS 2 world (newROS2World) has no
// master.
type World struct {
	env     *Env
	Master  *rostest.Master
	Sim     *proc
	Bridge  *proc
	Addr    string // the bridge's HTTP address
	DataDir string
	// ProfDir, when set, is where the stop rows write an execution trace
	// and a CPU profile of the bridge (run with --pprof) under their load.
	ProfDir string

	mu        sync.Mutex
	nodes     int
	transport *http.Transport // every bench client's, stamped by wire
	wire      wireClock
	closers   []func() // run last first by Close
	closed    bool
}

// profileEnv names a directory: the ROS 1 world's bridge then runs with
// --pprof, and the stop rows write stop.trace (an execution trace of 5 s
// of the stop loop, for go tool trace) and stop.pprof (a CPU profile of
// 30 s) there.
const profileEnv = "ACTBRIDGE_BENCH_PROFILE"

// WorldOpts tunes a world.
type WorldOpts struct {
	SimArgs    []string
	BridgeArgs []string
}

// NewWorld starts a master, the sim and the bridge, and waits until the
// bridge reports every actuator connected.
func NewWorld(e *Env, o WorldOpts) *World {
	tb := e.TB
	tb.Helper()
	w := &World{env: e, Master: rostest.StartMaster(tb), DataDir: tb.TempDir(), ProfDir: os.Getenv(profileEnv)}
	tb.Cleanup(w.Close)
	w.Sim = startProc(tb, filepath.Join(e.BinDir, "simrobot"), "simrobot", w.Master.Env(), o.SimArgs...)
	w.Sim.WaitOutput(tb, "serving", 60*time.Second)
	w.Addr = freeAddr(tb)
	args := append([]string{"serve", "--config", filepath.Join(e.Module, "launch/robots/sim.yaml"),
		"--listen", w.Addr, "--data-dir", w.DataDir, "--wait-master", "30s"}, o.BridgeArgs...)
	if w.ProfDir != "" {
		args = append(args, "--pprof")
	}
	w.Bridge = startProc(tb, filepath.Join(e.BinDir, "actbridge"), "actbridge",
		append(w.Master.Env(), "ACTBRIDGE_OPERATOR_TOKEN=", "ACTBRIDGE_PLANNER_TOKEN="), args...)
	w.waitReady()
	return w
}

// readyTimeout bounds a world's bridge start: longer than a test's
// (bridgetest.ReadyTimeout), as a bench world starts on a machine the
// previous measurement may still load.
const readyTimeout = 90 * time.Second

// waitReady waits until the bridge reports every actuator connected.
func (w *World) waitReady() {
	tb := w.env.TB
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	b := bridgetest.Bridge{Process: w.Bridge, Addr: w.Addr}
	if err := b.AwaitReady(ctx); err != nil {
		tb.Fatalf("bridge not ready: %v\n%s", err, tail(w.Bridge.Output(), 3000))
	}
}

// Node makes a goroslib node of the bench process itself; Close closes it.
func (w *World) Node() *goroslib.Node {
	tb := w.env.TB
	tb.Helper()
	w.mu.Lock()
	w.nodes++
	name := fmt.Sprintf("bench_%d_%d", os.Getpid(), w.nodes)
	w.mu.Unlock()
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: name, MasterAddress: w.Master.Address(), Host: "127.0.0.1",
		LogDestinations: goroslib.LogDestinationCallback, OnLog: func(goroslib.LogLevel, string) {}})
	if err != nil {
		tb.Fatalf("goroslib node: %v", err)
	}
	w.onClose(n.Close)
	return n
}

// onClose registers f to run when the world closes, before the processes
// stop; the last registered runs first.
func (w *World) onClose(f func()) {
	w.mu.Lock()
	w.closers = append(w.closers, f)
	w.mu.Unlock()
}

// Close closes the bench's own sessions, subscribers and nodes (each
// bounded), then stops the bridge, the sim and the master by pid. The test
// calls it at cleanup; call it earlier to free the machine for the next
// measurement.
func (w *World) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	cs := w.closers
	w.closers = nil
	w.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		done := make(chan struct{})
		go func() { cs[i](); close(done) }()
		select {
		case <-done:
		case <-time.After(6 * time.Second):
		}
	}
	if w.Bridge != nil {
		w.Bridge.Stop(syscall.SIGTERM)
	}
	if w.Sim != nil {
		w.Sim.Stop(syscall.SIGTERM)
	}
	if w.Master != nil { // a ROS 2 world has none
		w.Master.Kill()
	}
	if w.transport != nil {
		w.transport.CloseIdleConnections()
	}
}
