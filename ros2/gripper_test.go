package ros2

import (
	"errors"
	"math"
	"testing"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// zeroMsg is a zero message of a distro's type.
func zeroMsg(t testing.TB, d msgs.Distro, typ string) *cdr.Message {
	t.Helper()
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := set.Message(typ)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// roundTrip is m as it comes back from the wire.
func roundTrip(t *testing.T, m *cdr.Message) *cdr.Message {
	t.Helper()
	b, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	back, err := cdr.Decode(m.Type, b)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func gripperCodecOf(t *testing.T, typ string, start float64) gripperCodec {
	t.Helper()
	c, err := newGripperCodec(config.ActuatorConfig{Name: "gripper", Joints: []string{"finger"}, ActionType: typ},
		func(j string) (float64, bool) { return start, j == "finger" })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A gripper command becomes the chosen action's goal on every distro
// that defines it: GripperCommand's position and max_effort, or
// ParallelGripperCommand's JointState naming the finger alone.
func TestGripperGoalIsTheChosenActionsOnEveryDistro(t *testing.T) {
	for _, d := range msgs.Distros() {
		for _, typ := range []string{config.GripperActionCommand, config.GripperActionParallel} {
			t.Run(string(d)+"/"+typ, func(t *testing.T) {
				c := gripperCodecOf(t, typ, 0.04)
				if c.actionType() != typ {
					t.Fatalf("action type %s", c.actionType())
				}
				g := zeroMsg(t, d, typ+"_Goal")
				if _, err := c.build(g, actuators.GripperCommand{Position: 0.01, MaxEffort: 5}); err != nil {
					t.Fatal(err)
				}
				cmd := roundTrip(t, g).Get("command").(*cdr.Message)
				if typ == config.GripperActionCommand {
					if cmd.Get("position") != 0.01 || cmd.Get("max_effort") != 5.0 {
						t.Errorf("command %s", cmd.AppendJSON(nil))
					}
					return
				}
				names, pos, eff := cmd.Get("name").([]string), cmd.Get("position").([]float64), cmd.Get("effort").([]float64)
				if len(names) != 1 || names[0] != "finger" || len(pos) != 1 || pos[0] != 0.01 || len(eff) != 1 || eff[0] != 5 {
					t.Errorf("command %s", cmd.AppendJSON(nil))
				}
			})
		}
	}
}

// With no effort bound, a parallel gripper's command carries no effort:
// the controller's own limit applies.
func TestParallelGripperWithoutEffortLeavesTheControllersLimit(t *testing.T) {
	g := zeroMsg(t, msgs.Kilted, config.GripperActionParallel+"_Goal")
	if _, err := gripperCodecOf(t, config.GripperActionParallel, 0).build(g, actuators.GripperCommand{Position: 0.02}); err != nil {
		t.Fatal(err)
	}
	if eff := g.Get("command").(*cdr.Message).Get("effort").([]float64); len(eff) != 0 {
		t.Errorf("effort %v, want none", eff)
	}
}

func TestGripperGoalsOutOfShapeAreRefused(t *testing.T) {
	for _, g := range []actuators.Goal{
		actuators.GripperCommand{Position: math.NaN(), MaxEffort: 1},
		actuators.GripperCommand{Position: 0.01, MaxEffort: math.Inf(1)},
		actuators.GripperCommand{Position: math.Inf(-1)},
		actuators.GripperCommand{Position: 0.01, MaxEffort: -1},
		armGoal(1),
		actuators.Navigate{},
	} {
		for _, typ := range []string{config.GripperActionCommand, config.GripperActionParallel} {
			msg := zeroMsg(t, msgs.Jazzy, typ+"_Goal")
			if _, err := gripperCodecOf(t, typ, 0).build(msg, g); !errors.Is(err, actuators.ErrInvalidArgument) {
				t.Errorf("%s: %+v: %v, want ErrInvalidArgument", typ, g, err)
			}
		}
	}
}

// The result reads as the ROS 1 transport shows it (position, effort,
// stalled, reached_goal); one that neither reached the goal nor stalled
// is what the controllers end a preempted goal with.
func TestGripperResultReadsAsOnROS1(t *testing.T) {
	tests := []struct {
		name             string
		stalled, reached bool
		preemption       bool
	}{
		{"reached", false, true, false},
		{"stalled on an object", true, false, false},
		{"preempted", false, false, true},
	}
	for _, d := range msgs.Distros() {
		for _, typ := range []string{config.GripperActionCommand, config.GripperActionParallel} {
			for _, tt := range tests {
				t.Run(string(d)+"/"+typ+"/"+tt.name, func(t *testing.T) {
					m := zeroMsg(t, d, typ+"_Result")
					if typ == config.GripperActionCommand {
						m.Set("position", 0.012)
						m.Set("effort", 3.5)
					} else {
						st := m.Get("state").(*cdr.Message)
						st.Set("name", []string{"finger"})
						st.Set("position", []float64{0.012})
						st.Set("effort", []float64{3.5})
					}
					m.Set("stalled", tt.stalled)
					m.Set("reached_goal", tt.reached)
					out := gripperCodecOf(t, typ, 0).outcome(roundTrip(t, m))
					want := map[string]any{"position": 0.012, "effort": 3.5, "stalled": tt.stalled, "reached_goal": tt.reached}
					got, _ := out.result.(map[string]any)
					if len(got) != len(want) || out.preemption != tt.preemption {
						t.Fatalf("outcome %+v, want result %v and preemption %v", out, want, tt.preemption)
					}
					for k, v := range want {
						if got[k] != v {
							t.Errorf("result[%s] = %v, want %v", k, got[k], v)
						}
					}
				})
			}
		}
	}
}

// Progress is the share of the way from the finger's position at the send
// to the target, from either action's feedback.
func TestGripperProgressIsTheShareOfTheWayCovered(t *testing.T) {
	for _, typ := range []string{config.GripperActionCommand, config.GripperActionParallel} {
		t.Run(typ, func(t *testing.T) {
			c := gripperCodecOf(t, typ, 0.04)
			prog, err := c.build(zeroMsg(t, msgs.Jazzy, typ+"_Goal"), actuators.GripperCommand{Position: 0, MaxEffort: 1})
			if err != nil {
				t.Fatal(err)
			}
			fb := zeroMsg(t, msgs.Jazzy, typ+"_Feedback")
			if typ == config.GripperActionCommand {
				fb.Set("position", 0.01)
			} else {
				st := fb.Get("state").(*cdr.Message)
				st.Set("name", []string{"finger"})
				st.Set("position", []float64{0.01})
			}
			if p, ok := prog(fb); !ok || math.Abs(p-0.75) > 1e-9 {
				t.Errorf("progress %v, %v; want 0.75", p, ok)
			}
		})
	}
}

// A parallel gripper's state is read at the finger's joint: a state that
// names only other joints gives no reading rather than another joint's.
func TestParallelGripperStateIsReadAtTheFingersJoint(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		pos   []float64
		want  float64
		ok    bool
	}{
		{"finger alone, unnamed", nil, []float64{0.02}, 0.02, true},
		{"finger among others", []string{"wrist", "finger"}, []float64{1.5, 0.03}, 0.03, true},
		{"other joints only", []string{"wrist"}, []float64{1.5}, 0, false},
		{"named but no positions", []string{"finger"}, nil, 0, false},
	}
	c := gripperCodecOf(t, config.GripperActionParallel, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := zeroMsg(t, msgs.Jazzy, config.GripperActionParallel+"_Feedback")
			st := fb.Get("state").(*cdr.Message)
			st.Set("name", tt.names)
			st.Set("position", tt.pos)
			pos, _, ok := c.fingerState(fb)
			if ok != tt.ok || pos != tt.want {
				t.Fatalf("fingerState = %v, %v; want %v, %v", pos, ok, tt.want, tt.ok)
			}
		})
	}
}
