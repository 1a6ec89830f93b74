package ros1face

import (
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"

	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/sim"
)

// wireMsg is a ROS 1 message and the topic it goes out on.
type wireMsg struct {
	topic string
	msg   any
}

// actionNS is an action's ROS 1 namespace, by the sim's short name.
func actionNS(action string) string {
	switch action {
	case sim.Arm2:
		return sim.Arm2Action
	case sim.Gripper:
		return sim.GripperAction
	case sim.MoveBase:
		return sim.MoveBaseAction
	}
	return sim.ArmAction
}

// wire is what a robot message is on ROS 1; the frame tree goes out on
// /tf (the static part, StaticTransforms, once on /tf_static, latched).
func wire(m sim.Message) []wireMsg {
	switch m := m.(type) {
	case *sim.JointState:
		return []wireMsg{{TopicJointStates, &sensor_msgs.JointState{
			Header: std_msgs.Header{Seq: m.Seq, Stamp: m.Stamp},
			Name:   m.Name, Position: m.Position, Velocity: m.Velocity, Effort: m.Effort,
		}}}
	case *sim.ArmState:
		topic := TopicArmState
		if m.Arm == sim.Arm2 {
			topic = TopicArm2State
		}
		return []wireMsg{{topic, controllerState(m.ControllerState)}}
	case *sim.Odometry:
		return []wireMsg{{TopicOdom, odometry(m)}}
	case *sim.TFMessage:
		topic := TopicTF
		if m.Static {
			topic = TopicTFStatic
		}
		return []wireMsg{{topic, tfMessage(m)}}
	case *sim.ActionStatus:
		a := &actionlib_msgs.GoalStatusArray{Header: std_msgs.Header{Seq: m.Seq, Stamp: m.Stamp}, StatusList: []actionlib_msgs.GoalStatus{}}
		for _, s := range m.List {
			a.StatusList = append(a.StatusList, goalStatus(s))
		}
		return []wireMsg{{actionNS(m.Action) + "/status", a}}
	case *sim.ActionResult:
		h, st := std_msgs.Header{Seq: m.Seq, Stamp: m.Stamp}, goalStatus(m.Status)
		var msg any
		switch r := m.Result.(type) {
		case sim.TrajectoryResult:
			msg = &msgs.FollowJointTrajectoryActionResult{Header: h, Status: st, Result: msgs.FollowJointTrajectoryResult{ErrorCode: r.ErrorCode, ErrorString: r.ErrorString}}
		case sim.GripperResult:
			msg = &msgs.GripperCommandActionResult{Header: h, Status: st, Result: msgs.GripperCommandResult{Position: r.Position, Effort: r.Effort, Stalled: r.Stalled, ReachedGoal: r.ReachedGoal}}
		case sim.NavigateResult:
			msg = &msgs.MoveBaseActionResult{Header: h, Status: st}
		default:
			return nil
		}
		return []wireMsg{{actionNS(m.Action) + "/result", msg}}
	case *sim.ActionFeedback:
		h, st := std_msgs.Header{Seq: m.Seq, Stamp: m.Stamp}, goalStatus(m.Status)
		var msg any
		switch f := m.Feedback.(type) {
		case sim.TrajectoryFeedback:
			s := controllerState(f)
			msg = &msgs.FollowJointTrajectoryActionFeedback{Header: h, Status: st, Feedback: msgs.FollowJointTrajectoryFeedback{
				Header: s.Header, JointNames: s.JointNames, Desired: s.Desired, Actual: s.Actual, Error: s.Error}}
		case sim.GripperFeedback:
			msg = &msgs.GripperCommandActionFeedback{Header: h, Status: st, Feedback: msgs.GripperCommandFeedback{Position: f.Position, Effort: f.Effort, Stalled: f.Stalled, ReachedGoal: f.ReachedGoal}}
		case sim.NavigateFeedback:
			msg = &msgs.MoveBaseActionFeedback{Header: h, Status: st, Feedback: msgs.MoveBaseFeedback{BasePosition: rosPoseStamped(f)}}
		default:
			return nil
		}
		return []wireMsg{{actionNS(m.Action) + "/feedback", msg}}
	}
	return nil
}

func goalStatus(s sim.GoalStatus) actionlib_msgs.GoalStatus {
	return actionlib_msgs.GoalStatus{GoalId: actionlib_msgs.GoalID{Id: s.ID.ID, Stamp: s.ID.Stamp}, Status: s.Status, Text: s.Text}
}

func controllerState(s sim.ControllerState) *control_msgs.JointTrajectoryControllerState {
	return &control_msgs.JointTrajectoryControllerState{
		Header:     std_msgs.Header{Stamp: s.Stamp},
		JointNames: s.JointNames,
		Desired:    rosPoint(s.Desired),
		Actual:     rosPoint(s.Actual),
		Error:      rosPoint(s.Error),
	}
}

