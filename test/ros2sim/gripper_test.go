package ros2sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// TestGripperClosesWithTheDistrosAction: /gripper_controller/gripper_cmd
// is GripperCommand on Humble and Jazzy and ParallelGripperCommand on
// Kilted and Lyrical; either closes the finger to the target and succeeds with
// reached_goal, the finger's position in the result.
func TestGripperClosesWithTheDistrosAction(t *testing.T) {
	const target = 0.01
	for i, d := range msgs.Distros() {
		t.Run(string(d), func(t *testing.T) {
			r := newArmRig(t, d, 80+i)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			parallel := d == msgs.Kilted || d == msgs.Lyrical
			typ := "control_msgs/action/GripperCommand"
			if parallel {
				typ = "control_msgs/action/ParallelGripperCommand"
			}
			c, g := r.actionClient(t, "/gripper_controller/gripper_cmd", typ)
			cmd := g.Get("command").(*cdr.Message)
			if parallel {
				cmd.Set("name", []string{"gripper_finger_joint"})
				cmd.Set("position", []float64{target})
			} else {
				cmd.Set("position", target)
			}
			id := newID(t)
			if err := sendGoal(ctx, c, id, g); err != nil {
				t.Fatalf("send: %v\nsim:\n%s", err, r.sim.Output())
			}
			res, err := c.Result(ctx, id)
			if err != nil || res.Status.Name != "SUCCEEDED" || res.Message.Get("reached_goal") != true {
				t.Fatalf("result: %+v %v\nsim:\n%s", res, err, r.sim.Output())
			}
			var pos float64
			if parallel {
				st := res.Message.Get("state").(*cdr.Message)
				if names := st.Get("name").([]string); len(names) != 1 || names[0] != "gripper_finger_joint" {
					t.Fatalf("state: %s", st.AppendJSON(nil))
				}
				pos = st.Get("position").([]float64)[0]
			} else {
				pos = res.Message.Get("position").(float64)
			}
			if math.Abs(pos-target) > 0.005 {
				t.Fatalf("finger at %g, want %g", pos, target)
			}
		})
	}
}
