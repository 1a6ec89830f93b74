package ros2

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/test/netns"
)

// describer is a node of its own participant publishing urdf as the
// robot description, latched, as robot_state_publisher does.
func describer(t *testing.T, domain int, name, urdf string) *node.Context {
	t.Helper()
	rctx, n := newNode(t, domain, name, "/")
	pub, err := n.NewPublisher("/robot_description", "std_msgs/msg/String", qos.Latched)
	if err != nil {
		t.Fatal(err)
	}
	m := pub.New()
	if err := m.Set("data", urdf); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(m); err != nil {
		t.Fatal(err)
	}
	return rctx
}

// descriptionSeen records what WatchRobotDescription reports.
type descriptionSeen struct {
	mu        sync.Mutex
	urdfs     []string
	ambiguous string
}

func (d *descriptionSeen) each(urdf, _ string) {
	d.mu.Lock()
	d.urdfs = append(d.urdfs, urdf)
	d.mu.Unlock()
}
func (d *descriptionSeen) amb(why string) { d.mu.Lock(); d.ambiguous = why; d.mu.Unlock() }

func (d *descriptionSeen) wait(t *testing.T, what string, ok func(urdfs []string, ambiguous string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d.mu.Lock()
		done := ok(d.urdfs, d.ambiguous)
		urdfs, amb := append([]string(nil), d.urdfs...), d.ambiguous
		d.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; seen %q, ambiguous %q", what, urdfs, amb)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func watchDescription(t *testing.T, domain int, descriptionNode string) (*descriptionSeen, *Robot) {
	t.Helper()
	r := openRobot(t, &config.Config{Transport: config.TransportROS2,
		ROS2:      config.ROS2{Distro: string(msgs.Jazzy), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost, DescriptionNode: descriptionNode},
		Actuators: []config.ActuatorConfig{{Name: "gripper", Kind: actuators.KindGripper, Action: "/g", Joints: []string{"f"}}}})
	seen := &descriptionSeen{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.WatchRobotDescription(ctx, seen.each, seen.amb) }()
	t.Cleanup(func() { cancel(); <-done })
	return seen, r
}

// Two participants publishing the robot description: the watch names
// both as ambiguous and hands on neither's new URDF; once the stray one
// leaves, the ambiguity clears and the robot's URDF is what stands.
func TestTwoDescriptionPublishersAreAmbiguousUntilOneLeaves(t *testing.T) {
	netns.Require(t)
	const domain = 197
	describer(t, domain, "robot_state_publisher", "<robot name='real'/>")
	seen, _ := watchDescription(t, domain, "")
	seen.wait(t, "the robot's URDF", func(u []string, _ string) bool { return len(u) > 0 && u[len(u)-1] == "<robot name='real'/>" })
	stray := describer(t, domain, "stray_publisher", "<robot name='stray'/>")
	seen.wait(t, "the ambiguity", func(_ []string, a string) bool {
		return strings.Contains(a, "/robot_state_publisher") && strings.Contains(a, "/stray_publisher")
	})
	stray.Close()
	seen.wait(t, "one publisher left", func(u []string, a string) bool { return a == "" && u[len(u)-1] == "<robot name='real'/>" })
	seen.mu.Lock()
	defer seen.mu.Unlock()
	for _, u := range seen.urdfs {
		if u == "<robot name='stray'/>" {
			t.Fatalf("the stray's URDF was handed on: %q", seen.urdfs)
		}
	}
}

// With description_node set, two publishers are no ambiguity and only
// that node's URDF counts.
func TestDescriptionNodeNamesTheOnePublisherRead(t *testing.T) {
	netns.Require(t)
	const domain = 198
	describer(t, domain, "robot_state_publisher", "<robot name='real'/>")
	describer(t, domain, "stray_publisher", "<robot name='stray'/>")
	seen, _ := watchDescription(t, domain, "/robot_state_publisher")
	seen.wait(t, "the named node's URDF", func(u []string, _ string) bool { return len(u) > 0 })
	time.Sleep(2 * descriptionCheck) // the graph has both by now; nothing else may come
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if seen.ambiguous != "" || len(seen.urdfs) != 1 || seen.urdfs[0] != "<robot name='real'/>" {
		t.Fatalf("seen %q, ambiguous %q; want only the named node's URDF and no ambiguity", seen.urdfs, seen.ambiguous)
	}
}
