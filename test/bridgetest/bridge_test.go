package bridgetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"
)

// TestABridgeThatExitsIsNotWaitedFor: waiting for readiness ends with
// ErrExited as soon as the process is gone, not at the timeout, so a bridge
// refusing its config fails the test at once with its output.
func TestABridgeThatExitsIsNotWaitedFor(t *testing.T) {
	b := &Bridge{Addr: FreeAddr(t)}
	b.Process = rostest.StartProcess(t, "/bin/sh", "sh", nil, "-c", "echo bad config; exit 2")
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	start := time.Now()
	if err := b.AwaitReady(ctx); !errors.Is(err, ErrExited) {
		t.Fatalf("AwaitReady: %v, want ErrExited", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
}
