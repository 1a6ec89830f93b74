package bridge

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/tf"
)

// qa is a pose of the sim arm away from its singularities.
var qa = []float64{0.2, 0.4, 1.2, 0.3, 1.0, 0.2}

// poseRig is the rig with the sim arm's real limits, kinematic chain and
// the workspace limits ws, standing at qa.
func poseRig(t *testing.T, ws safety.WorkspaceLimits, more ...func(*Previewer)) (*rig, *kinematics.Chain) {
	t.Helper()
	urdf, err := os.ReadFile("../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile("../launch/joint_limits.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lim, _, err := safety.LoadLimits(urdf, yaml)
	if err != nil {
		t.Fatal(err)
	}
	m, err := kinematics.Parse(urdf)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Chain("base_link", "gripper_base_link")
	if err != nil {
		t.Fatal(err)
	}
	ranges := map[string][2]float64{}
	for _, j := range c.Joints() {
		if jl, ok := lim.Joint(j); ok && jl.HasPosition() {
			ranges[j] = [2]float64{jl.MinPosition.Value, jl.MaxPosition.Value}
		}
	}
	if c, err = c.WithBounds(ranges); err != nil {
		t.Fatal(err)
	}
	w, err := safety.NewWorkspace(c, ws)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, append([]func(*Previewer){func(p *Previewer) {
		p.Arms[0] = &ArmModel{Name: "arm", Joints: c.Joints(), Guard: SafetyArm{Limits: lim, Opts: safety.CheckOptions{Workspace: w}}}
	}}, more...)...)
	for i, j := range c.Joints() {
		r.robot.SetJoint(j, qa[i])
	}
	return r, c
}

func toolPoseAt(t *testing.T, c *kinematics.Chain, q []float64) kinematics.Pose {
	t.Helper()
	d := c.NewData()
	if err := c.FK(d, q); err != nil {
		t.Fatal(err)
	}
	return d.ToolPose()
}

func poseArgs(p kinematics.Pose, extra string) string {
	return fmt.Sprintf(`{"position":[%.9f,%.9f,%.9f],"orientation":[%.9f,%.9f,%.9f,%.9f]%s}`,
		p.Position[0], p.Position[1], p.Position[2], p.Orientation[0], p.Orientation[1], p.Orientation[2], p.Orientation[3], extra)
}

// confirmOnce confirms the preview, then confirms it again, and returns
// the one trajectory that reached the robot; it fails unless that is the
// very goal the preview stored and the second confirm sent nothing.
func confirmOnce(t *testing.T, r *rig, pv map[string]any) actuators.Trajectory {
	t.Helper()
	id := pv["preview_id"].(string)
	c1, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	c2, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil || c2["replay"] != true || c2["motion_id"] != c1["motion_id"] {
		t.Fatalf("second confirm: %v %v", c2, e)
	}
	sent := r.robot.SentGoals()
	if len(sent) != 1 {
		t.Fatalf("%d goals reached the robot, want 1", len(sent))
	}
	mo, err := r.store.Get(sent[0].GoalID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := r.store.GetPreview(mo.PreviewID)
	if err != nil {
		t.Fatal(err)
	}
	var g previewGoal
	if err := json.Unmarshal(stored.Goal, &g); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Goal, sent[0].Goal) {
		t.Fatalf("sent %+v, previewed %+v", sent[0].Goal, g.Goal)
	}
	tr, ok := sent[0].Goal.(actuators.Trajectory)
	if !ok {
		t.Fatalf("sent %T", sent[0].Goal)
	}
	return tr
}

