package ros1

import (
	"context"
	"encoding/json"
	"errors"
	"image/color"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/sim/ros1face"
)

// These run against a real master and the in-process sim, over ROS only.

func TestParametersReadAnyTypeAndSetTypedValues(t *testing.T) {
	g := newRig(t, false)
	ctx := context.Background()
	names, err := g.robot.ParamNames(ctx)
	if err != nil || !strings.Contains(strings.Join(names, " "), "/simrobot/led/brightness") {
		t.Fatalf("%v %v", names, err)
	}
	if v, err := g.robot.GetParam(ctx, "/simrobot/config/wheel_count"); err != nil || v != int64(2) {
		t.Fatalf("int: %#v %v", v, err)
	}
	ns, err := g.robot.GetParam(ctx, "/simrobot/led")
	if m, ok := ns.(map[string]any); err != nil || !ok || m["brightness"] != 0.5 || m["enabled"] != false {
		t.Fatalf("namespace: %#v %v", ns, err)
	}
	if _, err := g.robot.GetParam(ctx, "/simrobot/nope"); !errors.Is(err, actuators.ErrParamNotSet) {
		t.Fatalf("missing: %v", err)
	}
	for _, v := range []any{0.75, 3, true, `<b> & "q"`} {
		if err := g.robot.SetParam(ctx, "/t/value", v); err != nil {
			t.Fatal(err)
		}
		got, err := g.robot.GetParam(ctx, "/t/value")
		if n, ok := v.(int); ok {
			v = int64(n)
		}
		if err != nil || got != v {
			t.Fatalf("set %#v read %#v %v", v, got, err)
		}
	}
}

func TestServiceTypeProbeAndCallsReachOnlyMatchingTypes(t *testing.T) {
	g := newRig(t, false)
	ctx := context.Background()
	svcs, err := g.robot.Services(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range svcs {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "/simrobot/status") {
		t.Fatalf("services %v", names)
	}
	for name, want := range map[string]string{"/simrobot/status": "std_srvs/Trigger", "/simrobot/led/set": "std_srvs/SetBool", "/simrobot/reset_odometry": "std_srvs/Empty"} {
		if typ, err := g.robot.ServiceType(ctx, name); err != nil || typ != want {
			t.Fatalf("%s: %q %v", name, typ, err)
		}
	}
	if _, err := g.robot.ServiceType(ctx, "/nope"); !errors.Is(err, actuators.ErrUnknownService) {
		t.Fatalf("unknown service: %v", err)
	}
	out, err := g.robot.CallService(ctx, "/simrobot/led/set", "std_srvs/SetBool", map[string]any{"data": true}, 2*time.Second)
	if err != nil || out["success"] != true || out["message"] != "led on" {
		t.Fatalf("%v %v", out, err)
	}
	// wrong type (the MD5 check of the handshake), unknown type, bad request: nothing is sent
	for _, c := range []struct {
		name, typ string
		req       map[string]any
	}{
		{"/simrobot/power_off", "std_srvs/SetBool", map[string]any{"data": true}},
		{"/simrobot/power_off", "nav_msgs/GetMap", map[string]any{}},
		{"/simrobot/power_off", "std_srvs/Trigger", map[string]any{"data": true}},
		{"/nope", "std_srvs/Trigger", map[string]any{}},
	} {
		if _, err := g.robot.CallService(ctx, c.name, c.typ, c.req, 2*time.Second); !errors.Is(err, actuators.ErrServiceNotSent) {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	if n := simCalls(t, g)["/simrobot/power_off"]; n != 0 {
		t.Fatalf("power_off reached %v times", n)
	}
}

// simCalls reads the sim's access call counts through its own service.
func simCalls(t *testing.T, g *rig) map[string]float64 {
	t.Helper()
	out, err := g.robot.CallService(context.Background(), "/simrobot/access_calls", "std_srvs/Trigger", map[string]any{}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := decodeJSON(t, out["message"].(string))
	calls, _ := m["calls"].(map[string]any)
	res := map[string]float64{}
	for k, v := range calls {
		res[k] = v.(float64)
	}
	return res
}

func TestServiceCallGivesUpAtItsTimeout(t *testing.T) {
	g := newRig(t, false)
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: "slow_provider", MasterAddress: g.m.Address(), Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var calls atomic.Int32
	release := make(chan struct{})
	sp, err := goroslib.NewServiceProvider(goroslib.ServiceProviderConf{Node: n, Name: "/slow", Srv: &std_srvs.Trigger{},
		Callback: func(*std_srvs.TriggerReq) (*std_srvs.TriggerRes, bool) {
			calls.Add(1)
			<-release
			return &std_srvs.TriggerRes{Success: true}, true
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	defer close(release)
	start := time.Now()
	_, err = g.robot.CallService(context.Background(), "/slow", "std_srvs/Trigger", map[string]any{}, 300*time.Millisecond)
	if err == nil || errors.Is(err, actuators.ErrServiceNotSent) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a timeout after sending, got %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	if calls.Load() != 1 {
		t.Fatalf("the provider saw %d calls", calls.Load())
	}
}

func TestSnapshotDecodesTheSimsTestPatternRawAndCompressed(t *testing.T) {
	g := newRig(t, false)
	want := sim.TestPattern(sim.CameraWidth, sim.CameraHeight)
	for _, topic := range []string{ros1face.TopicCameraImage, ros1face.TopicCameraCompressed} {
		f, err := g.robot.Snapshot(context.Background(), topic, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", topic, err)
		}
		b := f.Image.Bounds()
		if b.Dx() != sim.CameraWidth || b.Dy() != sim.CameraHeight || f.FrameID != sim.CameraFrame || f.Stamp.IsZero() {
			t.Fatalf("%s: %v %q %v", topic, b, f.FrameID, f.Stamp)
		}
		// the yellow bar, away from edges (JPEG blurs them)
		got := color.RGBAModel.Convert(f.Image.At(60, 40)).(color.RGBA)
		exp := want.RGBAAt(60, 40)
		if d := int(got.R) - int(exp.R) + int(got.G) - int(exp.G) + int(exp.B) - int(got.B); d > 30 || d < -30 {
			t.Fatalf("%s: pixel %v, want about %v", topic, got, exp)
		}
		if topic == ros1face.TopicCameraCompressed && (f.RawExt != "jpg" || len(f.Raw) == 0) {
			t.Fatalf("compressed bytes not kept: %q %d", f.RawExt, len(f.Raw))
		}
	}
	if _, err := g.robot.Snapshot(context.Background(), "/odom", time.Second); !errors.Is(err, actuators.ErrUnsupportedType) {
		t.Fatalf("odom as an image: %v", err)
	}
	if _, err := g.robot.Snapshot(context.Background(), "/no/camera", time.Second); !errors.Is(err, actuators.ErrUnknownTopic) {
		t.Fatalf("missing topic: %v", err)
	}
}

func TestWatchTopicDeliversMessagesOfAnOwnedTopic(t *testing.T) {
	g := newRig(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan any, 1)
	go func() {
		_ = g.robot.WatchTopic(ctx, "/odom", func(m any) {
			select {
			case got <- m:
			default:
			}
		})
	}()
	select {
	case m := <-got:
		if _, ok := m.(map[string]any)["pose"]; !ok {
			t.Fatalf("odom as %v", m)
		}
	case <-ctx.Done():
		t.Fatal("no /odom message watched")
	}
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
