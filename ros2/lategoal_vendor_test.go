package ros2

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
	"github.com/actbridge/actbridge/test/udprelay"
)

// The late-goal case of
// TestGoalCutOffFromItsServerPastTheSendTimeoutNeverRunsAndItsStopIsAcknowledged
// against a CycloneDDS, a Fast DDS 2.9 and a 3.1 joint_trajectory_controller
// stand-in: the robot's user traffic to it cut past goal_connect_timeout,
// robot_stop, heal. The peer, which logs every send_goal it takes, never
// logs the goal (its reader got the withdrawn request's GAP), the goal is
// never reported lost, and robot_stop is answered once the link is back.
func TestGoalCutOffFromAVendorServerPastTheSendTimeoutNeverReachesIt(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	ns := netns.Require(t)
	const peerIndex = 40 // past the 32 indices ours sends SPDP to: the peer is reached through the relay alone
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			domain := 160 + i
			ports := udp.DefaultPorts()
			ourPort, err := ports.MetatrafficUnicast(domain, 0)
			if err != nil {
				t.Fatal(err)
			}
			peerPort, err := ports.MetatrafficUnicast(domain, peerIndex)
			if err != nil {
				t.Fatal(err)
			}
			aliasPort, err := ports.MetatrafficUnicast(domain, 1)
			if err != nil {
				t.Fatal(err)
			}
			relay := udprelay.New(t, 0, 1)
			relay.Alias(cutAlias, domain, 1) // to the robot, at index 0
			relay.Forward(netip.AddrPortFrom(cutAlias, aliasPort), netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), peerPort))
			toRobot := netip.AddrPortFrom(cutAlias, ourPort)
			env := []string{"CYCLONEDDS_URI=<Domain><General><AllowMulticast>false</AllowMulticast></General><Discovery>" +
				fmt.Sprintf("<ParticipantIndex>%d</ParticipantIndex><Peers><Peer address=\"%v\"/></Peers>", peerIndex, toRobot) +
				"</Discovery></Domain>"}
			args := []string{"--domain", strconv.Itoa(domain), "--node", "joint_trajectory_controller"}
			if v.fastDDS {
				env, args = nil, append(args, "--peer", toRobot.String(), "--participant-id", strconv.Itoa(peerIndex))
			}
			srv := p.StartActionServerEnv(t, ns, v.bin, env, armAction, args...)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if err := srv.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, srv.Stderr())
			}
			c := openCutLink(t, relay, domain)
			id, _ := c.sendCutOff(t)
			evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](srv.Stdout())
			if err != nil {
				t.Fatal(err)
			}
			var goals []string
			for _, e := range evs {
				if e.Event == "goal" {
					goals = append(goals, e.GoalID)
				}
			}
			if len(goals) != 1 || strings.EqualFold(goals[0], id) {
				t.Fatalf("the peer took the goals %v, want 1 (the one sent after the link healed, not %s):\n%s", goals, id, srv.Stdout())
			}
			c.neverLost(t, id, "")
		})
	}
}