func endPose(t *testing.T, c *kinematics.Chain, tr actuators.Trajectory) kinematics.Pose {
	t.Helper()
	last := tr.Points[len(tr.Points)-1].Positions
	q := make([]float64, len(c.Joints()))
	for i, j := range c.Joints() {
		k := slicesIndex(tr.Joints, j)
		if k < 0 {
			t.Fatalf("joint %s not sent", j)
		}
		q[i] = last[k]
	}
	return toolPoseAt(t, c, q)
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func poseDistance(a, b kinematics.Pose) (float64, float64) {
	return distance(a.Position, b.Position), angleBetween(a.Orientation, b.Orientation)
}

func TestPoseGoalConfirmSendsThePreviewedTrajectoryToThePoseOnce(t *testing.T) {
	for _, path := range []string{"joint", "line"} {
		t.Run(path, func(t *testing.T) {
			r, c := poseRig(t, safety.WorkspaceLimits{})
			goal := toolPoseAt(t, c, []float64{0.0, 0.6, 0.9, 0.1, 1.3, 0.4})
			pv, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, `,"path":"`+path+`"`))
			if e != nil {
				t.Fatal(e)
			}
			if r.robot.GoalsSent() != 0 {
				t.Fatal("a preview reached the robot")
			}
			ik, _ := pv["ik"].(map[string]any)
			if ik == nil || ik["path"] != path || ik["frame"] != "base_link" || ik["link"] != "gripper_base_link" || ik["solution"] == nil || pv["tool_path"] == nil {
				t.Fatalf("preview: %v", pv)
			}
			if pe, oe := ik["position_error_m"].(float64), ik["orientation_error_rad"].(float64); pe > 1e-6 || oe > 1e-6 {
				t.Fatalf("residuals %g m, %g rad", pe, oe)
			}
			tr := confirmOnce(t, r, pv)
			if dp, da := poseDistance(endPose(t, c, tr), goal); dp > 1e-6 || da > 1e-6 {
				t.Fatalf("the sent trajectory ends %g m and %g rad from the goal", dp, da)
			}
			if path == "line" && len(tr.Points) != int(ik["steps"].(float64)) {
				t.Fatalf("%d points for %v steps", len(tr.Points), ik["steps"])
			}
		})
	}
}

// On a line path the tool stays on the segment from its start to the goal
// all along the spline the controller runs, not only at the waypoints.
func TestLinePathKeepsTheToolOnTheSegment(t *testing.T) {
	r, c := poseRig(t, safety.WorkspaceLimits{})
	start := toolPoseAt(t, c, qa)
	goal := start
	goal.Position[0] += 0.15
	goal.Position[2] -= 0.1
	pv, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, `,"path":"line"`))
	if e != nil {
		t.Fatal(e)
	}
	tr := confirmOnce(t, r, pv)
	st := make([]spline.State, len(tr.Joints))
	for i := range st {
		st[i].Pos = qa[slicesIndex(c.Joints(), tr.Joints[i])]
	}
	sp, err := spline.New(st, tr.Points)
	if err != nil {
		t.Fatal(err)
	}
	worst, worstJoint := 0.0, 0.0
	q := make([]float64, len(st))
	for k := 0; k <= 2000; k++ {
		sp.At(sp.Duration()*float64(k)/2000, st)
		for i, j := range c.Joints() {
			q[i] = st[slicesIndex(tr.Joints, j)].Pos
		}
		p := toolPoseAt(t, c, q)
		worst = max(worst, segmentDistance(p.Position, start.Position, goal.Position))
		worstJoint = max(worstJoint, angleBetween(p.Orientation, start.Orientation))
	}
	if worst > 0.0005 || worstJoint > 1e-3 {
		t.Fatalf("the tool leaves the line by %g m (orientation drifts %g rad)", worst, worstJoint)
	}
}

