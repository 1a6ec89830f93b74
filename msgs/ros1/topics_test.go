package msgs_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"

	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/ros1/rostest"
)

const toolTimeout = 45 * time.Second // one Python tool run on a busy machine

func testNode(t *testing.T, m *rostest.Master) *goroslib.Node {
	t.Helper()
	n, err := goroslib.NewNode(goroslib.NodeConf{MasterAddress: m.Address(), Name: "msgs_test", Host: "127.0.0.1"})
	if err != nil {
		t.Fatalf("NewNode: %v", err)
	}
	t.Cleanup(n.Close)
	return n
}

// latch publishes msg on topic for every subscriber that connects later.
func latch(t *testing.T, n *goroslib.Node, topic string, msg any) {
	t.Helper()
	p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: topic, Msg: msg, Latch: true})
	if err != nil {
		t.Fatalf("publisher on %s: %v", topic, err)
	}
	t.Cleanup(p.Close)
	p.Write(msg)
}

func TestWrappersRegisterUnderOfficialTypeNames(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	n := testNode(t, m)
	wrappers := []struct {
		topic, rosType string
		msg            any
	}{
		{"/t/goal", "control_msgs/FollowJointTrajectoryActionGoal", &msgs.FollowJointTrajectoryActionGoal{}},
		{"/t/result", "control_msgs/FollowJointTrajectoryActionResult", &msgs.FollowJointTrajectoryActionResult{}},
		{"/t/feedback", "control_msgs/FollowJointTrajectoryActionFeedback", &msgs.FollowJointTrajectoryActionFeedback{}},
		{"/g/goal", "control_msgs/GripperCommandActionGoal", &msgs.GripperCommandActionGoal{}},
		{"/g/result", "control_msgs/GripperCommandActionResult", &msgs.GripperCommandActionResult{}},
		{"/g/feedback", "control_msgs/GripperCommandActionFeedback", &msgs.GripperCommandActionFeedback{}},
		{"/b/goal", "move_base_msgs/MoveBaseActionGoal", &msgs.MoveBaseActionGoal{}},
		{"/b/result", "move_base_msgs/MoveBaseActionResult", &msgs.MoveBaseActionResult{}},
		{"/b/feedback", "move_base_msgs/MoveBaseActionFeedback", &msgs.MoveBaseActionFeedback{}},
	}
	for _, w := range wrappers {
		latch(t, n, w.topic, w.msg)
	}

	out, err := m.Run(toolTimeout, "rostopic", "type", "/t/goal")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); got != "control_msgs/FollowJointTrajectoryActionGoal" {
		t.Errorf("rostopic type /t/goal = %q, want control_msgs/FollowJointTrajectoryActionGoal", got)
	}

	out, err = m.Run(toolTimeout, "rostopic", "list", "-v")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wrappers {
		want := fmt.Sprintf("* %s [%s] 1 publisher", w.topic, w.rosType)
		if !strings.Contains(out, want) {
			t.Errorf("rostopic list -v lacks %q:\n%s", want, out)
		}
	}
}

