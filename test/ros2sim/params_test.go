package ros2sim

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
)

func (r *armRig) paramClient(t *testing.T, node string) *param.Client {
	t.Helper()
	c, err := param.NewClient(r.ctx.Participant(), r.set, node, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// trigger calls one of the sim's Trigger services and returns its message.
func (r *armRig) trigger(ctx context.Context, t *testing.T, name string) string {
	t.Helper()
	types, err := service.ResolveTypes(r.set, "std_srvs/srv/Trigger")
	if err != nil {
		t.Fatal(err)
	}
	c, err := service.NewClient(r.ctx.Participant(), types, name, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitServer(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := c.Call(ctx, cdr.Zero(types.Request))
	if err != nil || rep.Get("success") != true {
		t.Fatalf("%s: %v %v", name, err, rep)
	}
	return rep.Get("message").(string)
}

// TestControllerParametersAreReadable: the controllers' parameters are
// served through rcl_interfaces under their ros2_controllers names.
func TestControllerParametersAreReadable(t *testing.T) {
	r := newArmRig(t, msgs.Jazzy, 90)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		node, name string
		check      func(any) bool
	}{
		{"/joint_trajectory_controller", "joints", func(v any) bool { s, _ := v.([]string); return slices.Equal(s, r.joints) }},
		{"/joint_trajectory_controller", "constraints.goal_time", func(v any) bool { return v == 0.5 }},
		{"/gripper_controller", "joint", func(v any) bool { return v == "gripper_finger_joint" }},
		{"/diff_drive_controller", "cmd_vel_timeout", func(v any) bool { return v == 0.5 }},
	} {
		pc := r.paramClient(t, c.node)
		var vs []param.Value
		var err error
		for range 100 { // until the parameter services are discovered
			if vs, err = pc.Get(ctx, c.name); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil || len(vs) != 1 || !c.check(vs[0].V) {
			t.Fatalf("%s %s: %v %v", c.node, c.name, vs, err)
		}
	}
}

// TestFaultAbortsAndTheArmHoldsByItself: faults.arm.abort_after set as a
// parameter and applied makes the next trajectory end ABORTED
// (PATH_TOLERANCE_VIOLATED); the arm then holds where it was, as ROS 2's
// controller does, with no hold goal sent. clear_faults heals it.
func TestFaultAbortsAndTheArmHoldsByItself(t *testing.T) {
	r := newArmRig(t, msgs.Jazzy, 91)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pc := r.paramClient(t, "/simrobot")
	var res []param.SetResult
	var err error
	for range 100 {
		if res, err = pc.Set(ctx, param.Parameter{Name: "faults.arm.abort_after", Value: param.Value{V: 0.3}}); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || !res[0].Successful {
		t.Fatalf("set: %v %v", res, err)
	}
	r.trigger(ctx, t, "/simrobot/apply_faults")
	id := newID(t)
	if err := r.send(ctx, t, id, r.goal(t, 1, 2*time.Second, 0)); err != nil {
		t.Fatal(err)
	}
	out, err := r.client.Result(ctx, id)
	if err != nil || out.Status.Name != "ABORTED" || out.Message.Get("error_code") != int32(-4) {
		t.Fatalf("result: %+v %v", out, err)
	}
	js := subscribe(t, client(t, msgs.Jazzy, r.domain, "watch"), "/joint_states", "sensor_msgs/msg/JointState", qos.Default)
	var first []float64
	for range 20 { // past samples a new reader may be handed first
		first = take(ctx, t, js, r.sim).Get("position").([]float64)
	}
	time.Sleep(500 * time.Millisecond)
	var last []float64
	for range 5 {
		last = take(ctx, t, js, r.sim).Get("position").([]float64)
	}
	if first[0] <= 0.01 || first[0] >= 0.99 || !slices.Equal(first, last) {
		t.Fatalf("after the abort the arm moved: %v then %v", first, last)
	}
	r.trigger(ctx, t, "/simrobot/clear_faults")
	id = newID(t)
	if err := r.send(ctx, t, id, r.goal(t, 0.5, 300*time.Millisecond, 0)); err != nil {
		t.Fatal(err)
	}
	if out, err := r.client.Result(ctx, id); err != nil || out.Status.Name != "SUCCEEDED" {
		t.Fatalf("after clear_faults: %+v %v", out.Status, err)
	}
}

// TestCollisionLogIsReadOverROS2: the sim's collision log is a Trigger
// service on ROS 2 as on ROS 1; an arm that starts level over the table
// in front of the robot is reported touching it.
func TestCollisionLogIsReadOverROS2(t *testing.T) {
	const domain = 57
	s := startSim(t, domain, "--table", "0.5,-1,0,2,1,0.4", "--initial-positions", "shoulder_lift_joint=1.5708")
	r := &armRig{sim: s, domain: domain}
	r.ctx, _ = clientContext(t, msgs.Jazzy, domain, "collision_reader")
	var err error
	if r.set, err = msgs.Load(msgs.Jazzy); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var log sim.CollisionLog
	if err := json.Unmarshal([]byte(r.trigger(ctx, t, "/simrobot/collisions")), &log); err != nil {
		t.Fatal(err)
	}
	table := sim.Box{Min: [3]float64{0.5, -1, 0}, Max: [3]float64{2, 1, 0.4}}
	if log.Table == nil || *log.Table != table || !slices.Contains(log.Touching, "gripper_base_link") {
		t.Fatalf("collision log %+v, want the table and the gripper touching it\nsim:\n%s", log, s.Output())
	}
}
