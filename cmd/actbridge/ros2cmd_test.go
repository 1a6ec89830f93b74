package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
)

// talker starts a Context on domain with node /talker publishing
// JointStates on /joint_states every 20 ms until the test ends.
func talker(t *testing.T, domain int, profile qos.Profile) {
	t.Helper()
	for _, k := range []string{"ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOCALHOST_ONLY", "ROS_STATIC_PEERS", "ROS_DISTRO"} {
		t.Setenv(k, "")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.NewNode("talker", "/")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := n.NewPublisher("joint_states", "sensor_msgs/msg/JointState", profile)
	if err != nil {
		t.Fatal(err)
	}
	publishUntilCleanup(ctx, t, cancel, c, pub, func(m *cdr.Message, i int) {
		m.Set("name", []string{"j1"})
		m.Set("position", []float64{float64(i)})
	})
}

// publishUntilCleanup publishes the message fill makes (i counts from 0)
// on pub every 20 ms until the test ends, then cancels ctx and closes c.
func publishUntilCleanup(ctx context.Context, t *testing.T, cancel context.CancelFunc, c *node.Context, pub *node.Publisher, fill func(m *cdr.Message, i int)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			m := pub.New()
			fill(m, i)
			pub.Publish(m)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		c.Close()
	})
}

func runROS2(t *testing.T, args ...string) (string, error) {
	t.Helper()
	// Discovery stays on loopback whatever the shell running the tests set.
	t.Setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
	t.Setenv("ROS_STATIC_PEERS", "")
	t.Setenv("ROS_LOCALHOST_ONLY", "")
	var out, errOut bytes.Buffer
	err := run(t.Context(), append([]string{"ros2"}, args...), &out, &errOut)
	return out.String(), err
}

// TestROS2CommandsShowAnotherParticipantsGraph: topics prints the topic
// with its ROS type and the publisher's node and vendor, nodes the node,
// echo --count 3 three JSON objects with the message's field names.
func TestROS2CommandsShowAnotherParticipantsGraph(t *testing.T) {
	talker(t, 96, qos.Default)
	out, err := runROS2(t, "topics", "--domain-id", "96")
	if err != nil || !strings.Contains(out, "/joint_states [sensor_msgs/msg/JointState]\n  publisher  /talker (Go rtps)\n") {
		t.Fatalf("topics: %v\n%s", err, out)
	}
	out, err = runROS2(t, "topics", "--domain-id", "96", "--json")
	var topics []struct {
		Name       string
		Types      []string
		Publishers []map[string]string
	}
	if err != nil || json.Unmarshal([]byte(out), &topics) != nil || len(topics) == 0 {
		t.Fatalf("topics --json: %v\n%s", err, out)
	}
	if p := topics[0].Publishers[0]; topics[0].Name != "/joint_states" || p["node"] != "/talker" || p["reliability"] != "reliable" ||
		p["durability"] != "volatile" || p["history"] != "keep_last 10" || !strings.HasPrefix(p["type_hash"], "RIHS01_") {
		t.Fatalf("topics --json: %s", out)
	}
	out, err = runROS2(t, "nodes", "--domain-id", "96")
	if err != nil || !strings.Contains(out, "/talker (Go rtps)\n") {
		t.Fatalf("nodes: %v\n%q", err, out)
	}
	out, err = runROS2(t, "echo", "joint_states", "--count", "3", "--domain-id", "96")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 {
		t.Fatalf("echo: %v\n%s", err, out)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["name"].([]any)[0] != "j1" || m["header"] == nil || m["position"] == nil {
			t.Fatalf("line %q: %v", l, err)
		}
	}
}

// TestROS2EchoReportsIncompatibleQoS: asking a best-effort publisher for
// reliable messages fails with the reason, not a silent wait.
func TestROS2EchoReportsIncompatibleQoS(t *testing.T) {
	talker(t, 97, qos.SensorData)
	_, err := runROS2(t, "echo", "/joint_states", "--count", "1", "--domain-id", "97", "--timeout", "2s", "--qos-reliability", "reliable")
	if !errors.Is(err, node.ErrIncompatibleQoS) || !strings.Contains(err.Error(), "offered best_effort, requested reliable") {
		t.Fatalf("echo: %v", err)
	}
}

