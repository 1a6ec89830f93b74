package ros2face

import (
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/sim"
)

func jazzyStruct(t testing.TB, name string) *cdr.Struct {
	t.Helper()
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := set.Struct(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// goalWith is a FollowJointTrajectory goal: joints a and b, one point per
// entry of secs, goal_time_tolerance 1.5 s, a path tolerance on a.
func goalWith(t testing.TB, stamp time.Time, secs ...float64) *cdr.Message {
	t.Helper()
	g := cdr.Zero(jazzyStruct(t, typeFJT+"_Goal"))
	fl := fields{m: g}
	fl.set("trajectory.joint_names", []string{"a", "b"})
	fl.stamp("trajectory.header.stamp", stamp)
	jt := g.Get("trajectory").(*cdr.Message)
	pts := cdr.MakeSlice(jt.Type.Field(jt.Type.FieldIndex("points")).Type, len(secs)).([]*cdr.Message)
	for i, s := range pts {
		pf := fields{m: s}
		pf.set("positions", []float64{float64(i), -float64(i)})
		sec, nsec := durationFields(time.Duration(secs[i] * float64(time.Second)))
		pf.set("time_from_start.sec", sec)
		pf.set("time_from_start.nanosec", nsec)
		if pf.err != nil {
			t.Fatal(pf.err)
		}
	}
	fl.set("trajectory.points", pts)
	fl.set("goal_time_tolerance.sec", int32(1))
	fl.set("goal_time_tolerance.nanosec", uint32(5e8))
	tol := cdr.MakeSlice(g.Type.Field(g.Type.FieldIndex("path_tolerance")).Type, 1).([]*cdr.Message)
	tf := fields{m: tol[0]}
	tf.set("name", "a")
	tf.set("position", 0.1)
	fl.set("path_tolerance", tol)
	if fl.err != nil || tf.err != nil {
		t.Fatal(fl.err, tf.err)
	}
	return g
}

func TestTrajectoryGoalReadsAsSent(t *testing.T) {
	stamp := time.Unix(100, 250)
	g, err := trajGoal(goalWith(t, stamp, 0.5, 1.25))
	if err != nil {
		t.Fatal(err)
	}
	jt := g.Trajectory
	if !jt.Stamp.Equal(stamp) || len(jt.JointNames) != 2 || len(jt.Points) != 2 ||
		jt.Points[1].Positions[1] != -1 || jt.Points[1].TimeFromStart != 1250*time.Millisecond {
		t.Fatalf("trajectory %+v", jt)
	}
	if g.GoalTimeTolerance != 1500*time.Millisecond || len(g.PathTolerance) != 1 || g.PathTolerance[0].Position != 0.1 || len(g.GoalTolerance) != 0 {
		t.Fatalf("tolerances %+v %v", g.PathTolerance, g.GoalTimeTolerance)
	}
}

func TestDurationFieldsKeepNanosecInRange(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		sec  int32
		nsec uint32
	}{
		{0, 0, 0},
		{1500 * time.Millisecond, 1, 5e8},
		{-500 * time.Millisecond, -1, 5e8},
		{-2 * time.Second, -2, 0},
	} {
		sec, nsec := durationFields(c.d)
		if sec != c.sec || nsec != c.nsec {
			t.Errorf("%v: %d %d, want %d %d", c.d, sec, nsec, c.sec, c.nsec)
		}
	}
}

// Kilted's feedback index: the last point whose time has come, counted
// from the header stamp, or from acceptance when the stamp is zero.
func TestPointIndexIsTheLastPointReached(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		name   string
		stamp  time.Time
		at     time.Duration
		expect int32
	}{
		{"before the first point", t0, 100 * time.Millisecond, 0},
		{"past the first", t0, 600 * time.Millisecond, 0},
		{"past the second", t0, 1100 * time.Millisecond, 1},
		{"past the end", t0, 5 * time.Second, 2},
		{"zero stamp counts from acceptance", time.Time{}, 1100 * time.Millisecond, 1},
	} {
		g := goalWith(t, c.stamp, 0.5, 1, 2)
		if got := pointIndex(g, t0.Add(c.at), t0); got != c.expect {
			t.Errorf("%s: %d, want %d", c.name, got, c.expect)
		}
	}
}

func TestSimIDIsTheUUIDText(t *testing.T) {
	id := action.GoalID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0, 1, 2, 3, 4, 5, 6, 7}
	if got := simID(id); got != "12345678-9abc-def0-0001-020304050607" {
		t.Fatal(got)
	}
}

func TestFieldsReportAPathTheMessageLacks(t *testing.T) {
	fl := fields{m: cdr.Zero(jazzyStruct(t, "sensor_msgs/msg/JointState"))}
	fl.set("header.nope.sec", int32(1))
	fl.set("name", []string{"kept out: the first error stands"})
	if !errors.Is(fl.err, ErrMessage) || len(fl.m.Get("name").([]string)) != 0 {
		t.Fatalf("err %v, name %v", fl.err, fl.m.Get("name"))
	}
}

// A goal decoded from any bytes converts or fails; it never panics.
func FuzzTrajectoryGoal(f *testing.F) {
	s := jazzyStruct(f, typeFJT+"_Goal")
	seed, err := cdr.Encode(goalWith(f, time.Unix(5, 0), 0.5, 1), cdr.LittleEndian)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := cdr.Decode(s, b)
		if err != nil {
			return
		}
		_, _ = trajGoal(m)
		_ = pointIndex(m, time.Unix(6, 0), time.Unix(5, 0))
	})
}

// A preempted NavigateToPose ends ABORTED with Nav2's empty result
// (error_code NONE); a failed one carries UNKNOWN and the sim's text.
func TestNavigateAbortCarriesACodeUnlessPreempted(t *testing.T) {
	tests := []struct {
		name string
		st   uint8
		how  ending
		code uint16
	}{
		{"succeeded", sim.StatusSucceeded, endSucceed, 0},
		{"preempted by a newer goal", sim.StatusPreempted, endAbort, 0},
		{"failed", sim.StatusAborted, endAbort, navUnknownError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := cdr.Zero(jazzyStruct(t, typeNavigate+"_Result"))
			how, err := navigate{}.end(simEnd{st: tt.st, text: "why"}, &bridgedGoal{}, out)
			if err != nil || how != tt.how || out.Get("error_code") != tt.code {
				t.Errorf("end = %v, %v, error_code %v; want %v, %v", how, err, out.Get("error_code"), tt.how, tt.code)
			}
		})
	}
}
