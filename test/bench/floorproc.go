package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/actbridge/actbridge/ros1/roslink"
)

// floorEnv selects what the re-executed test binary does instead of tests.
const floorEnv = "ACTBRIDGE_BENCH_FLOOR"

// Floor process modes.
const (
	floorHTTP        = "http"         // a bare net/http server answering POSTs
	floorJointStates = "joint_states" // a bare goroslib /joint_states subscriber
)

// bodyAtHeader carries the unix nanoseconds at which the bare HTTP server
// had read a request's body (one clock: the same machine).
const bodyAtHeader = "X-Bench-Body-At"

// floorResponse is what the bare HTTP server answers: about the size of a
// joints_read result over MCP (an SSE event carrying the JSON twice).
var floorResponse = []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 560) + `"}],"structuredContent":{"joints":"` + strings.Repeat("y", 560) + `"}}}`)

// RunFloorProcess runs a floor process when this binary was started as
// one, and then exits; it returns (doing nothing) otherwise. Call it first
// in TestMain.
func RunFloorProcess() {
	mode := os.Getenv(floorEnv)
	if mode == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var err error
	switch mode {
	case floorHTTP:
		err = serveFloorHTTP(ctx)
	case floorJointStates:
		err = subscribeFloorJointStates(ctx)
	case floorHammer:
		err = runHammer(ctx)
	case rtpsPing, rtpsPub, rtpsIngest, rtpsJSPub, udpEcho, rtpsEcho, udpSink:
		err = runRTPSJob(ctx, mode)
	default:
		err = fmt.Errorf("unknown floor mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveFloorHTTP(ctx context.Context) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		// When the request was in, for the confirm row's HTTP reference.
		w.Header().Set(bodyAtHeader, strconv.FormatInt(time.Now().UnixNano(), 10))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(floorResponse)
	})}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("listening %s\n", ln.Addr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

func subscribeFloorJointStates(ctx context.Context) error {
	env, err := roslink.EnvFromOS()
	if err != nil {
		return err
	}
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: fmt.Sprintf("bench_floor_%d", os.Getpid()), MasterAddress: env.MasterAddress,
		Host: "127.0.0.1", LogDestinations: goroslib.LogDestinationCallback, OnLog: func(goroslib.LogLevel, string) {}})
	if err != nil {
		return err
	}
	defer n.Close()
	// What a subscriber must do at least: decode and keep the latest message.
	var count atomic.Int64
	var latest atomic.Pointer[sensor_msgs.JointState]
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: n, Topic: "/joint_states", Callback: func(m *sensor_msgs.JointState) {
		latest.Store(m)
		count.Add(1)
	}})
	if err != nil {
		return err
	}
	defer sub.Close()
	fmt.Println("subscribed")
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			fmt.Printf("count %d\n", count.Load())
		}
	}
}

// startFloor re-executes this test binary as a floor process.
func startFloor(e *Env, mode string, env []string) *proc {
	e.TB.Helper()
	return startProc(e.TB, e.Self, "floor-"+mode, append(env, floorEnv+"="+mode), "-test.run=^$")
}

// floorHTTPAddr starts the bare HTTP server and returns it with its address.
func floorHTTPServer(e *Env) (*proc, string) {
	p := startFloor(e, floorHTTP, nil)
	p.WaitOutput(e.TB, "listening ", 30*time.Second)
	out := p.Output()
	addr := strings.Fields(out[strings.Index(out, "listening ")+len("listening "):])[0]
	return p, addr
}

// lastCount is the last "count N" line a joint_states floor printed.
func lastCount(p *proc) int64 { return int64(lastCountOf(p.Output())) }

// SelfBinary is the running test binary, for re-execution.
func SelfBinary(tb testing.TB) string {
	p, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	p, _ = filepath.EvalSymlinks(p)
	return p
}
