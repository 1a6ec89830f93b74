package ros1

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/actbridge/actbridge/msgs/ros1"
)

func TestStoringJointStatesDoesNotAllocate(t *testing.T) {
	var c jointCache
	m := &sensor_msgs.JointState{Name: []string{"a"}, Position: []float64{1}}
	if n := testing.AllocsPerRun(1000, func() { c.store(m) }); n != 0 {
		t.Errorf("store allocates %v times per message", n)
	}
}

func TestJointsSnapshotMergesTopicsAndKeepsTheOldestTime(t *testing.T) {
	a, b := &jointCache{}, &jointCache{}
	if s := mergeJoints([]*jointCache{a, b}); len(s.Joints) != 0 || !s.Received.IsZero() {
		t.Fatalf("empty snapshot = %+v", s)
	}
	a.store(&sensor_msgs.JointState{Name: []string{"j1", "j2"}, Position: []float64{1, 2}, Velocity: []float64{0.1}})
	if s := mergeJoints([]*jointCache{a, b}); len(s.Joints) != 2 || !s.Received.IsZero() {
		t.Errorf("with one topic silent: %+v, want joints but no time", s)
	}
	time.Sleep(2 * time.Millisecond)
	b.store(&sensor_msgs.JointState{Name: []string{"j2", "g"}, Position: []float64{9, 3}})
	s := mergeJoints([]*jointCache{a, b})
	_, at := a.load()
	if len(s.Joints) != 3 || s.Joints[1].Position != 2 || s.Joints[1].Velocity != 0 || s.Joints[0].Velocity != 0.1 || !s.Received.Equal(at) {
		t.Errorf("snapshot = %+v, want j1 j2(from the first topic) g, stamped with the older message", s)
	}
}

func TestOdomPoseHasYawFrameAndStaleness(t *testing.T) {
	c := &odomCache{frame: "odom"}
	if _, _, ok := c.pose(); ok {
		t.Fatal("pose before any message")
	}
	m := &nav_msgs.Odometry{}
	m.Pose.Pose.Position.X = 1
	m.Pose.Pose.Orientation.Z, m.Pose.Pose.Orientation.W = math.Sin(0.25), math.Cos(0.25)
	c.store(m)
	p, _, ok := c.pose()
	if !ok || p.Frame != "odom" || p.X != 1 || math.Abs(p.Yaw-0.5) > 1e-9 {
		t.Errorf("pose = %+v %v", p, ok)
	}
	c.mu.Lock()
	c.at = time.Now().Add(-odomStale - time.Second)
	c.mu.Unlock()
	if _, _, ok := c.pose(); ok {
		t.Error("stale odom reported as current")
	}
}

func TestSampledMessagesUseROSNamesAndAlwaysEncode(t *testing.T) {
	m := &sensor_msgs.JointState{
		Header:   std_msgs.Header{Seq: 3, Stamp: time.Unix(10, 500000000), FrameId: "base"},
		Name:     []string{"j"},
		Position: []float64{math.NaN()},
		Effort:   []float64{math.Inf(1)},
	}
	b, err := json.Marshal(rosJSON(m))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{`"frame_id":"base"`, `"stamp":10.5`, `"position":[null]`, `"effort":[null]`, `"velocity":[]`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	fb := &msgs.FollowJointTrajectoryActionFeedback{}
	fb.Feedback.Desired.TimeFromStart = 1500 * time.Millisecond
	b, _ = json.Marshal(rosJSON(fb))
	if !strings.Contains(string(b), `"time_from_start":1.5`) || !strings.Contains(string(b), `"goal_id"`) || strings.Contains(string(b), "Package") {
		t.Errorf("feedback JSON %s", b)
	}
}

func TestEveryActionWrapperCanBeSampled(t *testing.T) {
	for _, typ := range []string{"control_msgs/FollowJointTrajectoryActionFeedback", "control_msgs/GripperCommandActionResult",
		"move_base_msgs/MoveBaseActionGoal", "sensor_msgs/JointState", "nav_msgs/Odometry", "geometry_msgs/Twist",
		"control_msgs/JointTrajectoryControllerState", "std_msgs/String", "actionlib_msgs/GoalStatusArray"} {
		if _, ok := sampleTypes[typ]; !ok {
			t.Errorf("%s not samplable; have %v", typ, SampleTypes())
		}
	}
}

func TestTrajectoryProgressUsesTimeFromStartOrFeedbackStamps(t *testing.T) {
	fb := func(tfs time.Duration, stamp time.Time) *msgs.FollowJointTrajectoryFeedback {
		f := &msgs.FollowJointTrajectoryFeedback{Header: std_msgs.Header{Stamp: stamp}}
		f.Desired.TimeFromStart = tfs
		return f
	}
	p := trajectoryProgress(4)
	if got, ok := p(fb(time.Second, time.Time{})); !ok || got != 0.25 {
		t.Errorf("from time_from_start: %v %v, want 0.25", got, ok)
	}
	p = trajectoryProgress(4)
	t0 := time.Unix(100, 0)
	p(fb(0, t0))
	if got, ok := p(fb(0, t0.Add(2*time.Second))); !ok || got != 0.5 {
		t.Errorf("from stamps: %v %v, want 0.5", got, ok)
	}
	p = trajectoryProgress(4)
	p(fb(5000*time.Second, t0)) // an absolute controller time is not progress
	if got, _ := p(fb(5001*time.Second, t0.Add(time.Second))); got != 0.25 {
		t.Errorf("implausible time_from_start used: %v", got)
	}
}