func TestMoveBaseActionGoalDecodesInRostopicEcho(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	n := testNode(t, m)
	latch(t, n, "/move_base/goal", &msgs.MoveBaseActionGoal{
		Header: std_msgs.Header{FrameId: "map"},
		GoalId: actionlib_msgs.GoalID{Id: "motion-1"},
		Goal: msgs.MoveBaseGoal{TargetPose: geometry_msgs.PoseStamped{
			Header: std_msgs.Header{FrameId: "odom"},
			Pose: geometry_msgs.Pose{
				Position:    geometry_msgs.Point{X: 1.5, Y: -2.25},
				Orientation: geometry_msgs.Quaternion{W: 1},
			},
		}},
	})

	// rostopic decodes with Debian's move_base_msgs and refuses a wrong md5.
	out, err := m.Run(toolTimeout, "rostopic", "echo", "-n", "1", "/move_base/goal")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id: "motion-1"`, `frame_id: "map"`, `frame_id: "odom"`, "x: 1.5", "y: -2.25", "w: 1.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("rostopic echo lacks %q:\n%s", want, out)
		}
	}
}

// TestControlMsgsDecodeWithOfficialClasses checks the bytes goroslib writes,
// not only the sums: Python classes generated from the official control_msgs
// definitions decode them (rospy has no control_msgs on Debian).
func TestControlMsgsDecodeWithOfficialClasses(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	n := testNode(t, m)
	point := trajectory_msgs.JointTrajectoryPoint{
		Positions: []float64{0.5, -0.25}, Velocities: []float64{0, 0}, TimeFromStart: 2500 * time.Millisecond,
	}
	tests := []struct {
		topic, rosType string
		msg            any
		want           []string
	}{
		{
			"/arm/goal", "control_msgs/FollowJointTrajectoryActionGoal",
			&msgs.FollowJointTrajectoryActionGoal{
				GoalId: actionlib_msgs.GoalID{Id: "motion-7", Stamp: time.Unix(12, 5)},
				Goal: msgs.FollowJointTrajectoryGoal{
					Trajectory: trajectory_msgs.JointTrajectory{
						JointNames: []string{"shoulder", "elbow"},
						Points:     []trajectory_msgs.JointTrajectoryPoint{point},
					},
					GoalTolerance:     []control_msgs.JointTolerance{{Name: "elbow", Position: 0.01}},
					GoalTimeTolerance: 750 * time.Millisecond,
				},
			},
			[]string{`id: "motion-7"`, "secs: 12", "nsecs:         5", "- shoulder", "- elbow", "positions: [0.5, -0.25]",
				"secs: 2", "nsecs: 500000000", `name: "elbow"`, "position: 0.01", "nsecs: 750000000"},
		},
		{
			"/arm/result", "control_msgs/FollowJointTrajectoryActionResult",
			&msgs.FollowJointTrajectoryActionResult{
				Status: actionlib_msgs.GoalStatus{GoalId: actionlib_msgs.GoalID{Id: "motion-7"}, Status: actionlib_msgs.GoalStatus_ABORTED},
				Result: msgs.FollowJointTrajectoryResult{ErrorCode: msgs.FollowJointTrajectoryPathToleranceViolated, ErrorString: "elbow off by 0.2"},
			},
			[]string{`id: "motion-7"`, "status: 4", "error_code: -4", `error_string: "elbow off by 0.2"`},
		},
		{
			"/arm/feedback", "control_msgs/FollowJointTrajectoryActionFeedback",
			&msgs.FollowJointTrajectoryActionFeedback{
				Status:   actionlib_msgs.GoalStatus{Status: actionlib_msgs.GoalStatus_ACTIVE},
				Feedback: msgs.FollowJointTrajectoryFeedback{JointNames: []string{"shoulder"}, Actual: point},
			},
			[]string{"status: 1", "- shoulder", "positions: [0.5, -0.25]"},
		},
		{
			"/gripper/goal", "control_msgs/GripperCommandActionGoal",
			&msgs.GripperCommandActionGoal{
				GoalId: actionlib_msgs.GoalID{Id: "grip-1"},
				Goal:   msgs.GripperCommandGoal{Command: control_msgs.GripperCommand{Position: 0.04, MaxEffort: 20}},
			},
			[]string{`id: "grip-1"`, "position: 0.04", "max_effort: 20.0"},
		},
		{
			"/gripper/result", "control_msgs/GripperCommandActionResult",
			&msgs.GripperCommandActionResult{
				Status: actionlib_msgs.GoalStatus{Status: actionlib_msgs.GoalStatus_SUCCEEDED},
				Result: msgs.GripperCommandResult{Position: 0.035, Effort: 12.5, Stalled: true, ReachedGoal: false},
			},
			[]string{"status: 3", "position: 0.035", "effort: 12.5", "stalled: True", "reached_goal: False"},
		},
	}
	for _, tt := range tests {
		latch(t, n, tt.topic, tt.msg)
	}
	for _, tt := range tests {
		t.Run(tt.rosType, func(t *testing.T) {
			out, err := m.Run(toolTimeout, rostest.Python, "testdata/official_msgs.py", "decode", "testdata/control_msgs", tt.topic, tt.rosType)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("official decoding lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
