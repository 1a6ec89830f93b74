package bridgetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"
)

// ReadyTimeout bounds how long a started bridge may take to say ready: a
// busy 2-core machine, a ROS 1 master to reach or a ROS 2 graph to discover.
const ReadyTimeout = 40 * time.Second

// Bridge is one `actbridge serve` process a test owns and the HTTP address
// it listens on. Its Process stops it by pid (SIGTERM, then SIGKILL) in the
// test's cleanup and logs its output when the test failed.
type Bridge struct {
	*rostest.Process
	Addr string
}

// ErrExited means the bridge ended before it said ready.
var ErrExited = errors.New("bridgetest: the bridge exited")

// Start runs bin `serve --listen addr args...` with env added to the
// test's environment and waits until it is ready. An empty addr takes a
// free loopback port; pass a stopped bridge's Addr to restart it in place.
func Start(t testing.TB, bin, addr string, env []string, args ...string) *Bridge {
	t.Helper()
	if addr == "" {
		addr = FreeAddr(t)
	}
	b := &Bridge{Addr: addr}
	b.Process = rostest.StartProcess(t, bin, "actbridge", env, append([]string{"serve", "--listen", addr}, args...)...)
	b.WaitReady(t)
	return b
}

// URL is the bridge's HTTP base URL.
func (b *Bridge) URL() string { return "http://" + b.Addr }

// WaitReady waits up to ReadyTimeout until /healthz answers ready (the
// robot link up and every actuator connected); it fails t with the
// bridge's output if it is not, or if the bridge exits first.
func (b *Bridge) WaitReady(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	if err := b.AwaitReady(ctx); err != nil {
		t.Fatalf("the bridge on %s is not ready: %v\n%s", b.Addr, err, rostest.Tail(b.Output(), 4000))
	}
}

// AwaitReady waits until /healthz answers ready; it fails with ErrExited
// as soon as the bridge exits, or with ctx's error and the last answer.
// WaitReady is it with ReadyTimeout, for a caller that needs another bound.
func (b *Bridge) AwaitReady(ctx context.Context) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	for {
		err := ready(hc, b.URL()+"/healthz")
		if err == nil {
			return nil
		}
		select {
		case <-b.Done():
			return ErrExited
		case <-ctx.Done():
			return fmt.Errorf("%w (last answer: %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func ready(hc *http.Client, url string) error {
	resp, err := hc.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var h struct {
		Ready bool `json:"ready"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return err
	}
	if !h.Ready {
		return fmt.Errorf("healthz %d: not ready", resp.StatusCode)
	}
	return nil
}

// FreeAddr is a loopback host:port free when asked.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(FreePort(t)))
}

// FreePort is a loopback TCP port free when asked.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
