package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// nextTF steps the robot until it publishes /tf, and returns that
// message and everything else since the last Drain: the robot's state is
// then the one /tf describes.
func nextTF(t *testing.T, r *Robot) (*TFMessage, []Message) {
	t.Helper()
	ms := r.Drain()
	for range 1000 {
		r.Advance(time.Millisecond)
		for _, m := range r.Drain() {
			ms = append(ms, m)
			if tf, ok := m.(*TFMessage); ok {
				return tf, ms
			}
		}
	}
	t.Fatal("no /tf message")
	return nil, nil
}

func tfPose(tr Transform) transform {
	q := tr.Rotation
	return transform{r: quatMatrix(q.X, q.Y, q.Z, q.W), p: vec3{tr.Translation.X, tr.Translation.Y, tr.Translation.Z}}
}

// chain composes the transforms from root down to frame.
func chain(t *testing.T, trs []Transform, root, frame string) transform {
	t.Helper()
	parent := map[string]Transform{}
	for _, tr := range trs {
		parent[tr.Child] = tr
	}
	out := identityTransform()
	for f := frame; f != root; {
		tr, ok := parent[f]
		if !ok {
			t.Fatalf("no transform to %q on the way to %q", f, root)
		}
		out = tfPose(tr).then(out)
		f = tr.Frame
	}
	return out
}

func nearTransform(a, b transform, tol float64) bool {
	if a.p.sub(b.p).norm() > tol {
		return false
	}
	for i := range 3 {
		if a.r.col(i).sub(b.r.col(i)).norm() > tol {
			return false
		}
	}
	return true
}

// TestDriftedOdometryKeepsTheTruePoseInMap: with the drift on, /odom and
// odom→base_footprint move away from the true pose while map→odom
// compensates, so map→base_footprint is the truth.
func TestDriftedOdometryKeepsTheTruePoseInMap(t *testing.T) {
	r := newTestRobot(t, func(c *Config) { c.OdomDrift = Pose2D{X: 0.05, Y: -0.03, Yaw: 0.02} })
	for range 40 {
		r.CmdVel(0.3, 0.2)
		r.Advance(100 * time.Millisecond)
	}
	tf, ms := nextTF(t, r)
	truth, odom := r.MapPose(), r.BasePose()
	if d := math.Hypot(truth.X-odom.X, truth.Y-odom.Y); d < 0.15 {
		t.Fatalf("odometry did not drift: true %+v, odom %+v", truth, odom)
	}
	got := chain(t, tf.Transforms, MapFrame, BaseFrame)
	want := transform{r: axisAngle(vec3{0, 0, 1}, truth.Yaw), p: vec3{truth.X, truth.Y, 0}}
	if !nearTransform(got, want, 1e-9) {
		t.Errorf("map→base_footprint %+v, true pose %+v", got, truth)
	}
	var last *Odometry
	for _, m := range ms {
		if o, ok := m.(*Odometry); ok {
			last = o
		}
	}
	if last == nil || math.Abs(last.Pose.Position.X-odom.X) > 1e-9 || math.Abs(last.Pose.Position.Y-odom.Y) > 1e-9 {
		t.Errorf("/odom %+v, odometry's pose %+v", last, odom)
	}
}

// TestMapGoalIsReachedInMapDespiteDrift: a navigation goal in the map
// frame ends at the target in the map frame; one in the odom frame at the
// target in the drifted odom frame.
func TestMapGoalIsReachedInMapDespiteDrift(t *testing.T) {
	for _, frame := range []string{MapFrame, OdomFrame} {
		t.Run(frame, func(t *testing.T) {
			r := newTestRobot(t, func(c *Config) { c.OdomDrift = Pose2D{X: 0.04, Yaw: 0.01} })
			r.Advance(5 * time.Second)
			r.NavigateGoal(GoalID{ID: "g"}, navTo(1, 0.5, math.Pi/2, frame))
			if o := runUntilDone(t, r, MoveBase, "g", 30*time.Second); o.Status != StatusSucceeded {
				t.Fatalf("%s (%s)", StatusName(o.Status), o.Text)
			}
			p := r.MapPose()
			if frame == OdomFrame {
				// The goal was put in the map frame when it arrived.
				p = compose2D(invert2D(Pose2D{X: 0.04 * 5, Yaw: 0.01 * 5}), p)
			}
			if math.Hypot(p.X-1, p.Y-0.5) > 0.05 || math.Abs(wrapAngle(p.Yaw-math.Pi/2)) > 0.05 {
				t.Errorf("ended at %+v in %s", p, frame)
			}
		})
	}
}

// TestTFLinksAreTheSimsForwardKinematics: /tf and /tf_static together
// place every link where the sim's own FK does, from map down.
func TestTFLinksAreTheSimsForwardKinematics(t *testing.T) {
	r := newTestRobot(t, func(c *Config) { c.OdomDrift = Pose2D{Y: 0.1, Yaw: -0.05} })
	r.ArmGoal(GoalID{ID: "m"}, traj(r, 1, []float64{0.4, -0.6, 1.1, 0.3, -0.8, 1.5}))
	r.CmdVel(0.2, 0.3)
	r.Advance(1500 * time.Millisecond)
	tf, _ := nextTF(t, r)
	all := append(r.StaticTransforms().Transforms, tf.Transforms...)
	for _, link := range []string{"base_link", "wrist_3_link", "gripper_finger_link"} {
		p, rot, ok := r.LinkPose(link)
		if !ok {
			t.Fatalf("no link %q", link)
		}
		if got := chain(t, all, MapFrame, link); !nearTransform(got, transform{r: rot, p: p}, 1e-9) {
			t.Errorf("%s: tf %+v, FK %v %v", link, got, p, rot)
		}
	}
	for _, tr := range r.StaticTransforms().Transforms {
		if tr.Child == "wrist_3_link" || tr.Child == BaseFrame {
			t.Errorf("a moving frame on /tf_static: %+v", tr)
		}
	}
}

// TestTFJoinsAURDFRootedElsewhereToTheBase: a URDF whose root is not
// base_footprint still hangs from it (the sim puts the root on the base).
func TestTFJoinsAURDFRootedElsewhereToTheBase(t *testing.T) {
	urdf := strings.Replace(DefaultURDF, `<link name="base_footprint"/>`, "", 1)
	i, j := strings.Index(urdf, `<joint name="base_joint"`), strings.Index(urdf, `<link name="shoulder_link">`)
	urdf = urdf[:i] + urdf[j:]
	r := newTestRobot(t, func(c *Config) { c.URDF = urdf })
	tf, _ := nextTF(t, r)
	all := append(r.StaticTransforms().Transforms, tf.Transforms...)
	p, rot, _ := r.LinkPose("wrist_3_link")
	if got := chain(t, all, MapFrame, "wrist_3_link"); !nearTransform(got, transform{r: rot, p: p}, 1e-9) {
		t.Errorf("wrist_3_link: tf %+v, FK %v %v", got, p, rot)
	}
}
