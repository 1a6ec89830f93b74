package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
)

// A listen address other than loopback needs both tokens: serve refuses to
// start with either missing, and says which to set.
func TestNonLoopbackListenWithoutBothTokensRefusesToStart(t *testing.T) {
	for _, c := range []struct{ planner, operator, missing string }{
		{"", "", "ACTBRIDGE_PLANNER_TOKEN"},
		{"", "op-token", "ACTBRIDGE_PLANNER_TOKEN"},
		{"planner-token", "", "ACTBRIDGE_OPERATOR_TOKEN"},
	} {
		t.Setenv("ACTBRIDGE_PLANNER_TOKEN", c.planner)
		t.Setenv("ACTBRIDGE_OPERATOR_TOKEN", c.operator)
		for _, listen := range []string{"0.0.0.0:8765", "192.0.2.7:8765", "[::]:8765", "robot.local:8765"} {
			err := serve(context.Background(), []string{"--listen", listen, "--config", "no-such-config.yaml", "--data-dir", t.TempDir()}, io.Discard, io.Discard)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.missing) || !strings.Contains(err.Error(), listen) {
				t.Errorf("planner %q operator %q on %s: %v, want a usage error naming %s", c.planner, c.operator, listen, err, c.missing)
			}
		}
	}
	// Both set: the token check passes (and the missing config stops it).
	t.Setenv("ACTBRIDGE_PLANNER_TOKEN", "planner-token")
	t.Setenv("ACTBRIDGE_OPERATOR_TOKEN", "op-token")
	err := serve(context.Background(), []string{"--listen", "0.0.0.0:8765", "--config", "no-such-config.yaml", "--data-dir", t.TempDir()}, io.Discard, io.Discard)
	if err == nil || strings.Contains(err.Error(), "TOKEN") {
		t.Fatalf("with both tokens: %v, want the config's error", err)
	}
	if err := tokensFor("127.0.0.1:8765", bridge.Tokens{}); err != nil {
		t.Fatalf("loopback needs no token: %v", err)
	}
}

// Without a configured operator token the bridge makes one, readable only
// by its user, new at every start: no other local process is the operator.
func TestGeneratedOperatorTokenIsPrivateAndNewAtEachStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), operatorTokenName)
	if err := os.WriteFile(path, []byte("old-token\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := newOperatorToken(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if fi.Mode().Perm() != 0o600 || strings.TrimSpace(string(b)) != a || len(a) < 32 || a == "old-token" {
		t.Fatalf("token file mode %v holds %q, token %q", fi.Mode().Perm(), b, a)
	}
	if again, err := newOperatorToken(path); err != nil || again == a {
		t.Fatalf("second start: %q %v, want a new token", again, err)
	}
}

// The shipped configs of real robots never take an MCP elicitation answer
// as the operator's approval: the planner's own client may give it.
func TestShippedRealRobotConfigsNeverTakeAnElicitationAsTheOperator(t *testing.T) {
	n := 0
	for name, urdf := range shippedURDF {
		if !strings.HasPrefix(urdf, "urdf/") { // the sim's and Gazebo's
			continue
		}
		n++
		c, err := config.Load(filepath.Join(launchDir, "robots", name))
		if err != nil {
			t.Fatal(err)
		}
		if c.OperatorViaElicitation {
			t.Errorf("%s: operator_via_elicitation is on", name)
		}
	}
	if n < 3 {
		t.Fatalf("found %d real-robot configs, want the UR, Franka and TurtleBot 4", n)
	}
}
