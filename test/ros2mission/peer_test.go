package ros2mission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// peerAction is the arm controller's action the peers serve.
const peerAction = "/arm_controller/follow_joint_trajectory"

// vendor is one DDS stack's node peer.
type vendor struct{ name, bin string }

// vendors are the node peers: CycloneDDS, Fast DDS 2.9, and Fast DDS 3.1
// (an empty bin, skipped, without the Debian 13 root).
func vendors(t testing.TB, p *ddspeers.NodePeers) []vendor {
	return []vendor{{"cyclonedds", p.Cyclone}, {"fastdds", p.Fast}, {"fastdds3", p.Fast3(t)}}
}

// peerRobot is a robot made of real DDS stacks, none of it ours: a
// vendor's scripted FollowJointTrajectory server as the arm controller,
// and CycloneDDS publishers of its URDF (transient_local, as
// robot_state_publisher) and of its joint states (the peers' action
// server publishes none).
type peerRobot struct {
	distro msgs.Distro
	domain int
	server *ddspeers.Proc
}

// startPeerRobot starts v's action server on domain with the distro's
// flags and script, and the description and joint-state publishers.
func startPeerRobot(t *testing.T, p *ddspeers.NodePeers, v vendor, domain int, script ...string) *peerRobot {
	t.Helper()
	ns := netns.Require(t)
	r := &peerRobot{distro: p.Distro, domain: domain}
	dom := []string{"--domain", strconv.Itoa(domain)}
	r.server = p.StartActionServer(t, ns, v.bin, peerAction, append(append(dom, "--timeout", "0"), script...)...)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := r.server.WaitStderr(ctx, "ready"); err != nil {
		t.Fatalf("%s action server: %v: %s", v.name, err, r.server.Stderr())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s action server stdout:\n%s\nstderr:\n%s", v.name, r.server.Stdout(), r.server.Stderr())
		}
	})
	pub := publisher(t, p.Distro)
	urdf, err := os.ReadFile(filepath.Join("testdata", "peer-arm.urdf"))
	if err != nil {
		t.Fatal(err)
	}
	desc := sample(t, p.Distro, "std_msgs/msg/String", map[string]any{"data": string(urdf)})
	// Written once, kept for late joiners (a restarted bridge) for an hour.
	descPub := ddspeers.StartPeer(t, ns, pub, strings.NewReader(desc), append([]string{"pub", "--type", "std_msgs/msg/String",
		"--topic", "rt/robot_description", "--transient-local", "--depth", "1", "--wait-match", "0", "--linger", "3600"}, dom...)...)
	js := sample(t, p.Distro, "sensor_msgs/msg/JointState", map[string]any{
		"name": []string{"j1", "j2"}, "position": []float64{0, 0}, "velocity": []float64{0, 0}, "effort": []float64{0, 0}})
	// 20 Hz for up to an hour: the arm stands still, as a server that only
	// plays its script never moves it.
	jsPub := ddspeers.StartPeer(t, ns, pub, strings.NewReader(js), append([]string{"pub", "--type", "sensor_msgs/msg/JointState",
		"--topic", "rt/joint_states", "--best-effort", "--wait-match", "0", "--count", "72000", "--rate", "20"}, dom...)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("description publisher: %s\njoint state publisher: %s", descPub.Stderr(), jsPub.Stderr())
		}
	})
	return r
}

// publisher is cycpeer built for what the robot publishes besides its
// action: its URDF and its joint states (one build, cached).
func publisher(t *testing.T, d msgs.Distro) string {
	t.Helper()
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	var types []*cdr.Struct
	for _, n := range []string{"std_msgs/msg/String", "sensor_msgs/msg/JointState"} {
		s, err := set.Struct(n)
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, s)
	}
	return ddspeers.BuildTypes(t, types).Cyclone
}

// sample is the peers' sample text (one line) of a typ message with fields set.
func sample(t *testing.T, d msgs.Distro, typ string, fields map[string]any) string {
	t.Helper()
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	line, err := ddspeers.SampleOf(set, typ, fields)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// config writes the bridge's config for the peer robot: transport ros2 on
// its domain and distro, the arm on the peer's action, planner-confirmed.
func (r *peerRobot) config(t *testing.T) string {
	t.Helper()
	cfg := fmt.Sprintf(`transport: ros2
distro: %s
domain_id: %d
discovery_range: subnet
node_name: actbridge
robot_description_param: /robot_description
actuators:
  - name: arm
    kind: arm
    action: %s
    joints: [j1, j2]
    joint_states_topic: /joint_states
    policy: planner
`, r.distro, r.domain, peerAction)
	path := filepath.Join(t.TempDir(), "peer-robot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// goals is the server's log of send_goal requests by goal UUID: a UUID
// received twice counts 2 (the peer also exits DuplicateGoalExit then).
func (r *peerRobot) goals(t *testing.T) map[string]int {
	t.Helper()
	evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](r.server.Stdout())
	if err != nil {
		t.Fatalf("server log: %v", err)
	}
	out := map[string]int{}
	for _, e := range evs {
		if e.Event == "goal" {
			out[e.GoalID]++
		}
	}
	return out
}

// event waits until the server logged event for goal (its goal_id).
func (r *peerRobot) event(t *testing.T, event, goal string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](r.server.Stdout())
		if err == nil {
			for _, e := range evs {
				if e.Event == event && e.GoalID == goal {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never logged %s of %s within %s:\n%s", event, goal, within, r.server.Stdout())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive fails t if the server exited (a duplicate UUID ends it).
func (r *peerRobot) alive(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if err := r.server.Wait(ctx); err != context.DeadlineExceeded {
		t.Fatalf("the action server exited (%v):\n%s", err, r.server.Stderr())
	}
}
