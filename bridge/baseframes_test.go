package bridge

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/tf"
)

// fakeFrames answers every lookup of map←odom with one transform of the
// given age, or err, and counts the lookups.
type fakeFrames struct {
	x, y, yaw, roll float64
	age             time.Duration
	err             error
	asked           []string
}

func (f *fakeFrames) Transform(target, source string, maxAge time.Duration) (tf.Transform, time.Time, error) {
	f.asked = append(f.asked, fmt.Sprintf("%s<-%s %v", target, source, maxAge))
	if f.err != nil {
		return tf.Transform{}, time.Time{}, f.err
	}
	if target != "map" || source != "odom" {
		return tf.Transform{}, time.Time{}, &tf.Error{Err: tf.ErrUnknownFrame, Frame: source}
	}
	if f.age > maxAge {
		return tf.Transform{}, time.Time{}, &tf.Error{Err: tf.ErrStale, Frame: "odom", Detail: fmt.Sprintf("newest transform is %v old, at most %v accepted", f.age, maxAge)}
	}
	sy, cy := math.Sincos(f.yaw / 2)
	sr, cr := math.Sincos(f.roll / 2)
	q := kinematics.Quat{cy * sr, sy * sr, sy * cr, cy * cr} // yaw ∘ roll
	return tf.Transform{Translation: kinematics.Vec3{f.x, f.y, 0}, Rotation: q}, time.Now().Add(-f.age), nil
}