// TestROS2CommandsFailWithAReasonWhenNothingIsFound: an empty domain is a
// one-line error naming what was looked for and what to set, not empty
// output.
func TestROS2CommandsFailWithAReasonWhenNothingIsFound(t *testing.T) {
	for _, k := range []string{"ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOCALHOST_ONLY", "ROS_STATIC_PEERS"} {
		t.Setenv(k, "")
	}
	for _, c := range [][]string{{"topics"}, {"nodes"}, {"echo", "/nothing"}} {
		_, err := runROS2(t, append(c, "--domain-id", "98", "--timeout", "300ms")...)
		if err == nil || !strings.Contains(err.Error(), "domain 98 within 300ms") || !strings.Contains(err.Error(), "ROS_AUTOMATIC_DISCOVERY_RANGE=OFF talk to no other process") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("%v: %v", c, err)
		}
	}
	t.Setenv("ROS_DOMAIN_ID", "x")
	if _, err := runROS2(t, "topics"); !errors.Is(err, node.ErrEnv) {
		t.Fatalf("bad ROS_DOMAIN_ID: %v", err)
	}
}

// TestROS2EchoRefusesAnotherDistrosLayout: a Kilted publisher of
// FollowJointTrajectory feedback (a layout Jazzy lacks, same type name)
// is refused by echo --distro jazzy with the reason, instead of printing
// garbage. Its topic, hidden, is listed only with --include-hidden.
func TestROS2EchoRefusesAnotherDistrosLayout(t *testing.T) {
	for _, k := range []string{"ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOCALHOST_ONLY", "ROS_STATIC_PEERS"} {
		t.Setenv(k, "")
	}
	c, err := node.NewContext(t.Context(), node.Options{Distro: msgs.Kilted, Discovery: node.Discovery{Domain: 99}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("controller", "/arm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.NewPublisher("fjt/_action/feedback", "control_msgs/action/FollowJointTrajectory_FeedbackMessage", qos.Default); err != nil {
		t.Fatal(err)
	}
	if _, err := runROS2(t, "topics", "--domain-id", "99", "--timeout", "1s"); err == nil {
		t.Fatal("topics lists a hidden topic without --include-hidden")
	}
	if out, err := runROS2(t, "topics", "--domain-id", "99", "--include-hidden"); err != nil || !strings.HasPrefix(out, "/arm/fjt/_action/feedback [control_msgs/action/FollowJointTrajectory_FeedbackMessage]\n") {
		t.Fatalf("topics --include-hidden: %v\n%s", err, out)
	}
	_, err = runROS2(t, "echo", "/arm/fjt/_action/feedback", "--distro", "jazzy", "--domain-id", "99", "--timeout", "5s")
	if err == nil || !strings.Contains(err.Error(), "type hash: theirs RIHS01_") || !strings.Contains(err.Error(), "--distro") {
		t.Fatalf("echo: %v", err)
	}
}

// TestROS2DistroComesFromROSDistroAndLyricalReadsNav2Feedback: with
// ROS_DISTRO=lyrical (no --distro), echo reads a Lyrical publisher's
// NavigateToPose feedback with Nav2 1.5's tracking errors; with
// ROS_DISTRO=kilted it refuses the other layout by its type hash.
func TestROS2DistroComesFromROSDistroAndLyricalReadsNav2Feedback(t *testing.T) {
	for _, k := range []string{"ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOCALHOST_ONLY", "ROS_STATIC_PEERS"} {
		t.Setenv(k, "")
	}
	ctx, cancel := context.WithCancel(t.Context())
	c, err := node.NewContext(ctx, node.Options{Distro: msgs.Lyrical, Discovery: node.Discovery{Domain: 95}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.NewNode("bt_navigator", "/")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := n.NewPublisher("nav_feedback", "nav2_msgs/action/NavigateToPose_Feedback", qos.Default)
	if err != nil {
		t.Fatal(err)
	}
	publishUntilCleanup(ctx, t, cancel, c, pub, func(m *cdr.Message, _ int) { m.Set("heading_tracking_error", float32(0.25)) })
	t.Setenv("ROS_DISTRO", "lyrical")
	out, err := runROS2(t, "echo", "/nav_feedback", "--count", "1", "--domain-id", "95", "--timeout", "10s")
	if err != nil || !strings.Contains(out, `"heading_tracking_error":0.25`) {
		t.Fatalf("echo with ROS_DISTRO=lyrical: %v\n%s", err, out)
	}
	t.Setenv("ROS_DISTRO", "kilted")
	_, err = runROS2(t, "echo", "/nav_feedback", "--count", "1", "--domain-id", "95", "--timeout", "5s")
	if err == nil || !strings.Contains(err.Error(), "type hash: theirs RIHS01_") {
		t.Fatalf("echo with ROS_DISTRO=kilted: %v", err)
	}
}
