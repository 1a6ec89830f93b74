package rostest

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a child process a test owns: its output is collected, and the
// test's cleanup stops it by pid (SIGTERM, then SIGKILL after 8 s) and logs
// the output's tail when the test failed.
type Process struct {
	Name string
	Cmd  *exec.Cmd
	out  *Buffer
	done chan struct{}
}

// Buffer collects output while a test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartProcess starts path with args and env added to this process's
// environment; it dies with the test binary (Pdeathsig) if nothing else
// stops it.
func StartProcess(tb testing.TB, path, name string, env []string, args ...string) *Process {
	tb.Helper()
	p := &Process{Name: name, out: &Buffer{}, done: make(chan struct{})}
	p.Cmd = exec.Command(path, args...)
	p.Cmd.Env = append(os.Environ(), env...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.out, p.out
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.Cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = p.Cmd.Wait(); close(p.done) }()
	tb.Cleanup(func() {
		p.Stop(syscall.SIGTERM)
		if tb.Failed() {
			tb.Logf("%s output:\n%s", name, Tail(p.out.String(), 4000))
		}
	})
	return p
}

// Output is everything the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Pid is the process id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Stop signals the process and waits (bounded), then kills it.
func (p *Process) Stop(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.Cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(8 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// WaitOutput waits (bounded) until the process printed s; it fails the
// test if the process exits first.
func (p *Process) WaitOutput(tb testing.TB, s string, d time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(p.out.String(), s) {
		select {
		case <-p.done:
			tb.Fatalf("%s exited before printing %q:\n%s", p.Name, s, Tail(p.out.String(), 3000))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s did not print %q within %s:\n%s", p.Name, s, d, Tail(p.out.String(), 3000))
		}
	}
}

// Tail is the last n bytes of s.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