// mapFenced is a rig whose base reports odometry in odom and is fenced
// ±2 m in map, odom lying 1.5 m along map's x (the drift TF reports).
func mapFenced(t *testing.T, frames actuators.Frames) *rig {
	t.Helper()
	b, err := safety.NewBase(safety.BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1,
		Geofence: safety.Fence{Frame: "map", MinX: -2, MaxX: 2, MinY: -2, MaxY: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return newRig(t, func(p *Previewer) {
		p.Bases = []*BaseModel{{Name: "base", Frame: "odom", MaxDriveS: 10, Guard: SafetyBase{Base: b}, Frames: frames}}
	})
}

// A goal inside the fence as odometry sees it but outside it in map,
// where the fence is declared, is refused whichever frame it is given in,
// and nothing is sent; the same place asked for in map is refused too,
// and a goal inside the map fence is previewed in both frames and sent in
// the frame it was given in.
func TestABaseGoalIsCheckedAgainstTheFenceInTheFencesFrame(t *testing.T) {
	frames := &fakeFrames{x: 1.5}
	r := mapFenced(t, frames)
	for _, args := range []string{`{"x":1,"y":0,"frame":"odom"}`, `{"x":1,"y":0}`, `{"x":2.5,"y":0,"frame":"map"}`} {
		_, e := r.call(t, RolePlanner, "base_navigate", args)
		if e == nil || e.Code != CodeLimitViolation || !strings.Contains(fmt.Sprint(e.Details), "geofence") {
			t.Fatalf("%s: %+v, want a geofence limit_violation (odom x 1 is map x 2.5)", args, e)
		}
	}
	out, e := r.call(t, RolePlanner, "base_navigate", `{"x":1.8,"y":0,"frame":"map"}`)
	if e != nil {
		t.Fatalf("a goal inside the map fence: %+v", e)
	}
	both, _ := out["frames"].(map[string]any)
	odom, _ := both["odom"].(map[string]any)
	inMap, _ := both["map"].(map[string]any)
	if odom == nil || inMap == nil {
		t.Fatalf("preview shows no poses in both frames: %v", out)
	}
	if to := fmt.Sprint(odom["to"]); !strings.Contains(to, "0.3") {
		t.Fatalf("goal in odom: %v, want x 0.3 (map 1.8 less the 1.5 drift)", to)
	}
	if from := fmt.Sprint(inMap["from"]); !strings.Contains(from, "1.5") {
		t.Fatalf("start in map: %v, want x 1.5", from)
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatalf("%d goals sent by previews", r.robot.GoalsSent())
	}
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+out["preview_id"].(string)+`"}`); e != nil {
		t.Fatal(e)
	}
	sent := r.robot.SentGoals()
	if len(sent) != 1 {
		t.Fatalf("%d goals sent, want 1", len(sent))
	}
	if nv, ok := sent[0].Goal.(actuators.Navigate); !ok || nv.Target.Frame != "map" || nv.Target.X != 1.8 {
		t.Fatalf("sent %+v, want the map goal as given", sent[0].Goal)
	}
	if len(frames.asked) == 0 || frames.asked[0] != "map<-odom 1s" {
		t.Fatalf("lookups %v, want map<-odom with the default 1 s age", frames.asked)
	}
}

// base_drive's arc is checked in the fence's frame from the odometry pose
// mapped there: a drive that stays inside ±2 in odom but crosses map's
// x = 2 is refused; its end pose is still reported in odom.
func TestABaseDrivesArcIsCheckedInTheFencesFrame(t *testing.T) {
	r := mapFenced(t, &fakeFrames{x: 1.5})
	_, e := r.call(t, RolePlanner, "base_drive", `{"linear":0.4,"duration_s":2}`)
	if e == nil || e.Code != CodeLimitViolation {
		t.Fatalf("odom 0→0.8 is map 1.5→2.3: %+v, want limit_violation", e)
	}
	out, e := r.call(t, RolePlanner, "base_drive", `{"linear":-0.4,"duration_s":2}`)
	if e != nil {
		t.Fatalf("backing off inside the map fence: %+v", e)
	}
	if end := out["end_pose"].(map[string]any); end["frame"] != "odom" || end["x"].(float64) != -0.8 {
		t.Fatalf("end_pose %v, want odom x -0.8", end)
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("a preview sent a goal")
	}
}

// Without a usable odom→map transform nothing is previewed, and the
// refusal says which transform, how old it is, and the rule.
func TestABaseGoalWithoutAFreshUprightTransformIsRefusedNamingIt(t *testing.T) {
	for _, c := range []struct {
		name   string
		frames actuators.Frames
		rule   string
		says   string
	}{
		{"stale", &fakeFrames{x: 1.5, age: 3 * time.Second}, ruleTFMaxAge, "3s old"},
		{"unknown", &fakeFrames{err: &tf.Error{Err: tf.ErrUnknownFrame, Frame: "map"}}, ruleTFLookup, "unknown frame"},
		{"tilted", &fakeFrames{x: 1.5, roll: 0.3}, ruleTFMaxTilt, "tilts 0.300"},
		{"no tf", nil, "", "no transform odom→map is read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mapFenced(t, c.frames)
			for _, call := range [][2]string{{"base_navigate", `{"x":0,"y":0,"frame":"map"}`}, {"base_drive", `{"linear":0.1,"duration_s":1}`}} {
				_, e := r.call(t, RolePlanner, call[0], call[1])
				if e == nil || e.Code != CodeUnavailable || e.Rule != c.rule || !strings.Contains(e.Message+e.State, c.says) || !strings.Contains(e.Message+e.State, "odom→map") {
					t.Fatalf("%s: %+v, want unavailable, rule %q, saying %q", call[0], e, c.rule, c.says)
				}
			}
			if r.robot.GoalsSent() != 0 {
				t.Fatal("a goal was sent")
			}
		})
	}
}

// A base fenced in its odometry's frame needs no TF: goals in map are
// refused as not its frame, and its previews show one frame.
func TestABaseFencedInOdomWorksWithoutTF(t *testing.T) {
	r := newRig(t)
	out, e := r.call(t, RolePlanner, "base_navigate", `{"x":1,"y":0}`)
	if e != nil {
		t.Fatal(e)
	}
	if _, ok := out["frames"]; ok {
		t.Fatalf("one frame, yet the preview shows frames: %v", out)
	}
	if _, e := r.call(t, RolePlanner, "base_navigate", `{"x":1,"y":0,"frame":"map"}`); e == nil || e.Field != "frame" {
		t.Fatalf("map goal on a base without it: %+v", e)
	}
}

