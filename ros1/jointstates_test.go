package ros1

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros1/rostest"
)

// waitJoint waits until Joints reports joint at position.
func waitJoint(t *testing.T, r *Robot, joint string, position float64) {
	t.Helper()
	rostest.Eventually(t, 30*time.Second, fmt.Sprintf("%s at %g", joint, position), func() error {
		js := r.Joints()
		for _, j := range js.Joints {
			if j.Name == joint && j.Position == position && !js.Received.IsZero() {
				return nil
			}
		}
		return fmt.Errorf("joints = %+v", js)
	})
}

// rospyJointStates runs `rostopic pub` of one joint on /joint_states.
func rospyJointStates(t *testing.T, g *rig, joint string, position float64) *rostest.Process {
	t.Helper()
	msg := fmt.Sprintf("{name: [%s], position: [%g]}", joint, position)
	return rostest.StartProcess(t, "/usr/bin/rostopic", "rostopic pub", g.m.Env(), "pub", "-r", "20", "/joint_states", "sensor_msgs/JointState", msg)
}

// goroslibJointStates publishes one joint on /joint_states every 20 ms
// from a goroslib node until the test ends.
func goroslibJointStates(t *testing.T, g *rig, joint string, position float64) {
	t.Helper()
	publishJointStates(t, g, joint, 20*time.Millisecond, func() float64 { return position })
}

// publishJointStates publishes one joint on /joint_states every period,
// at the position next gives each time, until the test ends.
func publishJointStates(t *testing.T, g *rig, joint string, every time.Duration, next func() float64) {
	t.Helper()
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: "js_" + joint, MasterAddress: g.m.Address(), Host: "127.0.0.1",
		LogDestinations: goroslib.LogDestinationCallback, OnLog: func(goroslib.LogLevel, string) {}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: "/joint_states", Msg: &sensor_msgs.JointState{}})
	if err != nil {
		n.Close()
		t.Fatal(err)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				p.Write(&sensor_msgs.JointState{Name: []string{joint}, Position: []float64{next()}})
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		<-stopped
		p.Close()
		n.Close()
	})
}

func TestJointStatesReachTheCacheFromRospyAndGoroslibPublishers(t *testing.T) {
	g := newRig(t, true)
	name := "/" + g.cfg.NodeName

	rospy := rospyJointStates(t, g, "rospy_joint", 1.5)
	waitJoint(t, g.robot, "rospy_joint", 1.5)
	topicInfo, err := g.m.Run(30*time.Second, "rostopic", "info", "/joint_states")
	if err != nil {
		t.Fatal(err)
	}
	if _, subs, _ := strings.Cut(topicInfo, "Subscribers:"); !strings.Contains(subs, name) {
		t.Errorf("rostopic info does not list %s as a subscriber:\n%s", name, topicInfo)
	}
	nodeInfo, err := g.m.Run(30*time.Second, "rosnode", "info", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, subs, _ := strings.Cut(nodeInfo, "Subscriptions:"); !strings.Contains(subs, "/joint_states [sensor_msgs/JointState]") {
		t.Errorf("rosnode info does not list the /joint_states subscription:\n%s", nodeInfo)
	}

	// The publisher goes away, another comes: the cache follows.
	rospy.Stop(syscall.SIGTERM)
	goroslibJointStates(t, g, "go_joint", -0.25)
	waitJoint(t, g.robot, "go_joint", -0.25)

	// Two publishers at once: both are read.
	rospyJointStates(t, g, "rospy_joint", 2.5)
	waitJoint(t, g.robot, "rospy_joint", 2.5)
	waitJoint(t, g.robot, "go_joint", -0.25)
}

func TestJointStatesFlowAgainAfterAMasterRestart(t *testing.T) {
	g := newRig(t, false)
	rostest.Eventually(t, 30*time.Second, "joint states", func() error {
		if js := g.robot.Joints(); len(js.Joints) != 7 {
			return fmt.Errorf("joints = %+v", js)
		}
		return nil
	})
	g.m.Restart()
	restarted := time.Now()
	rostest.Eventually(t, 60*time.Second, "joint states read after the restart", func() error {
		if js := g.robot.Joints(); !js.Received.After(restarted) || len(js.Joints) != 7 {
			return fmt.Errorf("joints = %+v", js)
		}
		return nil
	})
	rostest.Eventually(t, 60*time.Second, "subscribed on the new master", func() error {
		out, err := g.m.Run(30*time.Second, "rostopic", "info", "/joint_states")
		if _, subs, _ := strings.Cut(out, "Subscribers:"); err != nil || !strings.Contains(subs, "/"+g.cfg.NodeName) {
			return fmt.Errorf("rostopic info: %v\n%s", err, out)
		}
		return nil
	})
}

// The cache is read every JointStatesEvery (here an hour); FreshJoints
// reads the newest message on the wire. (Half a second of writes lets
// goroslib's writer put them on the wire.)
func TestFreshJointsReadTheNewestOnTheWire(t *testing.T) {
	g := newRig(t, true)
	var written atomic.Int64
	publishJointStates(t, g, "counter", 10*time.Millisecond, func() float64 { return float64(written.Add(1)) })

	cfg := *g.cfg
	cfg.NodeName = "fresh_reader"
	octx, ocancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ocancel()
	r, err := Open(octx, &cfg, Options{Env: g.env(), CheckInterval: 500 * time.Millisecond, Logf: quiet(t), JointStatesEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	r.freshWait = time.Minute
	counter := func(js actuators.JointsSnapshot) float64 {
		for _, j := range js.Joints {
			if j.Name == "counter" {
				return j.Position
			}
		}
		return 0
	}
	var first float64
	rostest.Eventually(t, 30*time.Second, "a first message", func() error {
		if first = counter(r.Joints()); first == 0 {
			return fmt.Errorf("none yet")
		}
		return nil
	})
	for i := range 3 {
		before := written.Load()
		rostest.Eventually(t, 30*time.Second, "50 more messages written", func() error {
			if written.Load() < before+50 {
				return fmt.Errorf("%d written", written.Load())
			}
			return nil
		})
		if cached := counter(r.Joints()); i == 0 && cached != first {
			t.Fatalf("the cache moved from message %g to %g during the hour's pause", first, cached)
		}
		if got := counter(r.FreshJoints(context.Background())); got <= float64(before) {
			t.Fatalf("call %d: FreshJoints gave message %g; %d were written before the call, %d of them 0.5 s ago or more", i, got, written.Load(), before)
		}
	}
}
