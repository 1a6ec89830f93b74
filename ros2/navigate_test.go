package ros2

import (
	"errors"
	"math"
	"testing"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// A Navigate goal is a PoseStamped in its frame, or the base's odom
// frame when it names none, the yaw a rotation about z, on every distro.
func TestNavigateGoalIsAPoseInTheOdomFrameByDefault(t *testing.T) {
	for _, d := range msgs.Distros() {
		for _, frame := range []string{"", "map"} {
			t.Run(string(d)+"/"+frame, func(t *testing.T) {
				g := zeroMsg(t, d, navigateToPose+"_Goal")
				target := actuators.Pose2D{X: 1.5, Y: -0.5, Yaw: math.Pi / 2, Frame: frame}
				if _, err := (navigateCodec{frame: "odom"}).build(g, actuators.Navigate{Target: target}); err != nil {
					t.Fatal(err)
				}
				ps := roundTrip(t, g).Get("pose").(*cdr.Message)
				want := frame
				if want == "" {
					want = "odom"
				}
				pos, _ := path(ps, "pose", "position").(*cdr.Message)
				rot, _ := path(ps, "pose", "orientation").(*cdr.Message)
				if path(ps, "header", "frame_id") != want || pos.Get("x") != 1.5 || pos.Get("y") != -0.5 ||
					math.Abs(rot.Get("z").(float64)-math.Sqrt2/2) > 1e-12 || math.Abs(rot.Get("w").(float64)-math.Sqrt2/2) > 1e-12 {
					t.Errorf("pose %s", ps.AppendJSON(nil))
				}
			})
		}
	}
}

func TestNavigateGoalsOutOfShapeAreRefused(t *testing.T) {
	for _, g := range []actuators.Goal{
		actuators.Navigate{Target: actuators.Pose2D{X: math.NaN()}},
		actuators.Navigate{Target: actuators.Pose2D{Y: math.Inf(1)}},
		actuators.Navigate{Target: actuators.Pose2D{Yaw: math.Inf(-1)}},
		actuators.GripperCommand{},
		actuators.Drive{Linear: 0.1},
	} {
		msg := zeroMsg(t, msgs.Jazzy, navigateToPose+"_Goal")
		if _, err := (navigateCodec{frame: "odom"}).build(msg, g); !errors.Is(err, actuators.ErrInvalidArgument) {
			t.Errorf("%+v: %v, want ErrInvalidArgument", g, err)
		}
	}
}

// The result follows the distro's layout: Humble's is empty (and a
// preemption cannot be told from it); Jazzy's and later carry
// error_code, NONE being the empty result Nav2 ends a preempted goal with
// (Lyrical's Nav2 too: nav2_ros_common's simple action server).
func TestNavigateResultFollowsTheDistrosLayout(t *testing.T) {
	tests := []struct {
		distro     msgs.Distro
		code       uint16
		msg        string
		preemption bool
		result     map[string]any
	}{
		{msgs.Humble, 0, "", true, map[string]any{}},
		{msgs.Jazzy, 0, "", true, map[string]any{"error_code": uint16(0), "error_msg": ""}},
		{msgs.Jazzy, 104, "no valid path", false, map[string]any{"error_code": uint16(104), "error_msg": "no valid path"}},
		{msgs.Kilted, 9000, "bt failed", false, map[string]any{"error_code": uint16(9000), "error_msg": "bt failed"}},
		{msgs.Lyrical, 0, "", true, map[string]any{"error_code": uint16(0), "error_msg": ""}},
		// GOAL_REJECTED, new in Lyrical: a BT node's server refused its request.
		{msgs.Lyrical, 1, "planner rejected the goal", false, map[string]any{"error_code": uint16(1), "error_msg": "planner rejected the goal"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.distro)+"/"+tt.msg, func(t *testing.T) {
			m := zeroMsg(t, tt.distro, navigateToPose+"_Result")
			if tt.distro != msgs.Humble {
				m.Set("error_code", tt.code)
				m.Set("error_msg", tt.msg)
			}
			out := navigateCodec{}.outcome(roundTrip(t, m))
			got, _ := out.result.(map[string]any)
			if out.preemption != tt.preemption || out.text != tt.msg || len(got) != len(tt.result) {
				t.Fatalf("outcome %+v, want preemption %v, result %v", out, tt.preemption, tt.result)
			}
			for k, v := range tt.result {
				if got[k] != v {
					t.Errorf("result[%s] = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

// Progress is the share of distance_remaining covered since the first
// feedback that measured a path (Nav2 reports 0 before it has one).
func TestNavigateProgressIsTheDistanceCovered(t *testing.T) {
	prog, err := navigateCodec{frame: "odom"}.build(zeroMsg(t, msgs.Jazzy, navigateToPose+"_Goal"), actuators.Navigate{Target: actuators.Pose2D{X: 2}})
	if err != nil {
		t.Fatal(err)
	}
	fb := zeroMsg(t, msgs.Jazzy, navigateToPose+"_Feedback")
	fb.Set("distance_remaining", float32(0))
	if p, ok := prog(fb); ok {
		t.Errorf("before a path (0 m left): progress %v, want none", p)
	}
	for _, c := range []struct {
		left float32
		want float64
	}{{2, 0}, {1.5, 0.25}, {0, 1}} {
		fb.Set("distance_remaining", c.left)
		if p, ok := prog(fb); !ok || math.Abs(p-c.want) > 1e-6 {
			t.Errorf("%v m left: progress %v, %v; want %v", c.left, p, ok, c.want)
		}
	}
}
