package ros2

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
	"github.com/actbridge/actbridge/tf"
)

// tfPublisher is a node of its own participant publishing one transform
// parent→child with translation x, on /tf (periodically, as a localisation
// does) or /tf_static (once, latched), until the test or stop ends it.
func tfPublisher(t *testing.T, domain int, name, parent, child string, x float64, static bool) (stop func()) {
	t.Helper()
	return tfPublisherIn(t, domain, "/", name, parent, child, x, static)
}

// tfPublisherIn is tfPublisher for a node in namespace ns whose TF topics
// are the namespace's, as a namespaced robot's nodes remap them (/tf:=tf):
// /robot1/tf, /robot1/tf_static.
func tfPublisherIn(t *testing.T, domain int, ns, name, parent, child string, x float64, static bool) (stop func()) {
	t.Helper()
	rctx, n := newNode(t, domain, name, ns)
	topic, q := strings.TrimSuffix(ns, "/")+TopicTF, tfQoS
	if static {
		topic, q = strings.TrimSuffix(ns, "/")+TopicTFStatic, tfStaticQoS
	}
	pub, err := n.NewPublisher(topic, tfMessageType, q)
	if err != nil {
		t.Fatal(err)
	}
	msg := func() *cdr.Message { return tfMessage(t, pub.New().Type, parent, child, x) }
	if static {
		must(t, pub.Publish(msg()))
		return func() { rctx.Close() }
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = pub.Publish(msg())
			}
		}
	}()
	stop = func() { cancel(); <-done; rctx.Close() }
	t.Cleanup(func() { cancel(); <-done })
	return stop
}

