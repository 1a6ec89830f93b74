package ros2

import (
	"errors"
	"math"
	"testing"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/spline"
)

func zeroGoal(t *testing.T, d msgs.Distro) *cdr.Message {
	t.Helper()
	return zeroMsg(t, d, followJointTrajectory+"_Goal")
}

func TestGoalsAlwaysCarryAGoalTimeToleranceAndEndAtRest(t *testing.T) {
	for _, d := range msgs.Distros() {
		t.Run(string(d), func(t *testing.T) {
			g := zeroGoal(t, d)
			tr := actuators.Trajectory{Joints: []string{"a", "b"}, Points: []spline.Point{
				{Positions: []float64{0.1, 0.2}, Velocities: []float64{0.3, 0.3}, Time: 1.5},
				{Positions: []float64{0.4, 0.5}, Time: 6},
			}}
			dur, err := trajectoryGoal(g, tr)
			if err != nil || dur != 6 {
				t.Fatalf("trajectoryGoal = %v, %v", dur, err)
			}
			if got := durationOf(g.Get("goal_time_tolerance")); got != 1.5 {
				t.Errorf("goal_time_tolerance %v s, want a quarter of 6 s", got)
			}
			// It survives the wire as the distro defines it.
			b, err := cdr.Encode(g, cdr.LittleEndian)
			if err != nil {
				t.Fatal(err)
			}
			back, err := cdr.Decode(g.Type, b)
			if err != nil {
				t.Fatal(err)
			}
			trm := back.Get("trajectory").(*cdr.Message)
			pts := trm.Get("points").([]*cdr.Message)
			if len(pts) != 2 || durationOf(pts[0].Get("time_from_start")) != 1.5 {
				t.Fatalf("points %v", pts)
			}
			if v := pts[1].Get("velocities").([]float64); len(v) != 2 || v[0] != 0 || v[1] != 0 {
				t.Errorf("last point's velocities %v, want zeros", v)
			}
			if v := pts[0].Get("velocities").([]float64); len(v) != 2 || v[0] != 0.3 {
				t.Errorf("first point's velocities %v, want as given", v)
			}
			if names := trm.Get("joint_names").([]string); len(names) != 2 || names[1] != "b" {
				t.Errorf("joint_names %v", names)
			}
		})
	}
}

func TestShortGoalsStillGetAFloorOfGoalTime(t *testing.T) {
	if got := goalTimeTolerance(0.5); got != minGoalTime {
		t.Errorf("goalTimeTolerance(0.5) = %v, want %v", got, minGoalTime)
	}
}

func TestMalformedTrajectoriesAreRefusedBeforeTheWire(t *testing.T) {
	p := func(pos []float64, tm float64) spline.Point { return spline.Point{Positions: pos, Time: tm} }
	tests := []struct {
		name string
		tr   actuators.Trajectory
	}{
		{"no joints", actuators.Trajectory{Points: []spline.Point{p(nil, 1)}}},
		{"no points", actuators.Trajectory{Joints: []string{"a"}}},
		{"positions short", actuators.Trajectory{Joints: []string{"a", "b"}, Points: []spline.Point{p([]float64{1}, 1)}}},
		{"time backwards", actuators.Trajectory{Joints: []string{"a"}, Points: []spline.Point{p([]float64{1}, 2), p([]float64{1}, 1)}}},
		{"not finite", actuators.Trajectory{Joints: []string{"a"}, Points: []spline.Point{p([]float64{math.NaN()}, 1)}}},
		{"last point moving", actuators.Trajectory{Joints: []string{"a"}, Points: []spline.Point{{Positions: []float64{1}, Velocities: []float64{0.1}, Time: 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := trajectoryGoal(zeroGoal(t, msgs.Jazzy), tt.tr); !errors.Is(err, actuators.ErrInvalidArgument) {
				t.Errorf("trajectoryGoal = %v, want ErrInvalidArgument", err)
			}
		})
	}
}
