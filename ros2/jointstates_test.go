package ros2

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// Each vendor's writer on rt/joint_states (reliable, as
// joint_state_broadcaster's) reaches the robot's newest-only
// subscription: FreshJoints returns what the peer sent.
func TestJointStatesFromEachVendorReachFreshJoints(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.Build(t)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			domain := 90 + i
			cfg := &config.Config{Transport: config.TransportROS2,
				ROS2:      config.ROS2{Distro: "jazzy", DomainID: &domain, DiscoveryRange: config.DiscoverySubnet},
				Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: []string{"j1", "j2"}}}}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			r, err := Open(ctx, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			m, err := set.Message(jointStateType)
			if err != nil {
				t.Fatal(err)
			}
			m.Set("name", []string{"j1", "j2"})
			m.Set("position", []float64{0.25, -1.5})
			m.Set("velocity", []float64{0.1, 0})
			m.Set("effort", []float64{2, 3})
			line, err := ddspeers.SampleLine(m)
			if err != nil {
				t.Fatal(err)
			}
			// The peer writes once our reader matched, 20 a second.
			pub := ddspeers.StartPeer(t, ns, v.bin, strings.NewReader(line), "pub", "--type", jointStateType, "--topic", "rt/joint_states",
				"--domain", fmt.Sprint(domain), "--timeout", "30", "--count", "400", "--rate", "20")
			want := []actuators.JointReading{{Name: "j1", Position: 0.25, Velocity: 0.1, Effort: 2}, {Name: "j2", Position: -1.5, Effort: 3}}
			for {
				s := r.FreshJoints(ctx)
				if slices.Equal(s.Joints, want) && !s.Received.IsZero() {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("joints %+v, want %+v: %s", s.Joints, want, pub.Stderr())
				}
			}
			if got := r.Joints(); !slices.Equal(got.Joints, want) {
				t.Errorf("Joints %+v after FreshJoints", got.Joints)
			}
		})
	}
}
