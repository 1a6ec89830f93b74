package rostest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/xmlrpc"
)

// MasterBinary is where Debian installs rosmaster; tests skip when it is absent.
const MasterBinary = "/usr/bin/rosmaster"

// StartTimeout bounds how long a master may take to answer after it is
// started; Python start-up on a busy 2-core machine can take seconds.
const StartTimeout = 30 * time.Second

// Master is a rosmaster process owned by one test. Kill and Restart keep the
// port, so nodes can see the same master URI come back as a new process.
type Master struct {
	t      testing.TB
	port   int
	logDir string

	mu  sync.Mutex
	cmd *exec.Cmd
	out *syncBuffer
	// exited is closed when the current process has been waited for.
	exited chan struct{}
}

// StartMaster starts `rosmaster --core` on a free loopback port, waits until
// it answers, and kills it when the test ends. It skips the test when
// rosmaster is not installed.
func StartMaster(t testing.TB) *Master {
	t.Helper()
	if _, err := os.Stat(MasterBinary); err != nil {
		t.Skipf("rosmaster not installed at %s (Debian package python3-rosmaster): %v", MasterBinary, err)
	}
	m := &Master{t: t, logDir: t.TempDir()}
	t.Cleanup(m.Kill)

	// A free port can be taken by someone else between our probe and
	// rosmaster's bind; try a few.
	var err error
	for range 5 {
		m.port, err = freePort()
		if err != nil {
			t.Fatalf("rostest: find a free port: %v", err)
		}
		if err = m.start(); err == nil {
			return m
		}
		m.Kill()
	}
	t.Fatalf("rostest: start rosmaster: %v", err)
	return nil
}

// URI is the master's ROS_MASTER_URI, e.g. http://127.0.0.1:41234.
func (m *Master) URI() string { return "http://" + m.Address() }

// Address is the master's host:port, the form goroslib's NodeConf takes.
func (m *Master) Address() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(m.port)) }

// Port is the master's TCP port.
func (m *Master) Port() int { return m.port }

// Pid is the pid of the running master process, or 0 when it is not running.
func (m *Master) Pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil || m.cmd.Process == nil {
		return 0
	}
	return m.cmd.Process.Pid
}

// Env is the environment for a ROS process talking to this master: the
// test's environment without its ROS_* variables, plus ROS_MASTER_URI,
// ROS_IP and log folders of this master.
func (m *Master) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROS_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"ROS_MASTER_URI="+m.URI(),
		"ROS_IP=127.0.0.1",
		"ROS_HOME="+m.logDir,
		"ROS_LOG_DIR="+m.logDir,
		"PYTHONUNBUFFERED=1",
	)
}

// Kill kills the master by pid (SIGKILL, no goodbye to nodes) and waits
// for it to exit. Killing a master that is not running does nothing.
func (m *Master) Kill() {
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// Restart kills the master and starts a new rosmaster process on the same
// port, waiting until it answers. The new master knows no nodes and no
// parameters, as after a real master restart. Call it from the test's
// goroutine: it fails the test if the master does not come back.
func (m *Master) Restart() {
	m.t.Helper()
	m.Kill()
	// The port stays in TIME_WAIT for a while; rosmaster sets SO_REUSEADDR,
	// but retry in case the bind still races.
	var err error
	for range 5 {
		if err = m.start(); err == nil {
			return
		}
		m.Kill()
		time.Sleep(500 * time.Millisecond)
	}
	m.t.Fatalf("rostest: restart rosmaster on port %d: %v", m.port, err)
}

// Output is what the current master process printed so far, for failure logs.
func (m *Master) Output() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.out == nil {
		return ""
	}
	return m.out.String()
}

func (m *Master) start() error {
	cmd := exec.Command(MasterBinary, "--core", "-p", strconv.Itoa(m.port))
	cmd.Env = m.Env()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", MasterBinary, err)
	}
	exited := make(chan struct{})
	go func() { // owned by Kill, which waits on exited
		_ = cmd.Wait()
		close(exited)
	}()

	m.mu.Lock()
	m.cmd, m.out, m.exited = cmd, out, exited
	m.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	err := waitAnswers(ctx, m.Address(), cmd.Process.Pid, exited)
	if err != nil {
		return fmt.Errorf("rosmaster on port %d: %w; output:\n%s", m.port, err, out.String())
	}
	return nil
}

// waitAnswers polls getPid until the master with the given pid answers.
func waitAnswers(ctx context.Context, address string, pid int, exited <-chan struct{}) error {
	c := xmlrpc.NewClient(address, &http.Client{Timeout: 2 * time.Second})
	var lastErr error
	for {
		got, err := getPid(c)
		switch {
		case err != nil:
			lastErr = err
		case got == pid:
			return nil
		default:
			// Someone else's master answers on our port.
			return fmt.Errorf("port answered by a master with pid %d, want %d", got, pid)
		}
		select {
		case <-exited:
			return errors.New("rosmaster exited before answering")
		case <-ctx.Done():
			return fmt.Errorf("no answer within %s: %w", StartTimeout, lastErr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

type getPidReq struct{ CallerID string }

type getPidRes struct {
	Code          int
	StatusMessage string
	Pid           int
}

func getPid(c *xmlrpc.Client) (int, error) {
	var res getPidRes
	if err := c.Do("getPid", getPidReq{CallerID: "/rostest"}, &res); err != nil {
		return 0, err
	}
	if res.Code != 1 {
		return 0, fmt.Errorf("getPid: code %d: %s", res.Code, res.StatusMessage)
	}
	return res.Pid, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer safe for a process writing while a test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
