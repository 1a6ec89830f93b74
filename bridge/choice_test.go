package bridge

import (
	"context"
	"encoding/json"
	"github.com/actbridge/actbridge/actuators"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// dualRig is a rig whose robot has two of each kind: left_arm (j1, j2),
// right_arm (j3, j4), two grippers and two bases.
func dualRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, func(p *Previewer) {
		p.Arms = []*ArmModel{
			{Name: "left_arm", Joints: []string{"j1", "j2"}, Guard: fakeArm{}},
			{Name: "right_arm", Joints: []string{"j3", "j4"}, Guard: fakeArm{}},
		}
		p.Grippers = []*GripperModel{
			{Name: "left_gripper", Joint: "finger", Min: 0, Max: 0.08, MaxEffort: 40, SpeedMS: 0.05},
			{Name: "right_gripper", Joint: "finger2", Min: 0, Max: 0.04, MaxEffort: 20, SpeedMS: 0.05},
		}
		p.Bases = []*BaseModel{
			{Name: "base", Frame: "odom", MaxDriveS: 10, Guard: fakeBase{}},
			{Name: "rail", Frame: "rail_odom", MaxDriveS: 5, Guard: fakeBase{fence: "rail_odom"}},
		}
	})
	r.robot.SetJoint("j3", 0)
	r.robot.SetJoint("j4", 0)
	r.robot.SetJoint("finger2", 0.02)
	var list []actuators.ActuatorStatus
	for _, a := range [][2]string{{"left_arm", "arm"}, {"right_arm", "arm"}, {"left_gripper", "gripper"},
		{"right_gripper", "gripper"}, {"base", "base"}, {"rail", "base"}} {
		list = append(list, actuators.ActuatorStatus{Name: a[0], Kind: actuators.Kind(a[1])})
	}
	r.robot.SetActuators(list)
	return r
}

var kindTools = map[string][]string{
	"arm":     {"arm_move_joints", "arm_follow_trajectory"},
	"gripper": {"gripper_move"},
	"base":    {"base_navigate", "base_drive"},
}

func TestOneActuatorOfAKindKeepsTheToolArgumentsOfOneActuator(t *testing.T) {
	r := newRig(t)
	want := map[string][2][]string{ // properties, required
		"arm_move_joints":       {{"duration_s", "positions", "speed_fraction"}, {"positions"}},
		"arm_follow_trajectory": {{"joints", "points"}, {"joints", "points"}},
		"gripper_move":          {{"max_effort", "position"}, {"position"}},
		"base_navigate":         {{"frame", "x", "y", "yaw"}, {"x", "y"}},
		"base_drive":            {{"angular", "duration_s", "linear"}, {"linear", "duration_s"}},
	}
	resource := map[string]string{"arm_move_joints": "arm", "arm_follow_trajectory": "arm", "gripper_move": "gripper", "base_navigate": "base", "base_drive": "base"}
	for name, w := range want {
		tool, ok := r.p.Registry.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		props := sortedKeys(tool.Input.Properties)
		if !slices.Equal(props, w[0]) || !slices.Equal(tool.Input.Required, w[1]) {
			t.Errorf("%s: properties %v required %v, want %v %v", name, props, tool.Input.Required, w[0], w[1])
		}
		if tool.Resource != resource[name] || tool.ResourceOf != nil {
			t.Errorf("%s locks %q (per call: %v), want the one actuator %q", name, tool.Resource, tool.ResourceOf != nil, resource[name])
		}
	}
}

func TestSeveralActuatorsOfAKindTakeARequiredActuatorEnumOfTheirNames(t *testing.T) {
	r := dualRig(t)
	names := map[string][]string{"arm": {"left_arm", "right_arm"}, "gripper": {"left_gripper", "right_gripper"}, "base": {"base", "rail"}}
	for kind, tools := range kindTools {
		for _, name := range tools {
			tool, _ := r.p.Registry.Lookup(name)
			a := tool.Input.Properties[ActuatorArg]
			if a == nil || a.Type != "string" || !slices.Equal(a.Enum, names[kind]) {
				t.Fatalf("%s: actuator schema %+v, want the enum %v", name, a, names[kind])
			}
			if !slices.Contains(tool.Input.Required, ActuatorArg) {
				t.Errorf("%s: actuator is not required: %v", name, tool.Input.Required)
			}
			if len(tool.Input.Properties) > 7 {
				t.Errorf("%s has %d arguments, more than seven", name, len(tool.Input.Properties))
			}
		}
	}
}