func segmentDistance(p, a, b kinematics.Vec3) float64 {
	ab := kinematics.Vec3{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
	l2 := ab[0]*ab[0] + ab[1]*ab[1] + ab[2]*ab[2]
	s := ((p[0]-a[0])*ab[0] + (p[1]-a[1])*ab[1] + (p[2]-a[2])*ab[2]) / l2
	s = math.Max(0, math.Min(1, s))
	return distance(p, kinematics.Vec3{a[0] + s*ab[0], a[1] + s*ab[1], a[2] + s*ab[2]})
}

func TestUnreachablePoseIsRefusedWithTheClosestPose(t *testing.T) {
	for _, path := range []string{"joint", "line"} {
		t.Run(path, func(t *testing.T) {
			r, _ := poseRig(t, safety.WorkspaceLimits{})
			_, e := r.call(t, RolePlanner, "arm_move_pose", `{"position":[3,0,0.5],"path":"`+path+`"}`)
			if e == nil || e.Code != CodeInvalidArgument || e.Rule != "reachable" {
				t.Fatalf("unreachable pose: %v", e)
			}
			d, _ := e.Details.(map[string]any)
			cl, _ := d["closest"].(map[string]any)
			if cl == nil || cl["position"] == nil || cl["orientation"] == nil || cl["joints"] == nil || !(cl["position_error_m"].(float64) > 0) {
				t.Fatalf("details %v", e.Details)
			}
			if path == "line" && d["step"] == nil {
				t.Fatalf("a line's refusal names no step: %v", d)
			}
			if !strings.Contains(e.Message, "closest reachable pose") || r.robot.GoalsSent() != 0 {
				t.Fatalf("message %q, %d sent", e.Message, r.robot.GoalsSent())
			}
			_, e = r.call(t, RolePlanner, "arm_move_relative", `{"translation":[2,0,0],"path":"`+path+`"}`)
			want := map[string]string{"joint": "translation", "line": "path"}[path] // a line fails at a step
			if e == nil || e.Rule != "reachable" || e.Field != want || e.Details.(map[string]any)["closest"] == nil {
				t.Fatalf("a relative move out of reach: %v", e)
			}
		})
	}
}

// A forbidden box astride the straight line, clear of its ends, refuses
// the line with the link, the point inside and the time.
func TestLineThroughAForbiddenBoxIsRefusedWithLinkPointAndTime(t *testing.T) {
	var c *kinematics.Chain
	{
		_, c0 := poseRig(t, safety.WorkspaceLimits{})
		c = c0
	}
	start := toolPoseAt(t, c, qa)
	goal := start
	goal.Position[1] += 0.2
	mid := kinematics.Vec3{start.Position[0], start.Position[1] + 0.1, start.Position[2]}
	box := safety.Zone{Name: "post", Links: []string{"gripper_base_link"}, Box: safety.Box{
		Min: [3]float64{mid[0] - 0.02, mid[1] - 0.01, mid[2] - 0.02}, Max: [3]float64{mid[0] + 0.02, mid[1] + 0.01, mid[2] + 0.02}}}
	r, _ := poseRig(t, safety.WorkspaceLimits{Forbidden: []safety.Zone{box}})
	_, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, `,"path":"line"`))
	if e == nil || e.Code != CodeLimitViolation {
		t.Fatalf("line through the box: %v", e)
	}
	vs, _ := e.Details.(map[string]any)["violations"].([]violationJSON)
	if len(vs) == 0 {
		t.Fatalf("details %v", e.Details)
	}
	v := vs[0]
	if v.Link != "gripper_base_link" || v.Zone != "post" || v.Kind != string(safety.KindForbidden) || v.Point == nil || !(v.TimeS > 0) {
		t.Fatalf("violation %+v", v)
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("a refused preview reached the robot")
	}
}

func TestRelativeMovesInBaseAndToolFrames(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       func(start kinematics.Pose) kinematics.Pose
	}{
		{"10 cm up in the base", `{"translation":[0,0,0.1],"path":"line"}`, func(s kinematics.Pose) kinematics.Pose {
			s.Position[2] += 0.1
			return s
		}},
		{"5 cm along the tool's z", `{"translation":[0,0,0.05],"frame":"gripper_base_link"}`, func(s kinematics.Pose) kinematics.Pose {
			z := rotateVec(s.Orientation, kinematics.Vec3{0, 0, 0.05})
			s.Position = kinematics.Vec3{s.Position[0] + z[0], s.Position[1] + z[1], s.Position[2] + z[2]}
			return s
		}},
		{"yaw 0.3 about the base's z at the tool", `{"rotation_rpy":[0,0,0.3]}`, func(s kinematics.Pose) kinematics.Pose {
			s.Orientation = quatMul(kinematics.Quat{0, 0, math.Sin(0.15), math.Cos(0.15)}, s.Orientation)
			return s
		}},
		{"roll 0.3 about the tool's x", `{"rotation_rpy":[0.3,0,0],"frame":"gripper_base_link","path":"line"}`, func(s kinematics.Pose) kinematics.Pose {
			s.Orientation = quatMul(s.Orientation, kinematics.Quat{math.Sin(0.15), 0, 0, math.Cos(0.15)})
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := poseRig(t, safety.WorkspaceLimits{})
			want := tc.want(toolPoseAt(t, c, qa))
			pv, e := r.call(t, RolePlanner, "arm_move_relative", tc.args)
			if e != nil {
				t.Fatal(e)
			}
			if dp, da := poseDistance(endPose(t, c, confirmOnce(t, r, pv)), want); dp > 1e-6 || da > 1e-6 {
				t.Fatalf("the move ends %g m and %g rad from where it should", dp, da)
			}
		})
	}
}