func rosPoint(p sim.TrajectoryPoint) trajectory_msgs.JointTrajectoryPoint {
	return trajectory_msgs.JointTrajectoryPoint{Positions: p.Positions, Velocities: p.Velocities,
		Accelerations: p.Accelerations, Effort: p.Effort, TimeFromStart: p.TimeFromStart}
}

func odometry(o *sim.Odometry) *nav_msgs.Odometry {
	return &nav_msgs.Odometry{
		Header:       std_msgs.Header{Seq: o.Seq, Stamp: o.Stamp, FrameId: o.Frame},
		ChildFrameId: o.ChildFrame,
		Pose:         geometry_msgs.PoseWithCovariance{Pose: rosPose(o.Pose)},
		Twist: geometry_msgs.TwistWithCovariance{Twist: geometry_msgs.Twist{
			Linear:  geometry_msgs.Vector3{X: o.Linear},
			Angular: geometry_msgs.Vector3{Z: o.Angular},
		}},
	}
}

// tfMessage is the sim's transforms as tf2_msgs/TFMessage.
func tfMessage(m *sim.TFMessage) *tf2_msgs.TFMessage {
	out := &tf2_msgs.TFMessage{Transforms: make([]geometry_msgs.TransformStamped, len(m.Transforms))}
	for i, t := range m.Transforms {
		out.Transforms[i] = geometry_msgs.TransformStamped{
			Header:       std_msgs.Header{Stamp: t.Stamp, FrameId: t.Frame},
			ChildFrameId: t.Child,
			Transform: geometry_msgs.Transform{
				Translation: geometry_msgs.Vector3{X: t.Translation.X, Y: t.Translation.Y, Z: t.Translation.Z},
				Rotation:    geometry_msgs.Quaternion{X: t.Rotation.X, Y: t.Rotation.Y, Z: t.Rotation.Z, W: t.Rotation.W},
			},
		}
	}
	return out
}

func rosPose(p sim.Pose) geometry_msgs.Pose {
	return geometry_msgs.Pose{
		Position:    geometry_msgs.Point{X: p.Position.X, Y: p.Position.Y, Z: p.Position.Z},
		Orientation: geometry_msgs.Quaternion{X: p.Orientation.X, Y: p.Orientation.Y, Z: p.Orientation.Z, W: p.Orientation.W},
	}
}

func rosPoseStamped(p sim.PoseStamped) geometry_msgs.PoseStamped {
	return geometry_msgs.PoseStamped{Header: std_msgs.Header{Stamp: p.Stamp, FrameId: p.Frame}, Pose: rosPose(p.Pose)}
}

// poseStamped is a move_base target pose as the sim takes it.
func poseStamped(p geometry_msgs.PoseStamped) sim.PoseStamped {
	pos, o := p.Pose.Position, p.Pose.Orientation
	return sim.PoseStamped{Stamp: p.Header.Stamp, Frame: p.Header.FrameId, Pose: sim.Pose{
		Position:    sim.Point3{X: pos.X, Y: pos.Y, Z: pos.Z},
		Orientation: sim.Quaternion{X: o.X, Y: o.Y, Z: o.Z, W: o.W},
	}}
}

// trajectoryGoal is a FollowJointTrajectory goal as the sim takes it.
func trajectoryGoal(g msgs.FollowJointTrajectoryGoal) sim.TrajectoryGoal {
	jt := g.Trajectory
	out := sim.TrajectoryGoal{
		Trajectory:        sim.Trajectory{Stamp: jt.Header.Stamp, Frame: jt.Header.FrameId, JointNames: jt.JointNames},
		PathTolerance:     tolerances(g.PathTolerance),
		GoalTolerance:     tolerances(g.GoalTolerance),
		GoalTimeTolerance: g.GoalTimeTolerance,
	}
	for _, p := range jt.Points {
		out.Trajectory.Points = append(out.Trajectory.Points, sim.TrajectoryPoint{Positions: p.Positions, Velocities: p.Velocities,
			Accelerations: p.Accelerations, Effort: p.Effort, TimeFromStart: p.TimeFromStart})
	}
	return out
}

func tolerances(ts []control_msgs.JointTolerance) []sim.JointTolerance {
	out := make([]sim.JointTolerance, len(ts))
	for i, t := range ts {
		out[i] = sim.JointTolerance{Name: t.Name, Position: t.Position, Velocity: t.Velocity, Acceleration: t.Acceleration}
	}
	return out
}

// gripperGoal is a GripperCommand goal as the sim takes it.
func gripperGoal(g msgs.GripperCommandGoal) sim.GripperGoal {
	return sim.GripperGoal{Position: g.Command.Position, MaxEffort: g.Command.MaxEffort}
}