func TestUnknownOrMissingActuatorIsInvalidArgumentNamingTheAllowedOnes(t *testing.T) {
	r := dualRig(t)
	cases := []struct{ tool, args, actual string }{
		{"arm_move_joints", `{"actuator":"middle_arm","positions":{"j1":1}}`, `"middle_arm"`},
		{"arm_move_joints", `{"positions":{"j1":1}}`, "missing"},
		{"gripper_move", `{"actuator":"left_arm","position":0.01}`, `"left_arm"`},
		{"base_drive", `{"actuator":"","linear":0.1,"duration_s":1}`, `""`},
	}
	for _, c := range cases {
		_, e := r.call(t, RolePlanner, c.tool, c.args)
		if e == nil || e.Code != CodeInvalidArgument || e.Field != ActuatorArg || !strings.Contains(e.Actual, c.actual) {
			t.Fatalf("%s %s: %+v", c.tool, c.args, e)
		}
		tool, _ := r.p.Registry.Lookup(c.tool)
		for _, n := range tool.Input.Properties[ActuatorArg].Enum {
			if !strings.Contains(e.Expected, n) {
				t.Errorf("%s: expected %q does not name %s", c.tool, e.Expected, n)
			}
		}
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("a refused call reached the robot")
	}
}

func TestEachArmMovesOnlyWhenNamed(t *testing.T) {
	r := dualRig(t)
	for _, c := range []struct {
		arm, joint string
		sent       []string
	}{{"right_arm", "j3", []string{"j3", "j4"}}, {"left_arm", "j2", []string{"j1", "j2"}}} {
		out, e := r.call(t, RolePlanner, "arm_move_joints", `{"actuator":"`+c.arm+`","positions":{"`+c.joint+`":0.5}}`)
		if e != nil {
			t.Fatal(e)
		}
		if out["actuator"] != c.arm {
			t.Fatalf("preview of %s is for %v", c.arm, out["actuator"])
		}
		if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+out["preview_id"].(string)+`"}`); e != nil {
			t.Fatal(e)
		}
		sent := r.robot.SentGoals()
		last := sent[len(sent)-1]
		tr, _ := last.Goal.(actuators.Trajectory)
		if last.Actuator != c.arm || !slices.Equal(tr.Joints, c.sent) {
			t.Fatalf("naming %s sent %s a trajectory for %v", c.arm, last.Actuator, tr.Joints)
		}
	}
	// A joint of the other arm is refused, not moved by the arm named.
	for _, c := range []struct{ tool, args, field string }{
		{"arm_move_joints", `{"actuator":"left_arm","positions":{"j3":0.5}}`, "positions.j3"},
		{"arm_follow_trajectory", `{"actuator":"right_arm","joints":["j1"],"points":[{"positions":[0.1],"time_from_start":1}]}`, "joints[0]"},
	} {
		_, e := r.call(t, RolePlanner, c.tool, c.args)
		if e == nil || e.Code != CodeInvalidArgument || e.Field != c.field {
			t.Fatalf("%s %s: %+v", c.tool, c.args, e)
		}
	}
	if n := r.robot.GoalsSent(); n != 2 {
		t.Fatalf("%d goals sent, want the two named moves", n)
	}
}

func TestEachActuatorIsHeldToItsOwnLimitsUnderTheSharedSchema(t *testing.T) {
	r := dualRig(t)
	for _, c := range []struct{ tool, args, field string }{
		{"gripper_move", `{"actuator":"right_gripper","position":0.06}`, "position"},
		{"gripper_move", `{"actuator":"right_gripper","position":0.01,"max_effort":30}`, "max_effort"},
		{"base_drive", `{"actuator":"rail","linear":0.1,"duration_s":8}`, "duration_s"},
		{"base_navigate", `{"actuator":"rail","x":1,"y":0,"frame":"odom"}`, "frame"},
	} {
		_, e := r.call(t, RolePlanner, c.tool, c.args)
		if e == nil || e.Code != CodeInvalidArgument || e.Field != c.field {
			t.Fatalf("%s %s: %+v", c.tool, c.args, e)
		}
	}
	// The same values suit the other actuator.
	for _, args := range []struct{ tool, args string }{
		{"gripper_move", `{"actuator":"left_gripper","position":0.06,"max_effort":30}`},
		{"base_drive", `{"actuator":"base","linear":0.1,"duration_s":8}`},
		{"base_navigate", `{"actuator":"rail","x":1,"y":0,"frame":"rail_odom"}`},
	} {
		if out, e := r.call(t, RolePlanner, args.tool, args.args); e != nil {
			t.Fatalf("%s %s: %v", args.tool, args.args, e)
		} else if out["preview_id"] == nil {
			t.Fatalf("%s: no preview: %v", args.tool, out)
		}
	}
}

