package ros1

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"

	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/tf"
)

func encodeTF(t testing.TB, m *tf2_msgs.TFMessage) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := protocommon.MessageEncode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()[4:]
}

var twoTransforms = &tf2_msgs.TFMessage{Transforms: []geometry_msgs.TransformStamped{
	{Header: std_msgs.Header{Seq: 7, Stamp: time.Unix(1700000000, 5).UTC(), FrameId: "map"}, ChildFrameId: "odom",
		Transform: geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 1, Y: -2, Z: 0.5}, Rotation: geometry_msgs.Quaternion{Z: 0.6, W: 0.8}}},
	{Header: std_msgs.Header{FrameId: "base_link"}, ChildFrameId: "laser",
		Transform: geometry_msgs.Transform{Translation: geometry_msgs.Vector3{X: 0.2}, Rotation: geometry_msgs.Quaternion{W: 1}}},
}}

// Our decoder reads what goroslib's encoder (another implementation of
// ROS 1 serialization) writes.
func TestDecodeTFReadsWhatGoroslibWrites(t *testing.T) {
	got, err := decodeTF(encodeTF(t, twoTransforms))
	if err != nil {
		t.Fatal(err)
	}
	want := []tf.Stamped{
		{Parent: "map", Child: "odom", Stamp: time.Unix(1700000000, 5).UTC(), Transform: tf.Transform{Translation: [3]float64{1, -2, 0.5}, Rotation: [4]float64{0, 0, 0.6, 0.8}}},
		{Parent: "base_link", Child: "laser", Transform: tf.Transform{Translation: [3]float64{0.2, 0, 0}, Rotation: [4]float64{0, 0, 0, 1}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}

func TestDecodeTFRefusesWhatIsNotATFMessage(t *testing.T) {
	full := encodeTF(t, twoTransforms)
	huge := append([]byte{0xff, 0xff, 0xff, 0x7f}, make([]byte, 100)...)
	for name, b := range map[string][]byte{
		"empty":           nil,
		"truncated":       full[:len(full)-3],
		"trailing bytes":  append(append([]byte(nil), full...), 0),
		"count too large": huge,
	} {
		if _, err := decodeTF(b); !errors.Is(err, errBadTF) {
			t.Errorf("%s: %v, want errBadTF", name, err)
		}
	}
}

func FuzzDecodeTF(f *testing.F) {
	f.Add(encodeTF(f, twoTransforms))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := decodeTF(b)
		if err == nil && len(ts)*76 > len(b) {
			t.Fatalf("%d transforms from %d bytes", len(ts), len(b))
		}
	})
}

// tfPub runs `rostopic pub` of one transform as node name until stopped.
func tfPub(t *testing.T, m *rostest.Master, name, topic, parent, child string, x float64) (stop func()) {
	t.Helper()
	msg := fmt.Sprintf("{transforms: [{header: {stamp: now, frame_id: %s}, child_frame_id: %s, transform: {translation: {x: %g}, rotation: {w: 1}}}]}", parent, child, x)
	args := []string{"pub", "-s", "-r", "20", topic, "tf2_msgs/TFMessage", msg, "__name:=" + name}
	if strings.HasSuffix(topic, TopicTFStatic) {
		args = []string{"pub", "-s", "--latch", topic, "tf2_msgs/TFMessage", msg, "__name:=" + name}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := m.Command(ctx, "rostopic", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		if errors.Is(err, exec.ErrNotFound) {
			t.Skip("rostopic is not installed (scripts/deps.sh)")
		}
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

func waitTF(t *testing.T, b *tf.Buffer, what, target, source string, ok func(tf.Transform, error) bool) {
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

// The frame tree comes from ROS's own publisher (rostopic, rospy) on /tf
// and, latched, /tf_static; a second node publishing a frame makes it
// ambiguous, and once that node is gone from the master the frame is
// believed again without waiting the cache time.
func TestTFFromRostopicOneSourcePerFrame(t *testing.T) {
	g := newRig(t, true)
	tfPub(t, g.m, "robot_state_publisher", TopicTFStatic, "base_link", "laser", 0.25)
	tfPub(t, g.m, "amcl", TopicTF, "map", "odom", 1.5)
	tfPub(t, g.m, "odometry", TopicTF, "odom", "base_link", 2)
	buf := tf.NewBuffer(tf.Options{CacheTime: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.robot.WatchTF(ctx, buf, nil, func(err error) { t.Logf("bad: %v", err) }) }()
	t.Cleanup(func() { cancel(); <-done })
	waitTF(t, buf, "map←laser through static and dynamic links", "map", "laser", xIs(3.75))

	rogue := tfPub(t, g.m, "rogue_localizer", TopicTF, "map", "odom", 40)
	waitTF(t, buf, "the ambiguity", "map", "laser", func(_ tf.Transform, err error) bool { return errors.Is(err, tf.ErrAmbiguous) })
	rogue()
	waitTF(t, buf, "the rogue forgotten", "map", "laser", xIs(3.75))
}

// With tf_topic and tf_static_topic naming a namespaced robot's TF, the
// frame tree is read from them alone: another robot's /tf and /tf_static
// on the same master, publishing the same frames, never count.
func TestTFIsReadFromTheConfiguredTopicsOnly(t *testing.T) {
	g := newRig(t, true)
	tfPub(t, g.m, "robot1_state_publisher", "/robot1/tf_static", "base_link", "laser", 0.25)
	tfPub(t, g.m, "robot1_amcl", "/robot1/tf", "map", "odom", 1.5)
	tfPub(t, g.m, "robot1_odometry", "/robot1/tf", "odom", "base_link", 2)
	tfPub(t, g.m, "robot_state_publisher", TopicTFStatic, "base_link", "laser", 9)
	tfPub(t, g.m, "amcl", TopicTF, "map", "odom", 40)
	g.cfg.TFTopic, g.cfg.TFStaticTopic = "/robot1/tf", "/robot1/tf_static"
	r, _ := g.open("robot1_watcher")
	buf := tf.NewBuffer(tf.Options{CacheTime: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.WatchTF(ctx, buf, nil, func(err error) { t.Logf("bad: %v", err) }) }()
	t.Cleanup(func() { cancel(); <-done })
	waitTF(t, buf, "robot1's map←laser", "map", "laser", xIs(3.75))
	for end := time.Now().Add(2 * tfCheck); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if tr, _, err := buf.Lookup("map", "laser", time.Time{}); err != nil || tr.Translation[0] != 3.75 {
			t.Fatalf("map←laser %v %v; want robot1's 3.75 only", tr, err)
		}
	}
}
