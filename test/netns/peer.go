package netns

import (
	"bytes"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Peer is a process a test started (a DDS peer, say); its combined output
// is kept for assertions.
type Peer struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan struct{}
	err  error
}

// StartPeer starts cmd in its own process group (inside the test's
// namespace when the test runs inside one, as cmd inherits it) and kills
// that group by pid in t.Cleanup.
func StartPeer(t testing.TB, cmd *exec.Cmd) *Peer {
	t.Helper()
	p := &Peer{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("output of %v:\n%s", cmd.Args, p.Output())
		}
	})
	return p
}

// Pid is the peer's process id.
func (p *Peer) Pid() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL to the peer's process group and waits for it to end;
// killing an ended peer is a no-op.
func (p *Peer) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
}

// Done is closed when the peer has exited.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Output is everything the peer wrote so far.
func (p *Peer) Output() string { return p.out.String() }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(b)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
