package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ActionFaults break one action server's side of the protocol.
type ActionFaults struct {
	// IgnoreGoals makes a silent server: new goals are logged, then dropped
	// without any status, feedback or result.
	IgnoreGoals bool
	// Delay holds back every status change, feedback and result.
	Delay time.Duration
	// MuteStatus stops the status topic altogether.
	MuteStatus bool
}

// ArmFaults break the trajectory controller.
type ArmFaults struct {
	ActionFaults
	// AbortAfter aborts a goal this long (simulated) after it starts.
	AbortAfter     time.Duration
	AbortErrorCode int32
	// TrackingOffset (rad) is added to every arm joint's actual position;
	// beyond the path tolerance it ends a goal PATH_TOLERANCE_VIOLATED.
	TrackingOffset float64
	// Lag is the time constant of a first-order lag of the actual position
	// behind the desired one.
	Lag time.Duration
}

// GripperFaults break the gripper.
type GripperFaults struct {
	ActionFaults
	// Stall blocks the finger where it is, as if it had closed on an object.
	Stall bool
}

// MoveBaseFaults break move_base.
type MoveBaseFaults struct {
	ActionFaults
	// AbortAfter aborts a goal this long (simulated) after it starts.
	AbortAfter time.Duration
}

// Faults is everything the robot can be told to get wrong. The zero value
// is a healthy robot.
type Faults struct {
	Arm             ArmFaults
	Gripper         GripperFaults
	MoveBase        MoveBaseFaults
	MuteJointStates bool
	// ExitCode, when set, makes the process exit with it (without closing
	// its node, like a crash) right after apply_faults answers.
	ExitCode *int
}

// FaultParam is one fault as a ROS parameter under /<node>/faults/.
type FaultParam struct {
	Key  string
	Kind string // "bool", "int", "float"
	Doc  string
	get  func(*Faults) any
	set  func(*Faults, any)
}

func actionFaultParams(name string, af func(*Faults) *ActionFaults) []FaultParam {
	return []FaultParam{
		{name + "/ignore_goals", "bool", "log new goals, then never answer them",
			func(f *Faults) any { return af(f).IgnoreGoals },
			func(f *Faults, v any) { af(f).IgnoreGoals = v.(bool) }},
		{name + "/delay_ms", "int", "delay every status change, feedback and result by this many ms",
			func(f *Faults) any { return int(af(f).Delay / time.Millisecond) },
			func(f *Faults, v any) { af(f).Delay = time.Duration(v.(int)) * time.Millisecond }},
		{name + "/mute_status", "bool", "publish no status messages",
			func(f *Faults) any { return af(f).MuteStatus },
			func(f *Faults, v any) { af(f).MuteStatus = v.(bool) }},
	}
}

