package roslink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/actbridge/actbridge/ros1/rostest"
)

const (
	toolTimeout = 30 * time.Second // one ROS CLI call; Python start-up is slow on a busy machine
	pollTimeout = 20 * time.Second // outer bound for "eventually" conditions
)

// probeSetup is a Setup that registers one of each kind of thing (latched
// publisher, subscriber, service) and counts setups and teardowns.
type probeSetup struct {
	setups, teardowns atomic.Int32
}

func (p *probeSetup) setup(n *goroslib.Node) (func(), error) {
	gen := p.setups.Add(1)
	pub, err := goroslib.NewPublisher(goroslib.PublisherConf{
		Node: n, Topic: "/roslink_test/chatter", Msg: &std_msgs.String{}, Latch: true,
	})
	if err != nil {
		return nil, err
	}
	pub.Write(&std_msgs.String{Data: fmt.Sprintf("incarnation %d", gen)})
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{
		Node: n, Topic: "/roslink_test/in", Callback: func(*std_msgs.String) {},
	})
	if err != nil {
		pub.Close()
		return nil, err
	}
	srv, err := goroslib.NewServiceProvider(goroslib.ServiceProviderConf{
		Node: n, Name: "/roslink_test/trigger", Srv: &std_srvs.Trigger{},
		Callback: func(*std_srvs.TriggerReq) (*std_srvs.TriggerRes, bool) {
			return &std_srvs.TriggerRes{Success: true, Message: fmt.Sprintf("incarnation %d", gen)}, true
		},
	})
	if err != nil {
		sub.Close()
		pub.Close()
		return nil, err
	}
	return func() {
		srv.Close()
		sub.Close()
		pub.Close()
		p.teardowns.Add(1)
	}, nil
}

