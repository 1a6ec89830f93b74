package ros2sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgs"
	"github.com/actbridge/actbridge/ros2/qos"
)

// TestNavigateToPoseSucceedsWithTheDistrosResult: /navigate_to_pose
// drives the base to the goal, sends feedback with the distance left,
// and succeeds with the distro's result (Humble: Empty; Jazzy, Kilted:
// error_code 0); odometry then shows the base there.
func TestNavigateToPoseSucceedsWithTheDistrosResult(t *testing.T) {
	const typ = "nav2_msgs/action/NavigateToPose"
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy} {
		t.Run(string(d), func(t *testing.T) {
			r := newArmRig(t, d, 85+i)
			ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
			defer cancel()
			c, g := r.actionClient(t, "/navigate_to_pose", typ)
			ps := g.Get("pose").(*cdr.Message)
			field(ps, "header").(*cdr.Message).Set("frame_id", "map")
			field(ps, "pose.position").(*cdr.Message).Set("x", 0.4)
			field(ps, "pose.orientation").(*cdr.Message).Set("w", 1.0)
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
