package ros2mission

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// moveJ1 is the preview of a j1 move to pos.
func moveJ1(pos float64) map[string]any {
	return map[string]any{"positions": map[string]any{"j1": pos}}
}

// TestConfirmedMotionReachesEachVendorOnceAndRetriesReplay: `actbridge
// serve` over ROS 2 against CycloneDDS's and Fast DDS's scripted
// FollowJointTrajectory servers, on Jazzy and Humble: preview, confirm,
// the goal succeeds; the confirm retried answers the same motion as a
// replay; the server's log holds the motion id as goal UUID exactly once.
func TestConfirmedMotionReachesEachVendorOnceAndRetriesReplay(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Jazzy, msgs.Humble} {
		p := ddspeers.BuildNodes(t, d)
		for j, v := range vendors(t, p) {
			t.Run(fmt.Sprintf("%s %s", d, v.name), func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				robot := startPeerRobot(t, p, v, 20+3*i+j, "--feedback", "3", "--feedback-period", "0.1")
				run := newBridgeRun(t, robot.config(t))
				cs := run.start(t, "")
				pv := bridgetest.MustCall(t, cs, "arm_move_joints", moveJ1(0.4))
				confirm := map[string]any{"preview_id": pv["preview_id"]}
				mo := bridgetest.MustCall(t, cs, "motion_confirm", confirm)
				id, _ := mo["motion_id"].(string)
				if st := motionEnd(t, cs, id, 40*time.Second); st["state"] != "succeeded" {
					t.Fatalf("motion %s ended %v", id, st)
				}
				again := bridgetest.MustCall(t, cs, "motion_confirm", confirm)
				if again["motion_id"] != id || again["replay"] != true {
					t.Fatalf("the retried confirm answered %v, want a replay of %s", again, id)
				}
				robot.event(t, "result", id, 5*time.Second)
				if got := robot.goals(t); !maps.Equal(got, map[string]int{id: 1}) {
					t.Fatalf("the %s server saw goals %v, want %s once", v.name, got, id)
				}
				robot.alive(t)
			})
		}
	}
}

// TestCrashAtEachDispatchStageReachesEachVendorAtMostOnce kills the
// bridge (the crashpoints build) before the commit, between commit and
// publish, and after publish, restarts it on the same data dir, retries
// the confirm, and reads each vendor's server log:
//   - before_commit: nothing was recorded, so the retry runs the motion:
//     it succeeds and the server saw its UUID once;
//   - after_commit: the record exists but no goal left, so the retry
//     replays it, the restarted bridge finds no such goal on the server
//     and says unknown; the server never saw the UUID;
//   - after_publish: send_goal had been answered (the ROS 2 transport
//     returns from a send once the server accepted), so the server holds
//     the goal: the replay re-attaches through status and get_result, the
//     motion succeeds, and the server saw its UUID once.
func TestCrashAtEachDispatchStageReachesEachVendorAtMostOnce(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for j, v := range vendors(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			robot := startPeerRobot(t, p, v, 30+j, "--feedback", "3", "--feedback-period", "0.1")
			run := newBridgeRun(t, robot.config(t))
			want := map[string]int{}
			for i, stage := range []string{"before_commit", "after_commit", "after_publish"} {
				t.Run(stage, func(t *testing.T) {
					cs := run.start(t, stage)
					pv := bridgetest.MustCall(t, cs, "arm_move_joints", moveJ1(0.1*float64(i+1)))
					run.confirmUntilCrash(t, cs, pv["preview_id"], stage)
					cs = run.start(t, "")
					out, isErr := confirmAfterRestart(t, cs, pv["preview_id"])
					if isErr || (stage == "before_commit") == (out["replay"] == true) {
						t.Fatalf("the confirm retried after a crash at %s answered %v", stage, out)
					}
					id := out["motion_id"].(string)
					st := motionEnd(t, cs, id, 60*time.Second)
					wantState, wantSent := "succeeded", 1
					if stage == "after_commit" {
						wantState, wantSent = "unknown", 0
					}
					if wantSent == 1 {
						robot.event(t, "result", id, 5*time.Second)
						want[id] = 1
					}
					got := robot.goals(t)
					if st["state"] != wantState || got[id] != wantSent {
						t.Fatalf("crash at %s: state %v, the server saw the goal %d times; want %s and %d", stage, st["state"], got[id], wantState, wantSent)
					}
					if !maps.Equal(got, want) {
						t.Fatalf("the server saw goals %v, want %v", got, want)
					}
					robot.alive(t)
					run.kill()
				})
			}
		})
	}
}

// TestGoalEndedWhileTheBridgeWasDownIsNeverResentAndUnknownOnceForgotten: the bridge is
// SIGKILLed while each vendor's server runs its goal; the goal ends while
// the bridge is down, and the bridge comes back after 15 s. On Jazzy the
// server has forgotten the goal by then (rcl's result timeout since Iron,
// 10 s): the motion reports unknown. On Humble it still holds the result
// (15 min): the restarted bridge reads it, succeeded. Either way the
// confirm retried replays the motion and the server never saw its UUID
// again.
func TestGoalEndedWhileTheBridgeWasDownIsNeverResentAndUnknownOnceForgotten(t *testing.T) {
	t.Parallel()
	for i, c := range []struct {
		distro msgs.Distro
		end    string // what the restarted bridge reports
	}{{msgs.Jazzy, "unknown"}, {msgs.Humble, "succeeded"}} {
		p := ddspeers.BuildNodes(t, c.distro)
		for j, v := range vendors(t, p) {
			t.Run(fmt.Sprintf("%s %s", c.distro, v.name), func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				t.Parallel()
				// A goal runs 1 s; its result is kept as the distro's rcl keeps it.
				robot := startPeerRobot(t, p, v, 40+3*i+j, "--feedback", "10", "--feedback-period", "0.1")
				run := newBridgeRun(t, robot.config(t))
				cs := run.start(t, "")
				pv := bridgetest.MustCall(t, cs, "arm_move_joints", moveJ1(0.5))
				id := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})["motion_id"].(string)
				robot.event(t, "feedback", id, 10*time.Second)
				run.kill()
				down := time.Now()
				robot.event(t, "result", id, 10*time.Second)
				if c.end == "unknown" {
					robot.event(t, "forgotten", id, 20*time.Second)
				}
				time.Sleep(15*time.Second - time.Since(down))
				cs = run.start(t, "")
				if st := motionEnd(t, cs, id, 40*time.Second); st["state"] != c.end {
					t.Fatalf("a goal that ended while the bridge was down 15 s: %v, want %s", st, c.end)
				}
				out, isErr := bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
				if isErr || out["motion_id"] != id || out["replay"] != true {
					t.Fatalf("the retried confirm answered %v, want a replay of %s", out, id)
				}
				time.Sleep(time.Second) // anything the bridge would send has gone out
				if got := robot.goals(t); !maps.Equal(got, map[string]int{id: 1}) {
					t.Fatalf("the server saw goals %v, want %s once", got, id)
				}
				robot.alive(t)
			})
		}
	}
}
