package ros2sim

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/qos"
)

// TestNavigateToPoseSucceedsWithTheDistrosResult: /navigate_to_pose
// drives the base to the goal, sends feedback with the distance left
// (Lyrical's with the tracking errors: on the straight path, pointing
// along it once turned), and succeeds with the distro's result (Humble:
// Empty; Jazzy and later: error_code 0); odometry then shows the base
// there.
func TestNavigateToPoseSucceedsWithTheDistrosResult(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy, msgs.Lyrical} {
		t.Run(string(d), func(t *testing.T) {
			r := newArmRig(t, d, 85+i)
			ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
			defer cancel()
			c, g := navGoal(t, r, "map", 0.4)
			id := newID(t)
			if err := sendGoal(ctx, c, id, g); err != nil {
				t.Fatalf("send: %v\nsim:\n%s", err, r.sim.Output())
			}
			fb, err := c.Feedback(id)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case m := <-fb:
				if left := m.Get("distance_remaining").(float32); left <= 0 || left > 0.41 {
					t.Fatalf("feedback: %s", m.AppendJSON(nil))
				}
				tracking := m.Type.FieldIndex("heading_tracking_error") >= 0
				if tracking != (d == msgs.Lyrical) || tracking && (m.Get("position_tracking_error") != float32(0) ||
					math.Abs(float64(m.Get("heading_tracking_error").(float32))) > 0.01) {
					t.Fatalf("%s feedback: %s", d, m.AppendJSON(nil))
				}
			case <-ctx.Done():
				t.Fatal("no feedback")
			}
			res, err := c.Result(ctx, id)
			if err != nil || res.Status.Name != "SUCCEEDED" {
				t.Fatalf("result: %+v %v\nsim:\n%s", res, err, r.sim.Output())
			}
			if hasCode := res.Message.Type.FieldIndex("error_code") >= 0; hasCode != (d != msgs.Humble) || (hasCode && res.Message.Get("error_code") != uint16(0)) {
				t.Fatalf("%s result: %s", d, res.Message.AppendJSON(nil))
			}
			odom := subscribe(t, client(t, d, r.domain, "odom"), "/diff_drive_controller/odom", "nav_msgs/msg/Odometry", qos.Default)
			if x := field(take(ctx, t, odom, r.sim), "pose.pose.position.x").(float64); math.Abs(x-0.4) > 0.1 {
				t.Fatalf("base at x=%g, want 0.4", x)
			}
		})
	}
}

// navGoal is a NavigateToPose client on the rig and a goal to x in frame.
func navGoal(t *testing.T, r *armRig, frame string, x float64) (*action.Client, *cdr.Message) {
	t.Helper()
	c, g := r.actionClient(t, r.ns+"/navigate_to_pose", "nav2_msgs/action/NavigateToPose")
	ps := g.Get("pose").(*cdr.Message)
	field(ps, "header").(*cdr.Message).Set("frame_id", frame)
	field(ps, "pose.position").(*cdr.Message).Set("x", x)
	field(ps, "pose.orientation").(*cdr.Message).Set("w", 1.0)
	return c, g
}

// TestLyricalNavigationRejectsAGoalItCannotTransform: Nav2 1.5
// (Lyrical) checks a goal pose's transform when the goal arrives and
// rejects one it cannot transform, so the base never gets it; Kilted's
// accepted it and aborted it with an error code.
func TestLyricalNavigationRejectsAGoalItCannotTransform(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Kilted, msgs.Lyrical} {
		t.Run(string(d), func(t *testing.T) {
			r := newArmRig(t, d, 88+i)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			c, g := navGoal(t, r, "no_such_frame", 0.4)
			id := newID(t)
			err := sendGoal(ctx, c, id, g)
			if d == msgs.Lyrical {
				if !errors.Is(err, action.ErrRejected) {
					t.Fatalf("send: %v, want ErrRejected\nsim:\n%s", err, r.sim.Output())
				}
				if a := r.goalLog(ctx, t)["move_base"]; a.Received != 0 {
					t.Fatalf("the sim's base received the goal: %+v", a)
				}
				return
			}
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			res, err := c.Result(ctx, id)
			if err != nil || res.Status.Name != "ABORTED" || res.Message.Get("error_code") == uint16(0) {
				t.Fatalf("result: %+v %v", res, err)
			}
		})
	}
}
