package test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// inspect runs `actbridge <args>` with env added and returns its output
// and whether it succeeded.
func inspect(t *testing.T, env []string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "actbridge"), args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func TestMotionsAndAuditAskTheRunningBridgeAndReadTheFileOffline(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
		cs := w.mcpClient(plannerToken)
		pv := bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.04})
		id := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})["motion_id"].(string)
		if st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 20, "until": "end"}); st["state"] != "succeeded" {
			t.Fatalf("motion: %v", st)
		}
		store := filepath.Join(w.dataDir, "actbridge.db")
		bridgeURL := "http://" + w.addr
		operator := []string{"ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}

		t.Run("while the bridge serves, the commands ask it", func(t *testing.T) {
			out, ok := inspect(t, operator, "motions", "--store", store, "--bridge", bridgeURL)
			if !ok || !strings.Contains(out, id) || !strings.Contains(out, "succeeded") {
				t.Fatalf("motions: %v\n%s", ok, out)
			}
			out, ok = inspect(t, operator, "audit", "--store", store, "--bridge", bridgeURL)
			if !ok || !strings.Contains(out, `"tool":"motion_confirm"`) || !strings.Contains(out, id) {
				t.Fatalf("audit: %v\n%s", ok, out)
			}
			for _, env := range [][]string{nil, {"ACTBRIDGE_OPERATOR_TOKEN=" + plannerToken}} {
				out, ok := inspect(t, env, "motions", "--store", store, "--bridge", bridgeURL)
				if ok || strings.Contains(out, id) || !strings.Contains(out, "operator token") {
					t.Fatalf("without the operator token (%v): %v\n%s", env, ok, out)
				}
			}
		})
		live, ok := inspect(t, operator, "motions", "--json", "--store", store, "--bridge", bridgeURL)
		if !ok {
			t.Fatal(live)
		}

		w.bridge.Stop(syscall.SIGTERM)
		t.Run("offline, the commands open the file", func(t *testing.T) {
			// --bridge names nothing that answers: the file alone must do.
			dead := "http://127.0.0.1:1"
			out, ok := inspect(t, nil, "motions", "--json", "--store", store, "--bridge", dead)
			if !ok || out != live {
				t.Fatalf("offline listing differs from the bridge's: %v\n%s\nwant\n%s", ok, out, live)
			}
			out, ok = inspect(t, nil, "audit", "--store", store, "--bridge", dead)
			if !ok || !strings.Contains(out, id) {
				t.Fatalf("audit offline: %v\n%s", ok, out)
			}
		})
	})
}
