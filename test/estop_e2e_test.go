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
// after the cancels left, its latch's write held back; and at the one
// after the latch is durable, before the answer), restarts it on the same
// store and checks: it comes back latched for the unclean exit, on an event
// above any it showed before (naming the stop's latch when that was
// written), a confirm is refused estop_latched, the operator's reset of
// that event releases it, and the next stop gets a new event. A restart
// after SIGTERM is not latched.
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
				var shown float64 // the newest event a caller could have seen
				if crashAt == "" {
					stop := bridgetest.MustCall(t, planner, "robot_stop", map[string]any{"reason": "person in the cell"})
					if stop["durable"] != true {
						t.Fatalf("robot_stop: %v", stop)
					}
					shown = stop["estop_event"].(float64)
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
					shown = lastEvent + 1 // the stop never answered, but its event was in memory
				}
				w.startBridge(worldOpts{bridgeEnv: tokens})
				planner, operator := w.mcpClient(plannerToken), w.mcpClient(operatorToken)
				es := bridgetest.MustCall(t, operator, "robot_describe", map[string]any{})["estop"].(map[string]any)
				reason, _ := es["reason"].(string)
				event, _ := es["event"].(float64)
				// Written stops are named beside the crash; at after_stop_sent
				// the stop's write was held, so the store never had it.
				wantBefore := crashAt != "after_stop_sent"
				if es["latched"] != true || !strings.HasPrefix(reason, bridge.UncleanExitReason) ||
					strings.Contains(reason, "latched before it: "+stopReason) != wantBefore {
					t.Fatalf("e-stop after restart: %v, want latched for the unclean exit (naming the stop: %v)", es, wantBefore)
				}
				if event <= shown || event <= lastEvent {
					t.Fatalf("restart latched event %v; event %v was shown before the crash: an event number repeated", event, shown)
				}
				if out, isErr := bridgetest.Call(t, operator, "estop_reset", map[string]any{"event": shown}); !isErr {
					t.Fatalf("a reset naming the event shown before the crash released the restart's latch: %v", out)
				}

				// The restarted bridge holds the latch: the old preview and a new one are refused.
				out, isErr := bridgetest.Call(t, planner, "motion_confirm", map[string]any{"preview_id": pv})
				if !isErr || out["code"] != "estop_latched" {
					t.Fatalf("confirm after restart: %v", out)
				}
				if out, isErr := bridgetest.Call(t, planner, "gripper_move", map[string]any{"position": 0.03}); !isErr || out["code"] != "estop_latched" {
					t.Fatalf("preview after restart: %v", out)
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
		// A shutdown in order keeps the stop, and is no crash.
		w.bridge.Stop(syscall.SIGTERM)
		w.startBridge(worldOpts{bridgeEnv: tokens})
		es := bridgetest.MustCall(t, w.mcpClient(operatorToken), "robot_describe", map[string]any{})["estop"].(map[string]any)
		if es["latched"] != true || es["event"] != lastEvent+1 || es["reason"] != "robot_stop by planner:" {
			t.Fatalf("after SIGTERM: %v, want the stop's event %v latched as it was", es, lastEvent+1)
		}
		bridgetest.MustCall(t, w.mcpClient(operatorToken), "estop_reset", map[string]any{"event": lastEvent + 1})
		w.bridge.Stop(syscall.SIGTERM)
		w.startBridge(worldOpts{bridgeEnv: tokens})
		if es := bridgetest.MustCall(t, w.mcpClient(plannerToken), "robot_describe", map[string]any{})["estop"].(map[string]any); es["latched"] != false {
			t.Fatalf("after a reset and SIGTERM: %v, want not latched", es)
		}
	})
}

// mustPreview previews a small gripper move and returns its preview id.
func mustPreview(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	return bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.03})["preview_id"].(string)
}