// tfMessage is a TFMessage of s holding one transform parent→child, x
// along parent's x, stamped now.
func tfMessage(t *testing.T, s *cdr.Struct, parent, child string, x float64) *cdr.Message {
	t.Helper()
	m := cdr.Zero(s)
	tr := cdr.Zero(s.Field(0).Type.Struct) // TransformStamped
	now := time.Now()
	h := tr.Get("header").(*cdr.Message)
	must(t, h.Set("frame_id", parent))
	st := h.Get("stamp").(*cdr.Message)
	must(t, st.Set("sec", int32(now.Unix())))
	must(t, st.Set("nanosec", uint32(now.Nanosecond())))
	must(t, tr.Set("child_frame_id", child))
	tt := tr.Get("transform").(*cdr.Message)
	must(t, tt.Get("translation").(*cdr.Message).Set("x", x))
	must(t, tt.Get("rotation").(*cdr.Message).Set("w", 1.0))
	must(t, m.Set("transforms", []*cdr.Message{tr}))
	return m
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// watchTF is a buffer the bridge's WatchTF feeds with pins, its config
// changed by edits.
func watchTF(t *testing.T, domain int, pins map[string]string, edits ...func(*config.Config)) *tf.Buffer {
	t.Helper()
	cfg := &config.Config{Transport: config.TransportROS2,
		ROS2:      config.ROS2{Distro: string(msgs.Jazzy), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
		Actuators: []config.ActuatorConfig{{Name: "gripper", Kind: actuators.KindGripper, Action: "/g", Joints: []string{"f"}}}}
	for _, e := range edits {
		e(cfg)
	}
	r := openRobot(t, cfg)
	// An hour of cache: a publisher that left is let go only because the
	// graph says it left, not because it fell silent.
	buf := tf.NewBuffer(tf.Options{CacheTime: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.WatchTF(ctx, buf, pins, func(error) {}) }()
	t.Cleanup(func() { cancel(); <-done })
	return buf
}

// waitLookup polls target←source until ok says yes or 30 s pass.
func waitLookup(t *testing.T, b *tf.Buffer, what, target, source string, ok func(tf.Transform, error) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tr, _, err := b.Lookup(target, source, time.Time{})
		if ok(tr, err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; last %v, %v", what, tr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func xIs(x float64) func(tf.Transform, error) bool {
	return func(tr tf.Transform, err error) bool { return err == nil && tr.Translation[0] == x }
}

// The frame tree is read from /tf and /tf_static; a second live publisher
// of a frame makes it ambiguous, and when that one leaves the graph the
// frame is believed again without waiting the cache time.
func TestTFFromTheGraphOneSourcePerFrame(t *testing.T) {
	netns.Require(t)
	const domain = 199
	tfPublisher(t, domain, "robot_state_publisher", "base_link", "laser", 0.25, true)
	tfPublisher(t, domain, "amcl", "map", "odom", 1.5, false)
	tfPublisher(t, domain, "odometry", "odom", "base_link", 2, false)
	buf := watchTF(t, domain, nil)
	waitLookup(t, buf, "map←laser through static and dynamic links", "map", "laser", xIs(3.75))

	rogue := tfPublisher(t, domain, "rogue_localizer", "map", "odom", 40, false)
	waitLookup(t, buf, "the ambiguity", "map", "laser", func(_ tf.Transform, err error) bool { return errors.Is(err, tf.ErrAmbiguous) })
	rogue()
	waitLookup(t, buf, "the rogue forgotten", "map", "laser", xIs(3.75))
}

// With tf_topic and tf_static_topic naming a namespaced robot's TF
// (/robot1/tf, /robot1/tf_static), the frame tree is that robot's alone:
// a second robot on the domain publishing the same frames on /tf and
// /tf_static neither counts nor makes them ambiguous, and its
// transforms never reach the buffer.
func TestTFIsReadFromTheConfiguredTopicsOnly(t *testing.T) {
	netns.Require(t)
	const domain = 201
	tfPublisherIn(t, domain, "/robot1", "robot_state_publisher", "base_link", "laser", 0.25, true)
	tfPublisherIn(t, domain, "/robot1", "amcl", "map", "odom", 1.5, false)
	tfPublisherIn(t, domain, "/robot1", "odometry", "odom", "base_link", 2, false)
	tfPublisher(t, domain, "robot_state_publisher", "base_link", "laser", 9, true)
	tfPublisher(t, domain, "amcl", "map", "odom", 40, false)
	tfPublisher(t, domain, "odometry", "odom", "base_link", 7, false)
	buf := watchTF(t, domain, nil, func(c *config.Config) { c.TFTopic, c.TFStaticTopic = "/robot1/tf", "/robot1/tf_static" })
	waitLookup(t, buf, "robot1's map←laser", "map", "laser", xIs(3.75))
	for end := time.Now().Add(2 * tfCheck); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if tr, _, err := buf.Lookup("map", "laser", time.Time{}); err != nil || tr.Translation[0] != 3.75 {
			t.Fatalf("map←laser %v %v; want robot1's 3.75 only", tr, err)
		}
	}
	// The other robot's frames are where the default topics put them.
	waitLookup(t, watchTF(t, domain, nil), "the un-namespaced robot's map←laser on /tf", "map", "laser", xIs(56))
}

// With a frame pinned to a node, another node's transforms of it are
// dropped: no ambiguity, and the rogue's value never counts.
func TestTFPinnedFrameReadsOnlyItsNode(t *testing.T) {
	netns.Require(t)
	const domain = 200
	tfPublisher(t, domain, "amcl", "map", "odom", 1.5, false)
	tfPublisher(t, domain, "rogue_localizer", "map", "odom", 40, false)
	buf := watchTF(t, domain, map[string]string{"odom": "/amcl"})
	waitLookup(t, buf, "amcl's odom", "map", "odom", xIs(1.5))
	for end := time.Now().Add(2 * tfCheck); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if tr, _, err := buf.Lookup("map", "odom", time.Time{}); err != nil || tr.Translation[0] != 1.5 {
			t.Fatalf("%v %v; want only amcl's x=1.5", tr, err)
		}
	}
}

// TestTFFromVendorPublishers: /tf from a CycloneDDS, Fast DDS 2.9 or 3.1
// writer and latched /tf_static from another vendor reach the buffer as
// written, through a static and a dynamic link; a second vendor writer of
// the same frame on /tf makes it ambiguous, and leaving frees it.
func TestTFFromVendorPublishers(t *testing.T) {
	ns := netns.Require(t)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := set.Struct(tfMessageType)
	if err != nil {
		t.Fatal(err)
	}
	p := ddspeers.BuildDistroTypes(t, msgs.Jazzy, tfMessageType)
	line := func(parent, child string, x float64) string {
		l, err := ddspeers.SampleLine(tfMessage(t, s, parent, child, x))
		must(t, err)
		return l
	}
	// Each vendor writes /tf, the next one present /tf_static and the rogue.
	vs := vendorPeers(p.Cyclone, p.Fast, p.Fast3(t))
	if vs[2].bin == "" {
		t.Log(ddspeers.MissingFast3)
		vs = vs[:2]
	}
	for i, dyn := range vs {
		v := struct{ name, dyn, static string }{dyn.name, dyn.bin, vs[(i+1)%len(vs)].bin}
		t.Run(v.name, func(t *testing.T) {
			domain := 226 + i
			d := fmt.Sprint(domain)
			// The stamp goes stale for a 1 s lookup, not for Lookup at the latest time.
			ddspeers.StartPeer(t, ns, v.static, strings.NewReader(line("base_link", "laser", 0.25)), "pub", "--type", tfMessageType, "--topic", "rt/tf_static",
				"--transient-local", "--depth", "1", "--domain", d, "--timeout", "60", "--wait-match", "0", "--linger", "60")
			ddspeers.StartPeer(t, ns, v.dyn, strings.NewReader(line("odom", "base_link", 2)), "pub", "--type", tfMessageType, "--topic", "rt/tf",
				"--domain", d, "--timeout", "60", "--wait-match", "0", "--rate", "20", "--count", "1200")
			buf := watchTF(t, domain, nil)
			waitLookup(t, buf, "odom←laser from the vendors' writers", "odom", "laser", xIs(2.25))
			rogue := ddspeers.StartPeer(t, ns, v.static, strings.NewReader(line("odom", "base_link", 40)), "pub", "--type", tfMessageType, "--topic", "rt/tf",
				"--domain", d, "--timeout", "60", "--wait-match", "0", "--rate", "20", "--count", "1200")
			waitLookup(t, buf, "the ambiguity", "odom", "laser", func(_ tf.Transform, err error) bool {
				return errors.Is(err, tf.ErrAmbiguous)
			})
			if err := rogue.Stop(t.Context()); err != nil {
				t.Fatal(err)
			}
			waitLookup(t, buf, "the rogue forgotten once it left", "odom", "laser", xIs(2.25))
		})
	}
}
