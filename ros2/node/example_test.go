package node_test

import (
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
)

// Discovery settings from ROS 2's environment variables (a program
// passes os.LookupEnv); with none set, localhost only, domain 0.
func ExampleDiscoveryFromEnv() {
	d, err := node.DiscoveryFromEnv(func(k string) (string, bool) {
		return map[string]string{"ROS_DOMAIN_ID": "7", "ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET"}[k], true
	})
	fmt.Println(d.Domain, d.Range, err)
	_, err = node.DiscoveryFromEnv(func(k string) (string, bool) {
		return map[string]string{"ROS_LOCALHOST_ONLY": "true"}[k], true
	})
	fmt.Println(err)
	// Output:
	// 7 SUBNET <nil>
	// node: bad ROS 2 environment: ROS_LOCALHOST_ONLY="true", want 0 or 1
}

// A node publishes a String that a node of another Context takes.
func ExampleNode_NewPublisher() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := twoContexts(ctx, msgs.Jazzy, 90) // two processes, say
	defer a.Close()
	defer b.Close()
	talker, _ := a.NewNode("talker", "")
	listener, _ := b.NewNode("listener", "")
	pub, _ := talker.NewPublisher("chatter", "std_msgs/msg/String", qos.Default)
	sub, _ := listener.NewSubscription("chatter", "std_msgs/msg/String", qos.Default, node.SubscriptionOptions{})
	if err := pub.WaitMatched(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	m := pub.New()
	m.Set("data", "hello")
	pub.Publish(m)
	got, _, err := sub.Take(ctx)
	fmt.Println(got.Get("data"), err)
	// Output: hello <nil>
}

// One Context waits until the graph shows the other's node and its
// publisher, as `ros2 topic info -v` would.
func ExampleContext_WaitGraph() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := twoContexts(ctx, msgs.Humble, 91) // two processes, say
	defer a.Close()
	defer b.Close()
	n, _ := a.NewNode("camera", "/robot")
	n.NewPublisher("image", "sensor_msgs/msg/Image", qos.SensorData)
	g, err := b.WaitGraph(ctx, func(g graph.Graph) bool {
		t, ok := g.Topic("/robot/image")
		return ok && len(t.Publishers) > 0 && t.Publishers[0].Node != ""
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	t, _ := g.Topic("/robot/image")
	fmt.Println(t.Types[0], t.Publishers[0].Node)
	// Output: sensor_msgs/msg/Image /robot/camera
}

// A LatestOnly subscription hands over only the newest sample: a reader
// of a 1 kHz topic that looks now and then decodes one sample a look.
func ExampleNode_NewSubscription_latestOnly() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := twoContexts(ctx, msgs.Jazzy, 92) // two processes, say
	defer a.Close()
	defer b.Close()
	robot, _ := a.NewNode("robot", "")
	bridge, _ := b.NewNode("bridge", "")
	pub, _ := robot.NewPublisher("count", "std_msgs/msg/String", qos.Default)
	sub, _ := bridge.NewSubscription("count", "std_msgs/msg/String", qos.Default, node.SubscriptionOptions{LatestOnly: true})
	pub.WaitMatched(ctx, 1)
	for i := range 100 {
		m := pub.New()
		m.Set("data", fmt.Sprint(i))
		pub.Publish(m)
	}
	pub.WaitAcknowledged(ctx)
	m, _, _ := sub.Take(ctx)
	fmt.Println(m.Get("data"))
	// Output: 99
}

// A best-effort publisher cannot serve a reliable subscription: instead
// of never matching in silence, the subscription names the publisher and
// the reason.
func ExampleSubscription_Incompatible() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := twoContexts(ctx, msgs.Jazzy, 93) // two processes, say
	defer a.Close()
	defer b.Close()
	camera, _ := a.NewNode("camera", "")
	viewer, _ := b.NewNode("viewer", "")
	camera.NewPublisher("image", "sensor_msgs/msg/Image", qos.SensorData)
	sub, _ := viewer.NewSubscription("image", "sensor_msgs/msg/Image", qos.Default, node.SubscriptionOptions{})
	b.WaitGraph(ctx, func(graph.Graph) bool { return len(sub.Incompatible()) > 0 })
	fmt.Println(sub.Incompatible()[0].Reason)
	// Output: reliability: offered best_effort, requested reliable
}

// twoContexts starts two Contexts of distro on a localhost-only domain.
func twoContexts(ctx context.Context, distro msgs.Distro, domain int) (*node.Context, *node.Context) {
	opts := node.Options{Distro: distro, Discovery: node.Discovery{Domain: domain}}
	a, err := node.NewContext(ctx, opts)
	if err != nil {
		panic(err)
	}
	b, err := node.NewContext(ctx, opts)
	if err != nil {
		panic(err)
	}
	return a, b
}
