package test

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/test/bridgetest"
)

// Issue 36, Cartesian goals over ROS 2: arm_move_pose's preview, once
// confirmed, puts the sim's tool at the pose (a straight line to it),
// arm_move_relative moves it 5 cm up from there, and a pose given in map
// is placed through the sim's /tf: each checked by FK of the joint states
// the sim publishes, within 1 mm, and each confirm replayed sends nothing.
func TestPoseGoalPutsTheSimsToolAtThePose(t *testing.T) {
	c, fk := simToolFK(t)
	joints := c.Joints()
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, config: simConfig(t, tr, nil)})
		cs := w.mcpClient("")
		run := func(tool string, args map[string]any) map[string]any {
			t.Helper()
			pv := bridgetest.MustCall(t, cs, tool, args)
			mc := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
			rostest.Eventually(t, 60*time.Second, tool+" done", func() error {
				st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": mc["motion_id"], "wait_s": 2})
				if st["state"] != "succeeded" {
					return errState(st)
				}
				return nil
			})
			// A replayed confirm answers the same motion and sends nothing.
			before := w.goalsReceived()
			again := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
			if again["replay"] != true || again["motion_id"] != mc["motion_id"] || w.goalsReceived() != before {
				t.Fatalf("replayed confirm of %s: %v, the sim received %d goals, had %d", tool, again, w.goalsReceived(), before)
			}
			return pv
		}
		// Away from the upright rest pose, where the wrist is singular.
		qa := []float64{0.2, 0.4, 1.2, 0.3, 1.0, 0.2}
		pos := map[string]any{}
		for i, j := range joints {
			pos[j] = qa[i]
		}
		run("arm_move_joints", map[string]any{"positions": pos})

		toolAt := func() kinematics.Pose {
			t.Helper()
			js := w.simJointPositions(t)
			q := make([]float64, len(joints))
			for i, j := range joints {
				v, ok := js[j]
				if !ok {
					t.Fatalf("/joint_states lacks %s: %v", j, js)
				}
				q[i] = v
			}
			return fk(q)
		}
		goal := fk([]float64{0.0, 0.6, 0.9, 0.1, 1.3, 0.4})
		pv := run("arm_move_pose", map[string]any{"position": goal.Position[:], "orientation": goal.Orientation[:], "path": "line"})
		if ik, _ := pv["ik"].(map[string]any); ik == nil || ik["path"] != "line" || ik["solution"] == nil {
			t.Fatalf("preview without the IK result: %v", pv)
		}
		at := toolAt()
		t.Logf("arm_move_pose: the sim's tool %v, goal %v", at.Position, goal.Position)
		if e := dist(at.Position, goal.Position); e > 0.001 {
			t.Fatalf("the sim's tool is at %v, %g m from the goal %v", at.Position, e, goal.Position)
		}

		up := at
		up.Position[2] += 0.05
		run("arm_move_relative", map[string]any{"translation": []float64{0, 0, 0.05}})
		if at := toolAt(); dist(at.Position, up.Position) > 0.001 {
			t.Fatalf("after 5 cm up the sim's tool is at %v, want %v", at.Position, up.Position)
		}

		// A pose in map, which the sim's /tf places: the base stands at
		// map's origin and base_link is 0.15 m above base_footprint
		// (simrobot.urdf's base_joint), so map is base_link 0.15 m down.
		inBase := fk([]float64{0.3, 0.5, 1.0, 0.2, 1.1, 0.3})
		inMap := inBase.Position
		inMap[2] += 0.15
		pv = run("arm_move_pose", map[string]any{"position": inMap[:], "orientation": inBase.Orientation[:], "frame": "map"})
		if ik, _ := pv["ik"].(map[string]any); ik == nil || ik["given"] == nil {
			t.Fatalf("a map pose previewed without the goal as given: %v", pv["ik"])
		}
		if at := toolAt(); dist(at.Position, inBase.Position) > 0.001 {
			t.Fatalf("a pose given in map put the sim's tool at %v (base link), want %v", at.Position, inBase.Position)
		}
	}, ros1, ros2)
}

// simToolFK is the sim arm's chain from base_link to its gripper and its
// forward kinematics, computed by the bridge's kinematics package.
func simToolFK(t *testing.T) (*kinematics.Chain, func([]float64) kinematics.Pose) {
	t.Helper()
	data, err := os.ReadFile("../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	m, err := kinematics.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Chain("base_link", "gripper_base_link")
	if err != nil {
		t.Fatal(err)
	}
	d := c.NewData()
	return c, func(q []float64) kinematics.Pose {
		if err := c.FK(d, q); err != nil {
			t.Fatal(err)
		}
		return d.ToolPose()
	}
}

func dist(a, b kinematics.Vec3) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}