func openTestLink(t *testing.T, m *rostest.Master, setup Setup) *Link {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), pollTimeout)
	defer cancel()
	l, err := Open(ctx, Config{
		Env:  Env{MasterAddress: m.Address(), Host: "127.0.0.1"},
		Name: "roslink_test",
		Logf: t.Logf,
	}, setup)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		// goroslib's own close can exceed the bound on a loaded machine; the
		// tests that are about closing check Close themselves.
		if err := l.Close(); err != nil && !errors.Is(err, ErrCloseTimeout) {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

// graphHas checks the master's view through the official tools: the node
// is listed, and its publisher, subscriber and service are attributed to it.
func graphHas(m *rostest.Master) error {
	out, err := m.Run(toolTimeout, "rosnode", "list")
	if err != nil {
		return err
	}
	if !hasLine(out, "/roslink_test") {
		return fmt.Errorf("rosnode list lacks /roslink_test:\n%s", out)
	}
	out, err = m.Run(toolTimeout, "rosnode", "info", "/roslink_test")
	if err != nil {
		return err
	}
	for _, want := range []string{
		"Publications: \n * /roslink_test/chatter [std_msgs/String]",
		"Subscriptions: \n * /roslink_test/in",
		"Services: \n * /roslink_test/trigger",
	} {
		if !strings.Contains(out, want) {
			return fmt.Errorf("rosnode info /roslink_test lacks %q:\n%s", want, out)
		}
	}
	return nil
}

func hasLine(out, want string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}

func TestLinkRegistersAgainAfterMasterRestart(t *testing.T) {
	m := rostest.StartMaster(t)
	p := &probeSetup{}
	l := openTestLink(t, m, p.setup)
	first := l.Node()
	if err := graphHas(m); err != nil {
		t.Fatalf("before restart: %v", err)
	}

	m.Kill()
	rostest.Eventually(t, pollTimeout, "link notices the master is gone", func() error {
		if l.MasterReachable() {
			return errors.New("MasterReachable() is still true")
		}
		return nil
	})
	if l.Node() != first || l.Reregistrations() != 0 {
		t.Fatalf("link replaced its node while the master was down (reregistrations %d)", l.Reregistrations())
	}

	m.Restart()
	restarted := time.Now()
	// The requirement is 5 s; polling here is cheap and in-process, so the
	// bound only fails when re-registration really is late.
	for l.Reregistrations() == 0 {
		if time.Since(restarted) > 5*time.Second {
			t.Fatalf("no new node 5s after the master came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("registered again %s after the master answered", time.Since(restarted).Round(time.Millisecond))
	if l.Node() == first {
		t.Errorf("Node() still returns the node of the dead master")
	}
	if !l.MasterReachable() {
		t.Errorf("MasterReachable() = false after re-registration")
	}

	rostest.Eventually(t, pollTimeout, "graph shows the new registrations", func() error { return graphHas(m) })
	out, err := m.Run(toolTimeout, "rostopic", "echo", "-n", "1", "/roslink_test/chatter")
	if err != nil || !strings.Contains(out, "incarnation 2") {
		t.Fatalf("rostopic echo from the new publisher: %v\n%s", err, out)
	}
	out, err = m.Run(toolTimeout, "rosservice", "call", "/roslink_test/trigger")
	if err != nil || !strings.Contains(out, "incarnation 2") {
		t.Fatalf("rosservice call to the new provider: %v\n%s", err, out)
	}

	// The old node's teardown unregisters with the same caller id on the
	// new master; the new node's registrations must survive it.
	rostest.Eventually(t, pollTimeout, "old node torn down", func() error {
		if got := p.teardowns.Load(); got != 1 {
			return fmt.Errorf("%d teardowns, want 1", got)
		}
		return nil
	})
	if err := graphHas(m); err != nil {
		t.Fatalf("after the old node closed: %v", err)
	}
}

func TestLinkRegistersAgainAfterEveryRestart(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	p := &probeSetup{}
	l := openTestLink(t, m, p.setup)
	for i := 1; i <= 3; i++ {
		m.Restart()
		rostest.Eventually(t, pollTimeout, "re-registration", func() error {
			if got := l.Reregistrations(); got != uint64(i) {
				return fmt.Errorf("Reregistrations() = %d, want %d", got, i)
			}
			return nil
		})
	}
	if err := graphHas(m); err != nil {
		t.Fatal(err)
	}
	if got := p.setups.Load(); got != 4 {
		t.Errorf("setup ran %d times, want 4 (open + 3 restarts)", got)
	}
}

func TestCloseTearsDownAndUnregisters(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	p := &probeSetup{}
	l := openTestLink(t, m, p.setup)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if p.teardowns.Load() != 1 {
		t.Errorf("teardowns after Close = %d, want 1", p.teardowns.Load())
	}
	if l.Node() != nil {
		t.Errorf("Node() after Close is not nil")
	}
	out, err := m.Run(toolTimeout, "rosnode", "list")
	if err != nil {
		t.Fatal(err)
	}
	if hasLine(out, "/roslink_test") {
		t.Errorf("node still listed after Close:\n%s", out)
	}
}

func TestCloseReturnsWhenTeardownHangs(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	l, err := Open(t.Context(), Config{Env: Env{MasterAddress: m.Address(), Host: "127.0.0.1"}, Name: "roslink_test"},
		func(*goroslib.Node) (func(), error) { return func() { <-release }, nil })
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	start := time.Now()
	err = l.Close()
	if !errors.Is(err, ErrCloseTimeout) {
		t.Errorf("Close with a hung teardown = %v, want ErrCloseTimeout", err)
	}
	if d := time.Since(start); d > CloseTimeout+5*time.Second {
		t.Errorf("Close took %s, want about %s", d, CloseTimeout)
	}
	if err2 := l.Close(); !errors.Is(err2, ErrCloseTimeout) {
		t.Errorf("second Close = %v, want the same error", err2)
	}
}

func TestOpenFailsFastWithoutMaster(t *testing.T) {
	addr := closedPortAddress(t)
	start := time.Now()
	_, err := Open(t.Context(), Config{Env: Env{MasterAddress: addr, Host: "127.0.0.1"}, Name: "roslink_test"}, nil)
	if !errors.Is(err, ErrMasterUnreachable) {
		t.Fatalf("Open without master = %v, want ErrMasterUnreachable", err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q does not name the address %s", err, addr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open took %s to fail", d)
	}
}

func TestOpenWaitsForMasterWhenAsked(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	m.Kill()

	type result struct {
		l   *Link
		err error
	}
	res := make(chan result, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 2*pollTimeout)
	defer cancel()
	go func() {
		l, err := Open(ctx, Config{
			Env: Env{MasterAddress: m.Address(), Host: "127.0.0.1"}, Name: "roslink_test",
			WaitForMaster: true, CheckInterval: 200 * time.Millisecond, Logf: t.Logf,
		}, nil)
		res <- result{l, err}
	}()
	select {
	case r := <-res:
		t.Fatalf("Open returned before a master existed: %v", r.err)
	case <-time.After(time.Second):
	}
	m.Restart()
	r := <-res
	if r.err != nil {
		t.Fatalf("Open: %v", r.err)
	}
	defer r.l.Close()
	if r.l.Node() == nil {
		t.Fatal("Node() is nil after Open")
	}
}

func TestOpenWaitingForMasterStopsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := Open(ctx, Config{
		Env: Env{MasterAddress: closedPortAddress(t), Host: "127.0.0.1"}, Name: "roslink_test",
		WaitForMaster: true, CheckInterval: 100 * time.Millisecond,
	}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open = %v, want context.DeadlineExceeded", err)
	}
}

func TestOpenRejectsNamesWithSlash(t *testing.T) {
	for _, name := range []string{"", "ns/node", "/node"} {
		if _, err := Open(t.Context(), Config{Name: name}, nil); err == nil {
			t.Errorf("Open with name %q succeeded", name)
		}
	}
}

func TestSetupErrorFailsOpenAndClosesNode(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	boom := errors.New("boom")
	_, err := Open(t.Context(), Config{Env: Env{MasterAddress: m.Address(), Host: "127.0.0.1"}, Name: "roslink_test"},
		func(*goroslib.Node) (func(), error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Open = %v, want the setup error", err)
	}
	rostest.Eventually(t, pollTimeout, "failed node unregistered", func() error {
		out, err := m.Run(toolTimeout, "rosnode", "list")
		if err != nil {
			return err
		}
		if hasLine(out, "/roslink_test") {
			return fmt.Errorf("node still listed:\n%s", out)
		}
		return nil
	})
}

// closedPortAddress returns a loopback address nobody listens on.
func closedPortAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

func TestLinkYieldsNameToNewerNodeAndReturnsWhenItLeaves(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	l, err := Open(t.Context(), Config{
		Env: Env{MasterAddress: m.Address(), Host: "127.0.0.1"}, Name: "roslink_test",
		CheckInterval: 200 * time.Millisecond, Logf: t.Logf,
	}, (&probeSetup{}).setup)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer l.Close()

	// ROS lets the newest node with a name win; the master tells the old
	// one to shut down.
	other, err := goroslib.NewNode(goroslib.NodeConf{MasterAddress: m.Address(), Name: "roslink_test", Host: "127.0.0.1"})
	if err != nil {
		t.Fatalf("second node: %v", err)
	}
	time.Sleep(10 * 200 * time.Millisecond) // ten polls
	if got := l.Reregistrations(); got != 0 {
		t.Errorf("link took the name back from a newer node (%d reregistrations)", got)
	}

	other.Close()
	rostest.Eventually(t, pollTimeout, "link registers once the name is free", func() error {
		if l.Reregistrations() == 0 {
			return errors.New("no re-registration yet")
		}
		return graphHas(m)
	})
}

func TestSetupCutOffByTheMasterIsTriedAgainWhileWaitingForIt(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	// What goroslib returns when rosmaster resets a connection past its
	// listen backlog: an url.Error around a net.OpError.
	reset := &url.Error{Op: "Post", URL: "http://" + m.Address() + "/RPC2",
		Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}
	for _, wait := range []bool{true, false} {
		var calls atomic.Int32
		setup := func(*goroslib.Node) (func(), error) {
			if calls.Add(1) == 1 {
				return nil, fmt.Errorf("subscribe /x: %w", reset)
			}
			return func() {}, nil
		}
		ctx, cancel := context.WithTimeout(t.Context(), pollTimeout)
		l, err := Open(ctx, Config{Env: Env{MasterAddress: m.Address(), Host: "127.0.0.1"}, Name: "roslink_test",
			WaitForMaster: wait, CheckInterval: 100 * time.Millisecond, Logf: t.Logf}, setup)
		cancel()
		switch {
		case wait && err != nil:
			t.Fatalf("waiting for the master, Open = %v after a reset setup; want a second try", err)
		case wait:
			if got := calls.Load(); got != 2 {
				t.Errorf("setup ran %d times, want 2", got)
			}
			l.Close()
		case !errors.Is(err, ErrMasterUnreachable):
			t.Fatalf("not waiting, Open = %v, want ErrMasterUnreachable", err)
		}
	}
}
