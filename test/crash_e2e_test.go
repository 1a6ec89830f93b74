package test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// idsOnWire counts, per GoalID, how many times the sim received it.
func (w *world) idsOnWire() map[string]int {
	out := map[string]int{}
	for _, a := range w.simGoals() {
		for _, g := range a.Goals {
			out[g.ID]++
		}
	}
	return out
}

// restartBridge restarts the bridge as the crashpoints build, dying at
// stage (a dispatch stage; "" never dies).
func (w *world) restartBridge(stage string) {
	w.t.Helper()
	w.bridge.Stop(syscall.SIGKILL)
	w.startBridge(worldOpts{crashpoints: true, bridgeEnv: []string{crashAtEnv + "=" + stage}})
	w.resetUncleanExit()
}

// resetUncleanExit checks that the bridge, restarted after its last run
// died, came back latched, and resets it as the operator (loopback demo:
// the token its data dir holds).
func (w *world) resetUncleanExit() {
	w.t.Helper()
	bridgetest.ResetUncleanExit(w.t, w.mcpClient(w.operatorToken()))
}

// crashAtEnv is bridge.CrashAtEnv, which only the crashpoints build has.
const crashAtEnv = "ACTBRIDGE_TEST_CRASH_AT"

var (
	crashpointsOnce  sync.Once
	crashpointsBuilt error
)

// crashpointsBinary builds (once) the bridge with the crashpoints tag into
// binDir and returns its name there.
func crashpointsBinary(t *testing.T) string {
	t.Helper()
	const name = "actbridge-crashpoints"
	crashpointsOnce.Do(func() {
		out, err := exec.Command("go", "build", "-tags", "crashpoints", "-o", filepath.Join(binDir, name), "../cmd/actbridge").CombinedOutput()
		if err != nil {
			crashpointsBuilt = fmt.Errorf("go build -tags crashpoints: %v\n%s", err, out)
		}
	})
	if crashpointsBuilt != nil {
		t.Fatal(crashpointsBuilt)
	}
	return name
}

// TestOnlyTheCrashpointsBuildCanKillItself: the hook the crash tests use
// is in the bridge built with the crashpoints tag and absent from the
// production build (TestMain's, as `go build ./cmd/...` makes it).
func TestOnlyTheCrashpointsBuildCanKillItself(t *testing.T) {
	for _, c := range []struct {
		bin  string
		want bool
	}{
		{"actbridge", false},
		{crashpointsBinary(t), true},
	} {
		b, err := os.ReadFile(filepath.Join(binDir, c.bin))
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(b, []byte(crashAtEnv)); got != c.want {
			t.Errorf("%s holds the crash hook (%s): %v, want %v", c.bin, crashAtEnv, got, c.want)
		}
	}
}

