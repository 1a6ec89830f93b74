package roslink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bluenviron/goroslib/v2"
)

// CloseTimeout bounds Close: goroslib's Node.Close can take seconds, and a
// caller's teardown may hang; Close gives up on them after this long.
const CloseTimeout = 5 * time.Second

// Setup creates what a node needs (publishers, subscribers, servers) and
// returns how to release it. Link calls it again on every new node, so it
// must not assume it runs once. The previous node's teardown may run after
// the next node's setup: it must release only what its own setup created.
type Setup func(n *goroslib.Node) (teardown func(), err error)

// Config says which master to use and how to watch it.
type Config struct {
	// Env locates the master; the zero Env means the default local master.
	Env Env
	// Name is the node name without namespace (ROS_NAMESPACE applies).
	Name string
	// CheckInterval is how often the master is polled for a restart; 1 s if zero.
	CheckInterval time.Duration
	// WaitForMaster makes Open retry until ctx ends when no master answers;
	// otherwise Open fails at once with ErrMasterUnreachable.
	WaitForMaster bool
	// Logf receives reconnect events; log.Printf if nil.
	Logf func(format string, args ...any)
}

// Link keeps one goroslib node registered with the master. goroslib never
// registers again after a master restart; Link notices the restart, creates
// a fresh node under the same name and runs Setup on it.
//
// Create everything in Setup: things made directly on Node() are lost at the
// next restart, and the node they live on is closed.
type Link struct {
	cfg   Config
	setup Setup
	name  string // absolute node name, as the master knows it
	probe *masterProbe

	mu     sync.Mutex
	cur    *incarnation // nil once closed
	closed bool

	reachable atomic.Bool
	reregs    atomic.Uint64

	stop      context.CancelFunc
	watching  sync.WaitGroup // the watch goroutine
	retiring  sync.WaitGroup // old nodes being torn down and closed
	closeOnce sync.Once
	closeErr  error
}

// incarnation is one goroslib node and what Setup made on it.
type incarnation struct {
	node      *goroslib.Node
	teardown  func()
	uri       string // the slave API URI the master has for the node
	masterPid int    // pid of the master it registered with
}

// Open creates the node, runs setup on it and starts watching the master.
// ctx bounds Open only; the Link lives until Close.
func Open(ctx context.Context, c Config, setup Setup) (*Link, error) {
	if c.Name == "" || strings.Contains(c.Name, "/") {
		return nil, fmt.Errorf("roslink: node name %q must be non-empty and without '/' (use ROS_NAMESPACE for a namespace)", c.Name)
	}
	if c.Env.MasterAddress == "" {
		def, err := EnvFrom(func(string) string { return "" })
		if err != nil {
			return nil, err
		}
		c.Env.MasterAddress = def.MasterAddress
		if c.Env.Host == "" {
			c.Env.Host = def.Host
		}
	}
	if c.CheckInterval <= 0 {
		c.CheckInterval = time.Second
	}
	if c.Logf == nil {
		c.Logf = log.Printf
	}
	if setup == nil {
		setup = func(*goroslib.Node) (func(), error) { return func() {}, nil }
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("roslink: open: %w", err)
	}
	name := absoluteNodeName(c.Name)
	l := &Link{cfg: c, setup: setup, name: name, probe: newMasterProbe(c.Env.MasterAddress, name)}

	for {
		inc, err := l.connect()
		if err == nil {
			l.cur = inc
			break
		}
		if !c.WaitForMaster || !errors.Is(err, ErrMasterUnreachable) {
			l.waitRetired()
			if errors.Is(err, ErrMasterUnreachable) {
				err = fmt.Errorf("%w (is rosmaster running? ROS_MASTER_URI must point at it)", err)
			}
			return nil, err
		}
		select {
		case <-ctx.Done():
			l.waitRetired()
			return nil, fmt.Errorf("roslink: waiting for master: %w (last: %v)", ctx.Err(), err)
		case <-time.After(c.CheckInterval):
		}
	}
	l.reachable.Store(true)

	wctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	l.watching.Add(1)
	go func() {
		defer l.watching.Done()
		l.watch(wctx)
	}()
	return l, nil
}

// Node is the current node. It changes after a master restart and is nil
// after Close; do not keep it across calls.
func (l *Link) Node() *goroslib.Node {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return nil
	}
	return l.cur.node
}

// MasterReachable reports whether the master answered the last poll.
func (l *Link) MasterReachable() bool { return l.reachable.Load() }

// Reregistrations counts the nodes created after master restarts.
func (l *Link) Reregistrations() uint64 { return l.reregs.Load() }

// Close tears down and closes the node. It returns within about
// CloseTimeout; if goroslib or a teardown hangs, it returns ErrCloseTimeout
// and leaves that one goroutine behind.
func (l *Link) Close() error {
	l.closeOnce.Do(func() {
		l.stop()
		l.mu.Lock()
		cur := l.cur
		l.cur, l.closed = nil, true
		l.mu.Unlock()
		if cur != nil {
			l.retire(cur)
		}
		// Wait for the watcher first: it may still retire a node.
		deadline := time.Now().Add(CloseTimeout)
		if !waitBounded(&l.watching, time.Until(deadline)) || !waitBounded(&l.retiring, time.Until(deadline)) {
			l.closeErr = fmt.Errorf("roslink: node %s: %w after %s", l.name, ErrCloseTimeout, CloseTimeout)
		}
	})
	return l.closeErr
}