func TestPoseInAnotherFrameIsRefusedNamingTheFrame(t *testing.T) {
	r, _ := poseRig(t, safety.WorkspaceLimits{})
	reads := r.robot.FreshReads()
	for tool, args := range map[string]string{
		"arm_move_pose":     `{"position":[0.3,0,0.4],"frame":"map"}`,
		"arm_move_relative": `{"translation":[0,0,0.1],"frame":"map"}`,
	} {
		_, e := r.call(t, RolePlanner, tool, args)
		if e == nil || e.Field != "frame" || e.Actual != `"map"` || !strings.Contains(e.Expected, "base_link") {
			t.Fatalf("%s in map: %v", tool, e)
		}
	}
	if r.robot.FreshReads() != reads {
		t.Fatal("a pose in a refused frame read the robot")
	}
	_, e := r.call(t, RolePlanner, "arm_move_pose", `{"position":[0.3,0,0.4],"orientation":[0,0,0.5,0.5]}`)
	if e == nil || e.Field != "orientation" {
		t.Fatalf("non-unit quaternion: %v", e)
	}
}

func rotateVec(q kinematics.Quat, v kinematics.Vec3) kinematics.Vec3 {
	return tf.Transform{Rotation: q}.Apply(v)
}

func quatMul(a, b kinematics.Quat) kinematics.Quat {
	return tf.Transform{Rotation: a}.Mul(tf.Transform{Rotation: b}).Rotation
}

// Without duration_s a line is timed so the checks pass: under the tool's
// speed cap (scaled by speed_fraction), within the joints' limits.
func TestLineDefaultTimingKeepsTheToolUnderItsSpeedCap(t *testing.T) {
	r, c := poseRig(t, safety.WorkspaceLimits{ToolSpeedMax: 0.1})
	goal := toolPoseAt(t, c, qa)
	goal.Position[0] -= 0.2
	for _, f := range []float64{1, 0.5} {
		pv, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, fmt.Sprintf(`,"path":"line","speed_fraction":%g`, f)))
		if e != nil {
			t.Fatalf("speed_fraction %g: %v", f, e)
		}
		peak := pv["tool_path"].(map[string]any)["peak_speed"].(map[string]any)["m_s"].(float64)
		if peak > 0.1*f || peak < 0.1*f/2 {
			t.Fatalf("speed_fraction %g: the tool's peak speed is %g m/s under a 0.1 m/s cap", f, peak)
		}
	}
}

// A line over the shoulder's axis needs the pan joint to swing half a turn
// within one step: refused at that step, naming the joint, nothing sent.
func TestLineThatWouldFlipTheArmIsRefusedAtTheStep(t *testing.T) {
	r, c := poseRig(t, safety.WorkspaceLimits{})
	for i, j := range c.Joints() {
		r.robot.SetJoint(j, []float64{0, -0.8, 1.6, -0.8, 1.57, 0}[i]) // the tool right above the pan axis
	}
	_, e := r.call(t, RolePlanner, "arm_move_relative", `{"translation":[0,0.2,0],"path":"line"}`)
	if e == nil || e.Rule != "line_continuous" {
		t.Fatalf("line over the pan axis: %v", e)
	}
	d, _ := e.Details.(map[string]any)
	if d["joint"] == nil || d["step"] == nil || d["step_pose"] == nil || r.robot.GoalsSent() != 0 {
		t.Fatalf("details %v, %d sent", d, r.robot.GoalsSent())
	}
}
