package test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// TestEStopLatchSurvivesASIGKILLAndEventsNeverRepeat stops the robot, kills
// the bridge with SIGKILL (after robot_stop answered; at the crash point
// after the cancels left, before the latch was written; and at the one
// after the latch is durable, before the answer), restarts it on the same
// store and checks: a confirm is refused estop_latched (the stop's own
// latch, or the unclean exit's when the stop's write never happened), the
// operator's reset of that event releases it, and the next stop gets a new
// event.
func TestEStopLatchSurvivesASIGKILLAndEventsNeverRepeat(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		tokens := []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}
		w := newWorld(t, worldOpts{tr: tr, bridgeEnv: tokens})
		lastEvent := 0.0
		const stopReason = "robot_stop by planner: person in the cell"
		for _, crashAt := range []string{"", "after_stop_sent", "after_estop_commit"} {
			name := "after robot_stop answered"
			if crashAt != "" {
				name = "at " + crashAt
			}
			t.Run(name, func(t *testing.T) {
				planner := w.mcpClient(plannerToken)
				pv := mustPreview(t, planner)
				var event float64
				wantReason := func(r string) bool { return r == stopReason }
				if crashAt == "" {
					stop := bridgetest.MustCall(t, planner, "robot_stop", map[string]any{"reason": "person in the cell"})
					if stop["durable"] != true {
						t.Fatalf("robot_stop: %v", stop)
					}
					event = stop["estop_event"].(float64)
					w.bridge.Stop(syscall.SIGKILL)
				} else {
					w.bridge.Stop(syscall.SIGKILL)
					w.startBridge(worldOpts{crashpoints: true, bridgeEnv: append(tokens, crashAtEnv+"="+crashAt)})
					lastEvent = bridgetest.ResetUncleanExit(t, w.mcpClient(operatorToken))
					planner = w.mcpClient(plannerToken)
					if out, err := callQuiet(planner, "robot_stop", map[string]any{"reason": "person in the cell"}); err == nil {
						t.Fatalf("robot_stop answered instead of crashing at %s: %v", crashAt, out)
					}
					w.waitOutput(w.bridge.Process, "crashing at "+crashAt, 10*time.Second)
					// The stop never answered: its event is the next one. At
					// after_stop_sent its write races the crash: either it
					// landed, or the restart latches that event for the
					// unclean exit instead (the store never held it).
					event = lastEvent + 1
					if crashAt == "after_stop_sent" {
						wantReason = func(r string) bool { return r == stopReason || strings.HasPrefix(r, bridge.UncleanExitReason) }
					}
				}
				if event <= lastEvent {
					t.Fatalf("stop event %v after event %v: an event number repeated", event, lastEvent)
				}
				w.startBridge(worldOpts{bridgeEnv: tokens})
				planner, operator := w.mcpClient(plannerToken), w.mcpClient(operatorToken)

				// The restarted bridge holds the latch: the old preview and a new one are refused.
				out, isErr := bridgetest.Call(t, planner, "motion_confirm", map[string]any{"preview_id": pv})
				if !isErr || out["code"] != "estop_latched" {
					t.Fatalf("confirm after restart: %v", out)
				}
				if out, isErr := bridgetest.Call(t, planner, "gripper_move", map[string]any{"position": 0.03}); !isErr || out["code"] != "estop_latched" {
					t.Fatalf("preview after restart: %v", out)
				}
				es := bridgetest.MustCall(t, planner, "robot_describe", map[string]any{})["estop"].(map[string]any)
				if reason, _ := es["reason"].(string); es["latched"] != true || es["event"] != event || !wantReason(reason) {
					t.Fatalf("e-stop after restart: %v, want event %v latched", es, event)
				}
				if out, isErr := bridgetest.Call(t, planner, "estop_reset", map[string]any{"event": event}); !isErr || out["code"] != "permission_denied" {
					t.Fatalf("planner reset: %v", out)
				}
				if out := bridgetest.MustCall(t, operator, "estop_reset", map[string]any{"event": event}); out["latched"] != false {
					t.Fatalf("operator reset: %v", out)
				}
				lastEvent = event

				// Released: the robot moves again, and the next stop is a new event.
				rostest.Eventually(t, 30*time.Second, "a confirm after the reset runs", func() error {
					pv, isErr := bridgetest.Call(t, planner, "gripper_move", map[string]any{"position": 0.03})
					if isErr {
						return fmt.Errorf("preview after reset: %v", pv)
					}
					out, isErr := bridgetest.Call(t, planner, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
					if isErr {
						return fmt.Errorf("confirm after reset: %v", out)
					}
					return nil
				})
			})
		}
		planner := w.mcpClient(plannerToken)
		stop := bridgetest.MustCall(t, planner, "robot_stop", map[string]any{})
		if got := stop["estop_event"].(float64); got != lastEvent+1 {
			t.Fatalf("the stop after two restarts got event %v, want %v (never a repeat)", got, lastEvent+1)
		}
	})
}

// mustPreview previews a small gripper move and returns its preview id.
func mustPreview(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	return bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.03})["preview_id"].(string)
}
