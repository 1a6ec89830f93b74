package ros2

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/netns"
)

// openOn opens a robot on domain with an arm nobody needs to serve, for
// the access calls alone.
func openOn(t *testing.T, d msgs.Distro, domain int, discovery string) *Robot {
	t.Helper()
	return openRobot(t, &config.Config{Transport: config.TransportROS2,
		ROS2:      config.ROS2{Distro: string(d), DomainID: &domain, DiscoveryRange: discovery},
		Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: simArmJoints}}})
}

// accessRig is the sim of distro d and a robot on its domain, once the
// sim's parameter and Trigger services are in the robot's graph.
func accessRig(t *testing.T, d msgs.Distro, domain int) (*Robot, *netns.Peer) {
	t.Helper()
	sim := startSim(t, d, domain)
	r := openOn(t, d, domain, config.DiscoveryLocalhost)
	for _, s := range []string{"/simrobot/goals", "/simrobot/list_parameters", "/joint_trajectory_controller/list_parameters",
		"/gripper_controller/list_parameters", "/diff_drive_controller/list_parameters"} {
		waitService(t, r, s, sim.Output)
	}
	return r, sim
}

// waitService waits until the robot's graph lists a server of name.
func waitService(t *testing.T, r *Robot, name string, peerOutput func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		_, err := r.ServiceType(ctx, name)
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s never discovered: %v\npeer:\n%s", name, err, peerOutput())
		}
	}
}

// The sim's topics are listed in ROS 2 form, sampled as JSON-ready values
// with times in seconds, and refused by name or type as on ROS 1.
func TestTopicsOfTheSimAreListedAndSampled(t *testing.T) {
	r, sim := accessRig(t, msgs.Jazzy, 140)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ts, err := r.Topics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []actuators.TopicInfo{{Name: "/joint_states", Type: "sensor_msgs/msg/JointState"},
		{Name: "/camera/image_raw", Type: "sensor_msgs/msg/Image"}, {Name: "/robot_description", Type: "std_msgs/msg/String"}} {
		if !slices.Contains(ts, want) {
			t.Errorf("Topics lacks %+v: %+v", want, ts)
		}
	}
	if slices.ContainsFunc(ts, func(ti actuators.TopicInfo) bool { return strings.Contains(ti.Name, "/_action/") }) {
		t.Errorf("hidden topics listed: %+v", ts)
	}
	got, err := r.SampleTopic(ctx, "joint_states", 3, 5*time.Second)
	if err != nil || len(got) != 3 {
		t.Fatalf("sampled %d: %v\nsim:\n%s", len(got), err, sim.Output())
	}
	m := got[0].(map[string]any)
	names, _ := m["name"].([]any)
	stamp, _ := m["header"].(map[string]any)["stamp"].(float64)
	if len(names) < len(simArmJoints) || names[0] != simArmJoints[0] || stamp <= 0 {
		t.Fatalf("sample %v", m)
	}
	if pos, _ := m["position"].([]any); len(pos) != len(names) {
		t.Fatalf("positions %v", m["position"])
	}
	if !slices.Contains(r.SampleTypes(), "sensor_msgs/msg/JointState") {
		t.Errorf("SampleTypes %v", r.SampleTypes())
	}
	if _, err := r.SampleTopic(ctx, "/nobody_publishes", 1, time.Second); !errors.Is(err, actuators.ErrUnknownTopic) {
		t.Errorf("unpublished topic: %v", err)
	}
	if _, err := r.SampleTopic(ctx, "/joint_states", 0, time.Second); !errors.Is(err, actuators.ErrInvalidArgument) {
		t.Errorf("n=0: %v", err)
	}
}

// messageJSON gives what ROS 1's transport gives: seconds for times,
// nil for NaN, bytes kept, integers widened, nested messages as maps.
func TestMessageJSONMatchesTheROS1Form(t *testing.T) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	img, err := set.Message("sensor_msgs/msg/Image")
	if err != nil {
		t.Fatal(err)
	}
	h := img.Get("header").(*cdr.Message)
	st := h.Get("stamp").(*cdr.Message)
	st.Set("sec", int32(12))
	st.Set("nanosec", uint32(500_000_000))
	h.Set("frame_id", "cam")
	img.Set("width", uint32(2))
	img.Set("data", []uint8{1, 2})
	got := messageJSON(img).(map[string]any)
	if got["header"].(map[string]any)["stamp"] != 12.5 || got["width"] != uint64(2) || string(got["data"].([]uint8)) != "\x01\x02" {
		t.Fatalf("%v", got)
	}
	js, err := set.Message("sensor_msgs/msg/JointState")
	if err != nil {
		t.Fatal(err)
	}
	js.Set("position", []float64{1, math.NaN()})
	if p := messageJSON(js).(map[string]any)["position"].([]any); p[0] != 1.0 || p[1] != nil {
		t.Fatalf("positions %v", p)
	}
}

// A watch outlives its publisher: the sim killed and started again, the
// same WatchTopic call hands on the new sim's messages; it waits for a
// topic nobody publishes yet, and ends with nil when ctx ends.
func TestWatchTopicSurvivesThePublishersRestart(t *testing.T) {
	const domain = 144
	sim := startSim(t, msgs.Jazzy, domain)
	r := openOn(t, msgs.Jazzy, domain, config.DiscoveryLocalhost)
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan map[string]any, 1024)
	done := make(chan error, 1)
	go func() {
		done <- r.WatchTopic(ctx, "/joint_states", func(m any) {
			select {
			case got <- m.(map[string]any):
			default:
			}
		})
	}()
	await := func(what string, n int) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for range n {
			select {
			case m := <-got:
				if names, _ := m["name"].([]any); len(names) == 0 {
					t.Fatalf("%s: message %v", what, m)
				}
			case err := <-done:
				t.Fatalf("%s: the watch ended: %v", what, err)
			case <-deadline:
				t.Fatalf("%s: fewer than %d messages", what, n)
			}
		}
	}
	await("first sim", 3)
	sim.Kill()
	time.Sleep(500 * time.Millisecond)
	for len(got) > 0 { // what came before the kill
		<-got
	}
	startSim(t, msgs.Jazzy, domain)
	await("second sim", 3)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("watch ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not end with its ctx")
	}
}

// providersOf waits until the graph names the nodes serving name (their
// announcements come after discovery found the servers) and returns them.
func providersOf(t *testing.T, r *Robot, name string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ss, err := r.Services(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ss, func(s actuators.ServiceInfo) bool { return s.Name == name })
		if i >= 0 && len(ss[i].Providers) > 0 || time.Now().After(deadline) {
			if i < 0 {
				t.Fatalf("%s not listed: %+v", name, ss)
			}
			return ss[i].Providers
		}
		time.Sleep(50 * time.Millisecond)
	}
}