// TestCrashAtEachDispatchStageNeverResendsAndEveryMotionEnds kills the
// bridge before the commit, between commit and publish, and after publish,
// restarts it, and checks the motion's fate and the wire.
func TestCrashAtEachDispatchStageNeverResendsAndEveryMotionEnds(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		for i, stage := range []string{"before_commit", "after_commit", "after_publish"} {
			t.Run(stage, func(t *testing.T) {
				w.restartBridge(stage)
				cs := w.mcpClient("")
				target := 0.1 * float64(i+1)
				pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_3_joint": target}})
				// Confirm until the bridge dies at the stage (it refuses with
				// unavailable while its actuators reconnect after the restart,
				// and busy while an earlier stage's unknown motion holds the
				// arm until the robot reports it lost).
				deadline := time.Now().Add(30 * time.Second)
				for crashed := false; !crashed; {
					out, err := callQuiet(cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
					select {
					case <-w.bridge.Done():
						crashed = true
					case <-time.After(2 * time.Second):
						if err == nil && out["code"] != "unavailable" && out["code"] != "busy" || time.Now().After(deadline) {
							t.Fatalf("bridge did not crash at %s: %v %v", stage, out, err)
						}
					}
				}
				// It died at the hook, at this stage, not of something else.
				w.waitOutput(w.bridge.Process, "crashing at "+stage, 5*time.Second)
				w.startBridge(worldOpts{})
				w.resetUncleanExit()
				cs = w.mcpClient("")
				// The planner retries its confirm after the crash, as long as the
				// bridge says a retry can help (actuators reconnecting).
				var out map[string]any
				var isErr bool
				rostest.Eventually(t, 30*time.Second, "confirm retry is answered", func() error {
					out, isErr = bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
					if isErr && out["code"] == "unavailable" {
						return fmt.Errorf("%v", out)
					}
					return nil
				})
				switch stage {
				case "before_commit":
					// Nothing was recorded: the retry runs the motion, once.
					if isErr {
						t.Fatalf("retry after a crash before commit: %v", out)
					}
				default:
					// The record exists: the retry returns it and never resends.
					if isErr || out["replay"] != true {
						t.Fatalf("retry after %s: %v", stage, out)
					}
				}
				id := out["motion_id"].(string)
				var st map[string]any
				rostest.Eventually(t, 60*time.Second, "motion reaches a known end", func() error {
					st = bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
					if st["terminal"] != true && st["state"] != "unknown" {
						return errState(st)
					}
					return nil
				})
				wire := w.idsOnWire()[id]
				switch stage {
				case "after_commit":
					if st["state"] != "unknown" || wire != 0 {
						t.Fatalf("committed but never published: state %v, on wire %d", st["state"], wire)
					}
				case "after_publish":
					// goroslib writes asynchronously: a process killed right after
					// Publish may or may not have flushed the goal. Either way the
					// motion's end is known and it was never sent twice.
					if !(st["state"] == "succeeded" && wire == 1) && !(st["state"] == "unknown" && wire == 0) {
						t.Fatalf("state %v, on wire %d times", st["state"], wire)
					}
				default:
					if st["state"] != "succeeded" || wire != 1 {
						t.Fatalf("state %v, on wire %d times", st["state"], wire)
					}
				}
			})
		}
	})
}

// TestRandomKillsNeverSendAGoalTwice SIGKILLs the bridge at random moments
// while motions run, restarts it, and checks that no GoalID reached the sim
// twice and every confirmed motion ends known. ACTBRIDGE_CRASH_MOTIONS sets
// the count (test/crash.sh runs 200).
func TestRandomKillsNeverSendAGoalTwice(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		n := 6
		if v, err := strconv.Atoi(os.Getenv("ACTBRIDGE_CRASH_MOTIONS")); err == nil && v > 0 {
			n = v
		}
		w := newWorld(t, worldOpts{tr: tr})
		rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
		var ids []string
		for i := 0; i < n; i++ {
			cs := w.mcpClient("")
			target := 0.5 * rng.Float64()
			pv, isErr := bridgetest.Call(t, cs, "gripper_move", map[string]any{"position": 0.005 + 0.07*rng.Float64()})
			if isErr {
				t.Fatalf("preview %d: %v", i, pv)
			}
			_ = target
			done := make(chan map[string]any, 1)
			go func() {
				defer func() { _ = recover() }()
				out, _ := callQuiet(cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
				done <- out
			}()
			time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
			w.bridge.Stop(syscall.SIGKILL)
			w.startBridge(worldOpts{})
			w.resetUncleanExit()
			cs = w.mcpClient("")
			out, isErr := bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
			if isErr {
				// Only an expired preview or a busy gripper can refuse a retry.
				if out["code"] != "busy" {
					t.Fatalf("retry %d: %v", i, out)
				}
				rostest.Eventually(t, 30*time.Second, "gripper frees", func() error {
					out, isErr = bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
					if isErr {
						return fmt.Errorf("%v", out)
					}
					return nil
				})
			}
			id := out["motion_id"].(string)
			ids = append(ids, id)
			rostest.Eventually(t, 60*time.Second, "motion ends", func() error {
				st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
				if st["terminal"] != true && st["state"] != "unknown" {
					return errState(st)
				}
				return nil
			})
		}
		for id, c := range w.idsOnWire() {
			if c > 1 {
				t.Fatalf("goal %s reached the sim %d times", id, c)
			}
		}
		for _, a := range w.simGoals() {
			if a.Duplicates != 0 {
				t.Fatalf("sim saw %d duplicate goals", a.Duplicates)
			}
		}
		t.Logf("%d motions, each through a SIGKILL of the bridge: none sent twice", len(ids))
	})
}
