package ros2sim

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/netns"
	"github.com/actbridge/actbridge/test/udprelay"
)

// TestConfirmedMotionCutOffFromTheSimNeverReachesItNorGoesUnknown:
// `actbridge serve` and `simrobot --ros 2` discover each other through a
// relay alone (discovery range off, the relay's loopback alias their one
// static peer). The bridge's user traffic to the sim is cut, discovery
// passing, for longer than the arm's goal_connect_timeout: a confirmed
// arm_move_joints is sent and given up on (the motion stays sent, never
// unknown), robot_stop comes while cut (not stopped: its cancels
// unanswered), the link heals and robot_stop stops. The sim's goal log
// never lists the motion (the withdrawn request never reached it), and
// motion_status never says unknown nor ends it.
func TestConfirmedMotionCutOffFromTheSimNeverReachesItNorGoesUnknown(t *testing.T) {
	netns.Require(t)
	const domain = 97
	alias := netip.MustParseAddr("127.0.0.2")
	relay := udprelay.New(t, 0, 1)
	relay.Alias(alias, domain, 4)
	cmd := exec.Command(binary(t), "--ros", "2")
	cmd.Env = append(os.Environ(), fmt.Sprintf("ROS_DOMAIN_ID=%d", domain), "ROS_AUTOMATIC_DISCOVERY_RANGE=OFF",
		"ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS="+alias.String())
	sim := netns.StartPeer(t, cmd)
	sender := func(n int) wire.GUIDPrefix {
		deadline := time.Now().Add(20 * time.Second)
		for len(relay.Senders()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("the relay saw %d participants, want %d\nsim:\n%s", len(relay.Senders()), n, sim.Output())
			}
			time.Sleep(20 * time.Millisecond)
		}
		return relay.Senders()[n-1]
	}
	sender(1) // the sim
	cfg := ros2Config(t, domain)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "discovery_range: localhost", "discovery_range: off\nstatic_peers: ["+alias.String()+"]", 1)
	s = strings.Replace(s, "    joint_states_topic: /joint_states\n", "    joint_states_topic: /joint_states\n    goal_connect_timeout: 1s\n", 1)
	if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	bridge := bridgetest.Start(t, builds.Build(t, "github.com/actbridge/actbridge/cmd/actbridge"), "",
		[]string{"ROS_DOMAIN_ID=", "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=",
			"ACTBRIDGE_PLANNER_TOKEN=", "ACTBRIDGE_OPERATOR_TOKEN="},
		"--config", cfg, "--data-dir", t.TempDir())
	ours := sender(2)
	cs := bridge.Client(t, "")
	var pv map[string]any
	deadline := time.Now().Add(30 * time.Second)
	for { // the arm is ready once the bridge has the sim's joint states and server, through the relay
		got, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.3}})
		if !isErr {
			pv = got
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("arm_move_joints never previewed: %v\nbridge:\n%s", got, bridge.Output())
		}
		time.Sleep(200 * time.Millisecond)
	}
	relay.Cut(ours)
	mo := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id, _ := mo["motion_id"].(string)
	if mo["state"] == "unknown" || mo["terminal"] == true {
		t.Fatalf("motion_confirm while cut: %v", mo)
	}
	stop := bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "cut link"})
	if e, _ := stop["error"].(string); stop["stopped"] != false || !strings.Contains(e, "cancel unanswered") {
		t.Fatalf("robot_stop while cut: %v, want not stopped, its cancel unanswered", stop)
	}
	relay.Heal(ours)
	healed := time.Now()
	if stop := bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "healed"}); stop["stopped"] != true {
		t.Fatalf("robot_stop after the heal: %v, want stopped", stop)
	}
	// The link carries user traffic both ways again (robot_stop's replies
	// came); the bridge's send_goal writer heartbeats every 0.5 s, so a
	// request left in its history would reach the sim within a few periods.
	for time.Since(healed) < 3*time.Second {
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 0.5})
		if st["state"] == "unknown" || st["terminal"] == true {
			t.Fatalf("motion %s: %v\nbridge:\n%s", id, st, bridge.Output())
		}
	}
	rig := &armRig{sim: sim, domain: domain}
	rig.ctx, _ = clientContext(t, msgs.Jazzy, domain, "log_reader")
	if rig.set, err = msgs.Load(msgs.Jazzy); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if a := rig.goalLog(ctx, t)["arm"]; a.Count(id) != 0 {
		t.Fatalf("the sim's goal log holds motion %s: %+v", id, a)
	}
}