// waitRetired waits, bounded, for nodes retired by a failed Open.
func (l *Link) waitRetired() {
	if !waitBounded(&l.retiring, CloseTimeout) {
		l.logf("node %s: %v after %s", l.name, ErrCloseTimeout, CloseTimeout)
	}
}

// waitBounded waits for wg for at most d and reports whether it finished.
// On timeout the waiting goroutine stays until wg finishes.
func waitBounded(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// connect creates a node, runs setup on it and records which master it
// registered with.
func (l *Link) connect() (*incarnation, error) {
	pid, err := l.probe.pid()
	if err != nil {
		return nil, fmt.Errorf("roslink: %w", err)
	}
	node, err := goroslib.NewNode(goroslib.NodeConf{
		MasterAddress: l.cfg.Env.MasterAddress,
		Name:          l.cfg.Name,
		Host:          l.cfg.Env.Host,
	})
	if err != nil {
		hint := ""
		if l.cfg.Env.Host == "" {
			hint = " (set ROS_IP or ROS_HOSTNAME to the address other nodes reach this one at)"
		}
		return nil, fmt.Errorf("roslink: create node %s on master %s: %w%s", l.name, l.cfg.Env.MasterAddress, err, hint)
	}
	inc := &incarnation{node: node, masterPid: pid}
	teardown, err := l.setup(node)
	if teardown != nil {
		inc.teardown = teardown
	}
	if err != nil {
		l.retire(inc)
		if connectionLost(err) {
			// rosmaster's XML-RPC server resets connections past its small
			// listen backlog: a setup cut off that way is worth another try.
			return nil, fmt.Errorf("roslink: setup on node %s: %w: %w", l.name, ErrMasterUnreachable, err)
		}
		return nil, fmt.Errorf("roslink: setup on node %s: %w", l.name, err)
	}
	uri, known, err := l.probe.lookupNode(l.name)
	if err == nil && !known {
		err = fmt.Errorf("master at %s does not know node %s right after it registered (name remapped?)", l.cfg.Env.MasterAddress, l.name)
	}
	if err != nil {
		l.retire(inc)
		return nil, fmt.Errorf("roslink: %w", err)
	}
	inc.uri = uri
	return inc, nil
}

// connectionLost reports whether err is a connection to the master that
// failed (refused, reset, cut short) rather than an answer refusing the call.
func connectionLost(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// retire tears down and closes an incarnation in the background: goroslib's
// Close may be slow and must not delay the new node. It cannot hurt the new
// node's registrations: the master drops registrations only for the exact
// caller URI, and the old node keeps its own ports until it is closed.
func (l *Link) retire(inc *incarnation) {
	l.retiring.Add(1)
	go func() {
		defer l.retiring.Done()
		if inc.teardown != nil {
			inc.teardown()
		}
		inc.node.Close()
	}()
}

// watch polls the master until ctx ends, re-registering after a restart.
func (l *Link) watch(ctx context.Context) {
	t := time.NewTicker(l.cfg.CheckInterval)
	defer t.Stop()
	var displacedBy string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		displacedBy = l.check(displacedBy)
	}
}

// check runs one poll. A master with a new pid, or one that no longer knows
// our node, gets a new node. A master that knows our name at another URI
// means a newer node took the name; ROS lets the newest win, so we wait.
func (l *Link) check(displacedBy string) string {
	l.mu.Lock()
	cur := l.cur
	l.mu.Unlock()
	if cur == nil {
		return displacedBy
	}

	pid, err := l.probe.pid()
	if err != nil {
		if l.reachable.Swap(false) {
			l.logf("%v; keeping node %s, will register again when a master answers", err, l.name)
		}
		return displacedBy
	}
	if !l.reachable.Swap(true) {
		l.logf("master at %s answers again (pid %d)", l.cfg.Env.MasterAddress, pid)
	}

	reason := ""
	if pid != cur.masterPid {
		reason = fmt.Sprintf("master restarted (pid %d, was %d)", pid, cur.masterPid)
	} else {
		uri, known, err := l.probe.lookupNode(l.name)
		switch {
		case err != nil:
			return displacedBy
		case !known:
			reason = "master no longer knows node " + l.name
		case uri != cur.uri:
			if uri != displacedBy {
				l.logf("node name %s was taken by another process at %s; not competing for it", l.name, uri)
			}
			return uri
		default:
			return ""
		}
	}

	l.logf("%s; registering node %s again", reason, l.name)
	next, err := l.connect()
	if err != nil {
		l.logf("register again failed, retrying in %s: %v", l.cfg.CheckInterval, err)
		return displacedBy
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		l.retire(next)
		return ""
	}
	old := l.cur
	l.cur = next
	l.mu.Unlock()
	l.reregs.Add(1)
	l.retire(old)
	l.logf("node %s registered again at %s", l.name, next.uri)
	return ""
}

func (l *Link) logf(format string, args ...any) {
	l.cfg.Logf("roslink: "+format, args...)
}

// absoluteNodeName is the name goroslib registers: ROS_NAMESPACE (which
// goroslib reads itself) joined with name.
func absoluteNodeName(name string) string {
	ns := os.Getenv("ROS_NAMESPACE")
	if ns == "" || ns == "/" {
		return "/" + name
	}
	return strings.TrimSuffix(ns, "/") + "/" + name
}
