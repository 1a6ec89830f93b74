package sim

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// mapParams is a parameter server in a map, keyed by full name.
type mapParams map[string]any

func (m mapParams) Param(key, kind string) (any, bool, error) {
	v, ok := m[key]
	return v, ok, nil
}

func TestReadFaultsFromParameters(t *testing.T) {
	p := mapParams{
		"/simrobot/faults/arm/abort_after":        1.5,
		"/simrobot/faults/arm/tracking_offset":    0.3,
		"/simrobot/faults/arm/lag":                1, // an int where a float is wanted
		"/simrobot/faults/arm/delay_ms":           250,
		"/simrobot/faults/gripper/stall":          true,
		"/simrobot/faults/move_base/ignore_goals": 1, // rosparam's 0/1 for a bool
		"/simrobot/faults/joint_states/mute":      false,
		"/simrobot/faults/exit_code":              3,
	}
	f, err := ReadFaults(p, "/simrobot/faults")
	if err != nil {
		t.Fatal(err)
	}
	if f.Arm.AbortAfter != 1500*time.Millisecond || f.Arm.TrackingOffset != 0.3 || f.Arm.Lag != time.Second ||
		f.Arm.Delay != 250*time.Millisecond || !f.Gripper.Stall || !f.MoveBase.IgnoreGoals ||
		f.ExitCode == nil || *f.ExitCode != 3 || f.Arm.AbortErrorCode != ErrorPathToleranceViolated {
		t.Errorf("faults %+v", f)
	}
	b, err := json.Marshal(f.Params())
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	_ = json.Unmarshal(b, &back)
	if back["arm/abort_after"] != 1.5 || back["gripper/stall"] != true || back["exit_code"] != 3.0 {
		t.Errorf("params JSON %s", b)
	}
}

func TestNoFaultParametersMeansHealthy(t *testing.T) {
	f, err := ReadFaults(mapParams{}, "/simrobot/faults")
	if err != nil {
		t.Fatal(err)
	}
	want := Faults{Arm: ArmFaults{AbortErrorCode: ErrorPathToleranceViolated}}
	if f.ExitCode != nil || f.Arm != want.Arm || f.Gripper != want.Gripper || f.MoveBase != want.MoveBase || f.MuteJointStates {
		t.Errorf("faults %+v, want none", f)
	}
}

func TestBadFaultParameterIsRefused(t *testing.T) {
	tests := []mapParams{
		{"/f/gripper/stall": "yes"},
		{"/f/gripper/stall": 2},
		{"/f/arm/delay_ms": 1.5},
		{"/f/arm/lag": "slow"},
		{"/f/exit_code": true},
	}
	for _, p := range tests {
		if _, err := ReadFaults(p, "/f"); !errors.Is(err, ErrFaultParam) {
			t.Errorf("%v: err %v, want ErrFaultParam", p, err)
		}
	}
}

func TestJointStatesMuteFaultStopsJointStates(t *testing.T) {
	r := newTestRobot(t)
	r.SetFaults(Faults{MuteJointStates: true})
	r.Drain()
	r.Advance(200 * time.Millisecond)
	for _, m := range r.Drain() {
		if _, ok := m.(*JointState); ok {
			t.Fatal("joint_states published while muted")
		}
	}
}
