package ddspeers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/netns"
)

// Proc is a running peer. Its output is collected as it comes; the test
// that started it stops it (by its pid) when it ends.
type Proc struct {
	cmd    *exec.Cmd
	done   chan struct{}
	err    error // set before done closes
	stdout rostest.Buffer
	stderr rostest.Buffer
}

// StartPeer starts bin (a peer path from Build) with args inside the
// namespace ns, feeding it stdin (nil: none).
func StartPeer(t testing.TB, ns, bin string, stdin io.Reader, args ...string) *Proc {
	t.Helper()
	return StartPeerEnv(t, ns, bin, nil, stdin, args...)
}

// StartPeerEnv is StartPeer with variables added to the peer's
// environment ("CYCLONEDDS_URI=…", "FASTRTPS_DEFAULT_PROFILES_FILE=…").
func StartPeerEnv(t testing.TB, ns, bin string, env []string, stdin io.Reader, args ...string) *Proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := netns.Command(ctx, ns, bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	cmd.Stdin = stdin
	// The peer dies with the test binary if nothing else stops it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cancel() // kills the peer's pid
		<-p.done
	})
	return p
}

// PublishAfterMatch starts a pub peer whose samples (lines) it writes only
// once sub, a sub peer, has matched the pub's writer: a volatile reader
// drops samples written before it knew the writer, which would make a
// test depend on discovery timing.
func PublishAfterMatch(ctx context.Context, t testing.TB, ns, bin string, sub *Proc, lines string, args ...string) *Proc {
	t.Helper()
	r, w := io.Pipe()
	pub := StartPeer(t, ns, bin, r, append([]string{"pub"}, args...)...)
	t.Cleanup(func() { _ = w.Close() })
	if err := sub.WaitStderr(ctx, "matched"); err != nil {
		t.Fatalf("sub never matched the writer: %v: %s\npub: %s", err, sub.Stderr(), pub.Stderr())
	}
	go func() {
		_, _ = io.WriteString(w, lines)
		_ = w.Close()
	}()
	return pub
}

// Stop asks the peer to end (SIGTERM): it deletes its participant, which
// tells the other participants at once, and exits 0. Stop returns its
// exit error, or ctx's. Stop a peer only once it has said something on
// stderr: until then the pid may still be ip netns exec's, which the
// signal simply kills.
func (p *Proc) Stop(ctx context.Context) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	return p.Wait(ctx)
}

// Kill ends the peer at once (SIGKILL), without a goodbye: the other
// participants notice only when its lease runs out.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Wait waits for the peer to exit and returns its error (nil for exit 0).
func (p *Proc) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitStderr waits until the peer's stderr holds s ("ready", "matched 1").
func (p *Proc) WaitStderr(ctx context.Context, s string) error {
	return p.waitFor(ctx, &p.stderr, s)
}

// WaitStdout waits until the peer's stdout holds s (a node name, say).
func (p *Proc) WaitStdout(ctx context.Context, s string) error {
	return p.waitFor(ctx, &p.stdout, s)
}

// waitFor waits until out holds s; a peer that exits without printing it
// is an error (its exit error, or one saying so).
func (p *Proc) waitFor(ctx context.Context, out *rostest.Buffer, s string) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(out.String(), s) {
		select {
		case <-p.done:
			if strings.Contains(out.String(), s) {
				return nil
			}
			if p.err == nil {
				return fmt.Errorf("ddspeers: peer exited without printing %q", s)
			}
			return p.err
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// Stdout returns what the peer has printed so far.
func (p *Proc) Stdout() []byte { return []byte(p.stdout.String()) }

// Stderr returns the peer's messages so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

// HexLines reads a sub peer's stdout: one sample a line, in hex.
func HexLines(out []byte) ([][]byte, error) {
	var res [][]byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20) // a line holds a whole sample in hex
	for sc.Scan() {
		b, err := hex.DecodeString(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("ddspeers: line %d: %w", len(res)+1, err)
		}
		res = append(res, b)
	}
	return res, sc.Err()
}
