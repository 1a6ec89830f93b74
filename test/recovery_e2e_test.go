package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// The base starts at x=5.5, half a metre past the geofence (max_x 5),
// facing it. Every drive that does not only bring it closer, and every
// navigation goal, is refused with not one twist on /cmd_vel; the slow
// straight drive back runs only after the operator confirms it.
func TestFromOutsideTheFenceOnlyTheOperatorsRecoveryDriveMovesTheBase(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, simArgs: []string{"--initial-pose", "5.5,0,3.14159"},
			bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
		planner, operator := w.mcpClient(plannerToken), w.mcpClient(operatorToken)
		twists := w.countTwists(t)
		time.Sleep(time.Second) // connected to the bridge's publisher
		x := func() float64 { return w.baseX(t, operator) }
		if got := x(); got != 5.5 {
			t.Fatalf("the sim starts at x=%g, want 5.5", got)
		}
		goals := w.goalsReceived()
		for _, c := range []struct{ name, tool, args string }{
			{"away", "base_drive", `{"linear":-0.05,"duration_s":4}`},
			{"too fast", "base_drive", `{"linear":0.3,"duration_s":2}`},
			{"an arc", "base_drive", `{"linear":0.05,"angular":0.05,"duration_s":4}`},
			{"a navigation goal inside", "base_navigate", `{"x":0,"y":0}`},
		} {
			out, isErr := bridgetest.Call(t, planner, c.tool, jsonArgs(t, c.args))
			if !isErr || out["code"] != "limit_violation" || out["rule"] != "recovery_only" {
				t.Fatalf("%s: %v", c.name, out)
			}
		}
		pv := bridgetest.MustCall(t, planner, "base_drive", map[string]any{"linear": 0.05, "duration_s": 4.0})
		if pv["recovery"] != true || pv["confirmed_by"] != "operator" {
			t.Fatalf("recovery preview %v", pv)
		}
		if out, isErr := bridgetest.Call(t, planner, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]}); !isErr || out["rule"] != "operator_confirms" {
			t.Fatalf("planner confirm: %v", out)
		}
		// A planner's client that would accept an approval request is not asked:
		// only the operator approves a recovery, at the console or with the operator token.
		eliciting := elicitingClient(t, w, plannerToken)
		if out, isErr := bridgetest.Call(t, eliciting, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]}); !isErr ||
			out["rule"] != "operator_confirms" || !strings.Contains(out["hint"].(string), "operator token") {
			t.Fatalf("eliciting planner confirm: %v", out)
		}
		recoveryCard(t, w, pv["preview_id"].(string))
		time.Sleep(500 * time.Millisecond)
		if n := twists(); n != 0 || x() != 5.5 || w.goalsReceived() != goals {
			t.Fatalf("refused requests reached the robot: %d twists, x=%g, %d goals", n, x(), w.goalsReceived()-goals)
		}
		mc := bridgetest.MustCall(t, operator, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		rostest.Eventually(t, 20*time.Second, "the recovery drive ends", func() error {
			st := bridgetest.MustCall(t, operator, "motion_status", map[string]any{"motion_id": mc["motion_id"], "wait_s": 2})
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		if got := x(); !(got < 5.5-0.1 && got > 5.5-0.25) || twists() == 0 {
			t.Fatalf("after the recovery drive the base is at x=%g (%d twists), want about 5.3", got, twists())
		}
	})
}

// recoveryCard requires the console to show preview id marked RECOVERY,
// with the base's x half a metre past the fence, and saves its picture.
func recoveryCard(t *testing.T, w *world, id string) {
	t.Helper()
	art, err := artifactsDir(w.tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	b.open("http://" + w.addr + "/console")
	b.waitText("#auth", "operator token", 20*time.Second)
	b.typeInto("#token", operatorToken)
	b.click("#token-form button")
	card := `.preview.recovery[data-preview-id="` + id + `"]`
	b.waitText(card+" .recovery-mark", "RECOVERY", 20*time.Second)
	b.waitText(card+" .out-of-range", "x at 5.500 m, limit 5.000 m, out by 0.500 m", 5*time.Second)
	b.elementShot(card, filepath.Join(art, "console-recovery-preview.png"))
}

func jsonArgs(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}