// A preview in both frames keeps the tool's promise of under 1 KB, even
// for a recovery drive (out_of_range too) with every number at full length.
func TestABasePreviewInBothFramesStaysUnderOneKilobyte(t *testing.T) {
	r := mapFenced(t, &fakeFrames{x: 2.1234567, y: -0.1234567, yaw: 0.0000001})
	for _, c := range []struct {
		start      float64 // odom x; map x is 2.12 more
		tool, args string
	}{
		{0.1234567, "base_drive", `{"linear":-0.0123456,"duration_s":1.2345678}`},
		{-0.5234567, "base_navigate", `{"x":-1.8123456,"y":1.8123457,"yaw":-3.1234567,"frame":"map"}`},
	} {
		r.robot.SetPose(actuators.Pose2D{Frame: "odom", X: c.start, Y: -0.1234567, Yaw: 0.0000001})
		out, e := r.call(t, RolePlanner, c.tool, c.args)
		if e != nil {
			t.Fatalf("%s: %+v", c.tool, e)
		}
		if c.tool == "base_drive" && out["recovery"] != true {
			t.Fatalf("%s from outside the map fence: %v, want a recovery", c.tool, out)
		}
		if b, _ := json.Marshal(out); len(b) >= 1024 {
			t.Fatalf("%s preview is %d bytes: %s", c.tool, len(b), b)
		}
	}
}

// A localisation that jumped between preview and confirm moved the fence
// under the goal: confirm reads odom→map again and refuses the preview as
// stale when the link moved past the pose tolerance; nothing is sent. An
// unmoved link confirms.
func TestALocalisationJumpBetweenPreviewAndConfirmStalesTheBasePreview(t *testing.T) {
	for _, c := range []struct {
		name  string
		jump  func(*fakeFrames)
		stale bool
	}{
		{"unmoved", func(*fakeFrames) {}, false},
		{"moved 0.5 m", func(f *fakeFrames) { f.x += 0.5 }, true},
		{"turned 0.2 rad", func(f *fakeFrames) { f.yaw += 0.2 }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			frames := &fakeFrames{x: 1.5}
			r := mapFenced(t, frames)
			pv, e := r.call(t, RolePlanner, "base_navigate", `{"x":0.2,"y":0,"frame":"odom"}`)
			if e != nil {
				t.Fatal(e)
			}
			c.jump(frames)
			_, e = r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
			wantStaleOrSent(t, r, e, c.stale, "localisation")
		})
	}
}

// What confirm compares is where the motion is in the fence, not where
// odom's origin is: with the robot 20 m along odom from its origin (odom's
// origin 20 m behind it in map), a localisation turn of 0.03 rad, under
// the 0.05 rad tolerance, moves the robot 0.6 m in map and stales a goal
// given in odom; a goal given in map is fixed there, and the start alone
// is compared.
func TestALocalisationTurnAboutAFarOriginStalesTheBasePreview(t *testing.T) {
	for _, c := range []struct {
		name, args string
		turn       float64
		stale      bool
	}{
		{"unturned", `{"x":20.2,"y":0,"frame":"odom"}`, 0, false},
		{"odom goal, turned 0.03 rad", `{"x":20.2,"y":0,"frame":"odom"}`, 0.03, true},
		{"map goal, turned 0.03 rad", `{"x":0.2,"y":0,"frame":"map"}`, 0.03, true},
		{"odom goal, turned 0.001 rad", `{"x":20.2,"y":0,"frame":"odom"}`, 0.001, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			frames := &fakeFrames{x: -20}
			r := mapFenced(t, frames)
			r.robot.SetPose(actuators.Pose2D{Frame: "odom", X: 20})
			pv, e := r.call(t, RolePlanner, "base_navigate", c.args)
			if e != nil {
				t.Fatal(e)
			}
			frames.yaw = c.turn
			_, e = r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
			wantStaleOrSent(t, r, e, c.stale, "localisation moved the motion")
		})
	}
}

// wantStaleOrSent checks a confirm's refusal e after its frame moved:
// stale_preview whose text names named, with no goal sent, when stale; else
// confirmed, with the one goal sent.
func wantStaleOrSent(t *testing.T, r *rig, e *Error, stale bool, named string) {
	t.Helper()
	switch {
	case stale && (e == nil || e.Code != CodeStalePreview || !strings.Contains(e.Message+e.State, named)):
		t.Fatalf("%+v, want stale_preview naming %q", e, named)
	case stale && r.robot.GoalsSent() != 0:
		t.Fatalf("%d goals sent for a preview whose frame moved", r.robot.GoalsSent())
	case !stale && (e != nil || r.robot.GoalsSent() != 1):
		t.Fatalf("%+v, %d goals; want it confirmed", e, r.robot.GoalsSent())
	}
}