// FaultParams lists every fault parameter, relative to /<node>/faults/.
func FaultParams() []FaultParam {
	ps := actionFaultParams("arm", func(f *Faults) *ActionFaults { return &f.Arm.ActionFaults })
	ps = append(ps,
		FaultParam{"arm/abort_after", "float", "abort each goal this many seconds after it starts",
			func(f *Faults) any { return f.Arm.AbortAfter.Seconds() },
			func(f *Faults, v any) { f.Arm.AbortAfter = seconds(v.(float64)) }},
		FaultParam{"arm/abort_error_code", "int", "error_code of an abort_after abort (default -4 PATH_TOLERANCE_VIOLATED)",
			func(f *Faults) any { return int(f.Arm.AbortErrorCode) },
			func(f *Faults, v any) { f.Arm.AbortErrorCode = int32(v.(int)) }},
		FaultParam{"arm/tracking_offset", "float", "radians added to every arm joint's actual position",
			func(f *Faults) any { return f.Arm.TrackingOffset },
			func(f *Faults, v any) { f.Arm.TrackingOffset = v.(float64) }},
		FaultParam{"arm/lag", "float", "time constant (s) of the joints' lag behind the desired trajectory",
			func(f *Faults) any { return f.Arm.Lag.Seconds() },
			func(f *Faults, v any) { f.Arm.Lag = seconds(v.(float64)) }},
	)
	ps = append(ps, actionFaultParams("gripper", func(f *Faults) *ActionFaults { return &f.Gripper.ActionFaults })...)
	ps = append(ps,
		FaultParam{"gripper/stall", "bool", "block the finger where it is; goals end ABORTED with stalled=true",
			func(f *Faults) any { return f.Gripper.Stall },
			func(f *Faults, v any) { f.Gripper.Stall = v.(bool) }},
	)
	ps = append(ps, actionFaultParams("move_base", func(f *Faults) *ActionFaults { return &f.MoveBase.ActionFaults })...)
	ps = append(ps,
		FaultParam{"move_base/abort_after", "float", "abort each goal this many seconds after it starts",
			func(f *Faults) any { return f.MoveBase.AbortAfter.Seconds() },
			func(f *Faults, v any) { f.MoveBase.AbortAfter = seconds(v.(float64)) }},
		FaultParam{"joint_states/mute", "bool", "stop publishing /joint_states",
			func(f *Faults) any { return f.MuteJointStates },
			func(f *Faults, v any) { f.MuteJointStates = v.(bool) }},
	)
	return ps
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// ParamGetter reads ROS parameters. kind ("bool", "int", "float") is the
// type wanted; found is false when the key is not set.
type ParamGetter interface {
	Param(key, kind string) (value any, found bool, err error)
}

// ErrFaultParam is returned for a fault parameter of the wrong type or range.
var ErrFaultParam = errors.New("sim: bad fault parameter")

// ReadFaults reads every fault from parameters under prefix
// ("/simrobot/faults"); parameters that are not set mean no fault.
func ReadFaults(p ParamGetter, prefix string) (Faults, error) {
	var f Faults
	f.Arm.AbortErrorCode = ErrorPathToleranceViolated
	for _, fp := range FaultParams() {
		v, found, err := p.Param(prefix+"/"+fp.Key, fp.Kind)
		if err != nil {
			return Faults{}, err
		}
		if !found {
			continue
		}
		cv, err := convertParam(v, fp.Kind)
		if err != nil {
			return Faults{}, fmt.Errorf("%w: %s/%s: %v", ErrFaultParam, prefix, fp.Key, err)
		}
		fp.set(&f, cv)
	}
	v, found, err := p.Param(prefix+"/exit_code", "int")
	if err != nil {
		return Faults{}, err
	}
	if found {
		cv, err := convertParam(v, "int")
		if err != nil {
			return Faults{}, fmt.Errorf("%w: %s/exit_code: %v", ErrFaultParam, prefix, err)
		}
		code := cv.(int)
		f.ExitCode = &code
	}
	return f, nil
}

// Params is the faults as parameter values, keyed like FaultParams; it is
// what apply_faults answers with.
func (f Faults) Params() map[string]any {
	m := map[string]any{}
	for _, fp := range FaultParams() {
		m[fp.Key] = fp.get(&f)
	}
	if f.ExitCode != nil {
		m["exit_code"] = *f.ExitCode
	}
	return m
}

// convertParam accepts what rosparam produces for a kind: an int where a
// float is wanted, 0/1 for a bool.
func convertParam(v any, kind string) (any, error) {
	switch kind {
	case "bool":
		switch x := v.(type) {
		case bool:
			return x, nil
		case int:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		}
	case "int":
		switch x := v.(type) {
		case int:
			return x, nil
		case float64:
			if x == math.Trunc(x) {
				return int(x), nil
			}
		}
	case "float":
		switch x := v.(type) {
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x, nil
			}
		case int:
			return float64(x), nil
		}
	}
	return nil, fmt.Errorf("want %s, got %T %v", kind, v, v)
}