func TestAKindWithoutActuatorsHasNoTools(t *testing.T) {
	arm := &ArmModel{Name: "arm", Joints: []string{"j1"}, Guard: fakeArm{}}
	base := &BaseModel{Name: "base", Frame: "odom", MaxDriveS: 10, Guard: fakeBase{}}
	for _, c := range []struct {
		p    Previewer
		want []string
	}{
		{Previewer{Arms: []*ArmModel{arm}}, kindTools["arm"]},
		{Previewer{Bases: []*BaseModel{base}}, kindTools["base"]},
		{Previewer{}, nil},
	} {
		var got []string
		for _, tool := range c.p.Tools() {
			got = append(got, tool.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("tools %v, want %v", got, c.want)
		}
	}
}

// armLocks is a pipeline with one write, demo_move, naming one of two arms
// and running until release closes; entered gets the arm of each call that
// starts, running counts the calls in progress.
type armLocks struct {
	p       *Pipeline
	entered chan string
	release chan struct{}
	running atomic.Int32
}

func newArmLocks() *armLocks {
	l := &armLocks{entered: make(chan string, 4), release: make(chan struct{})}
	reg := NewRegistry()
	reg.MustAdd(chooseActuator(&Tool{Name: "demo_move", Group: "demo", Tier: TierIrreversible,
		Description: Describe("Test tool.", "testing.", "production.", "none.", "small."),
		Input:       Object("", map[string]*Schema{"v": Num("Value.", 0, 1)}, "v"),
		Output:      okOut(), Errors: []Code{CodeInvalidArgument, CodeBusy, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			l.running.Add(1)
			defer l.running.Add(-1)
			l.entered <- c.Values[ActuatorArg].(string)
			<-l.release
			return map[string]any{"ok": true}, nil
		}}, "arm", []string{"left_arm", "right_arm"}))
	l.p = NewPipeline(reg, PipelineDeps{})
	return l
}

func TestTwoArmsMoveAtOnceWhileOneArmsWritesSerialize(t *testing.T) {
	l := newArmLocks()
	p, entered, release, running := l.p, l.entered, l.release, &l.running
	p.LockWait = 100 * time.Millisecond
	call := func(arm string) *Error {
		_, e := p.Call(context.Background(), "demo_move", json.RawMessage(`{"actuator":"`+arm+`","v":0.5}`), Invocation{})
		return e
	}
	done := make(chan *Error, 2)
	for _, arm := range []string{"left_arm", "right_arm"} {
		go func() { done <- call(arm) }()
		<-entered
	}
	if n := running.Load(); n != 2 {
		t.Fatalf("%d calls running, want both arms at once", n)
	}
	if e := call("left_arm"); e == nil || e.Code != CodeBusy {
		t.Fatalf("a second write on left_arm while one runs: %+v, want busy", e)
	}
	close(release)
	for range 2 {
		if e := <-done; e != nil {
			t.Fatal(e)
		}
	}
}

func TestDescribeListsEveryActuatorAndKeepsTheSingleKindKeys(t *testing.T) {
	arm := func(n string) *ArmModel { return &ArmModel{Name: n, Joints: []string{n + "_j"}, Guard: fakeArm{}} }
	one := (&Previewer{Arms: []*ArmModel{arm("arm")}}).DescribeActuators()
	if one["arm"].(map[string]any)["name"] != "arm" || len(one["arms"].([]map[string]any)) != 1 {
		t.Fatalf("one arm: %v", one)
	}
	if _, ok := one["gripper"]; ok || len(one["grippers"].([]map[string]any)) != 0 || len(one["bases"].([]map[string]any)) != 0 {
		t.Fatalf("an arm-only robot describes a gripper or base: %v", one)
	}
	two := (&Previewer{Arms: []*ArmModel{arm("arm"), arm("arm2")}}).DescribeActuators()
	arms := two["arms"].([]map[string]any)
	if _, ok := two["arm"]; ok || len(arms) != 2 || arms[1]["name"] != "arm2" {
		t.Fatalf("two arms: %v", two)
	}
}

func TestABatchRunsTwoArmsAtOnceAndOneArmsCallsInOrder(t *testing.T) {
	l := newArmLocks()
	p, entered, release, running := l.p, l.entered, l.release, &l.running
	arg := func(arm string) map[string]any { return map[string]any{ActuatorArg: arm, "v": 0.5} }
	done := make(chan BatchResult, 1)
	go func() {
		done <- p.RunBatch(context.Background(), []batchCall{
			{Tool: "demo_move", Arguments: arg("left_arm")}, {Tool: "demo_move", Arguments: arg("right_arm")}, {Tool: "demo_move", Arguments: arg("left_arm")},
		}, Invocation{})
	}()
	var first []string
	for range 2 {
		select {
		case a := <-entered:
			first = append(first, a)
		case <-time.After(5 * time.Second):
			t.Fatalf("only %v started: the two arms' calls waited on each other", first)
		}
	}
	slices.Sort(first)
	if !slices.Equal(first, []string{"left_arm", "right_arm"}) || running.Load() != 2 {
		t.Fatalf("running at once: %v (%d)", first, running.Load())
	}
	close(release)
	res := <-done
	if !res.AllOK || len(entered) != 1 {
		t.Fatalf("batch %+v, %d more calls entered, want the second left_arm call after the first", res, len(entered))
	}
}
