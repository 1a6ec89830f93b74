package ros2mission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/gobin"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the tests inside a namespace it made; each test takes a
// domain of its own.
func TestMain(m *testing.M) { netns.Main(m) }

// builds is this test binary's built commands; each test process owns one.
var builds gobin.Builds

const (
	bridgePkg = "github.com/actbridge/actbridge/cmd/actbridge"
	// crashAtEnv is bridge.CrashAtEnv, which only the crashpoints build has.
	crashAtEnv = "ACTBRIDGE_TEST_CRASH_AT"
)

// bridgeEnv leaves discovery to the config alone and serves MCP without
// tokens.
func bridgeEnv() []string {
	return []string{"ROS_DOMAIN_ID=", "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=",
		"ACTBRIDGE_PLANNER_TOKEN=", "ACTBRIDGE_OPERATOR_TOKEN="}
}

// bridgeRun is one bridge that a test kills and restarts: the same
// config, data dir and address every time, as a supervisor restarts it.
type bridgeRun struct {
	cfg, data, addr string
	b               *bridgetest.Bridge
	// died: the last run was killed or crashed, so the next start comes
	// back latched (bridge.UncleanExitReason) and start resets it.
	died bool
}

func newBridgeRun(t *testing.T, cfg string) *bridgeRun {
	t.Helper()
	netns.Require(t)
	return &bridgeRun{cfg: cfg, data: t.TempDir(), addr: bridgetest.FreeAddr(t)}
}

// start starts the bridge and waits until it is ready. A non-empty
// crashAt runs the crashpoints build, which SIGKILLs itself at that
// dispatch stage.
func (r *bridgeRun) start(t *testing.T, crashAt string) *mcp.ClientSession {
	t.Helper()
	bin, env := builds.Build(t, bridgePkg), bridgeEnv()
	if crashAt != "" {
		bin, env = builds.BuildTags(t, bridgePkg, "crashpoints"), append(env, crashAtEnv+"="+crashAt)
	}
	r.b = bridgetest.Start(t, bin, r.addr, env, "--config", r.cfg, "--data-dir", r.data)
	if r.died {
		// The operator checks the robot and resets; the loopback demo's
		// operator token is in the data dir.
		tok, err := os.ReadFile(filepath.Join(r.data, "operator.token"))
		if err != nil {
			t.Fatalf("the operator token: %v", err)
		}
		bridgetest.ResetUncleanExit(t, r.b.Client(t, strings.TrimSpace(string(tok))))
		r.died = false
	}
	return r.b.Client(t, "")
}

// kill SIGKILLs the bridge: no deferred call, no flush.
func (r *bridgeRun) kill() { r.b.Stop(syscall.SIGKILL); r.died = true }

// confirmAfterRestart retries the confirm of preview as a planner does
// while the restarted bridge says a retry can help (its actuators
// reconnecting), and returns the first other answer.
func confirmAfterRestart(t *testing.T, cs *mcp.ClientSession, preview any) (out map[string]any, isErr bool) {
	t.Helper()
	rostest.Eventually(t, 40*time.Second, "the retried confirm is answered", func() error {
		out, isErr = bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": preview})
		if isErr && out["code"] == "unavailable" {
			return fmt.Errorf("%v", out)
		}
		return nil
	})
	return out, isErr
}

// motionEnd polls motion_status until the motion is terminal or unknown
// and returns its status.
func motionEnd(t *testing.T, cs *mcp.ClientSession, id string, within time.Duration) map[string]any {
	t.Helper()
	var st map[string]any
	rostest.Eventually(t, within, "motion "+id+" reaches a known end or unknown", func() error {
		st = bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
		if st["terminal"] != true && st["state"] != "unknown" {
			return fmt.Errorf("state %v", st["state"])
		}
		return nil
	})
	return st
}

// confirmUntilCrash confirms preview on a crashpoints bridge until it
// dies at stage (it answers unavailable while its actuators connect), and
// checks that it died at the hook, not of something else.
func (r *bridgeRun) confirmUntilCrash(t *testing.T, cs *mcp.ClientSession, preview any, stage string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		out, _, err := bridgetest.Try(ctx, cs, "motion_confirm", map[string]any{"preview_id": preview})
		cancel()
		select {
		case <-r.b.Done():
			if !strings.Contains(r.b.Output(), "crashing at "+stage) {
				t.Fatalf("the bridge died, not at %s:\n%s", stage, rostest.Tail(r.b.Output(), 3000))
			}
			r.died = true
			return
		case <-time.After(2 * time.Second):
		}
		if err == nil && out["code"] != "unavailable" || time.Now().After(deadline) {
			t.Fatalf("the bridge did not crash at %s: %v %v", stage, out, err)
		}
	}
}
