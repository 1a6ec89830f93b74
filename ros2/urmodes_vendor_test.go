package ros2

import (
	"context"
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
)

// TestURModeTopicsReadFromEachVendor: ur_robot_driver's
// io_and_status_controller publishes ~/robot_mode and ~/safety_mode
// reliable and transient-local, once per change; a CycloneDDS and a Fast
// DDS writer of each, latched, are read by SampleTopic with the
// constants' values, so the UR presets' allowlisted mode topics work.
func TestURModeTopicsReadFromEachVendor(t *testing.T) {
	ns := netns.Require(t)
	set, err := msgs.Load(msgs.Lyrical)
	if err != nil {
		t.Fatal(err)
	}
	var types []*cdr.Struct
	for _, n := range []string{"ur_dashboard_msgs/msg/RobotMode", "ur_dashboard_msgs/msg/SafetyMode"} {
		s, err := set.Struct(n)
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, s)
	}
	p := ddspeers.BuildDistroTypes(t, msgs.Lyrical, types[0].Name(), types[1].Name())
	line := func(s *cdr.Struct, field string, v any) string {
		m := cdr.Zero(s)
		if err := m.Set(field, v); err != nil {
			t.Fatal(err)
		}
		l, err := ddspeers.SampleLine(m)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			domain := 209 + i
			for _, c := range []struct {
				topic string
				s     *cdr.Struct
				value any
			}{
				{"/io_and_status_controller/robot_mode", types[0], int8(7)},   // RUNNING
				{"/io_and_status_controller/safety_mode", types[1], uint8(3)}, // PROTECTIVE_STOP
			} {
				ddspeers.StartPeer(t, ns, v.bin, strings.NewReader(line(c.s, "mode", c.value)), "pub", "--type", c.s.Name(), "--topic", "rt"+c.topic,
					"--transient-local", "--depth", "1", "--domain", fmt.Sprint(domain), "--timeout", "60", "--wait-match", "0", "--linger", "60")
			}
			r := openRobot(t, &config.Config{Transport: config.TransportROS2,
				ROS2:      config.ROS2{Distro: string(msgs.Lyrical), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
				Actuators: []config.ActuatorConfig{{Name: "gripper", Kind: actuators.KindGripper, Action: "/g", Joints: []string{"f"}}}})
			for _, c := range []struct {
				topic string
				want  int
			}{{"/io_and_status_controller/robot_mode", 7}, {"/io_and_status_controller/safety_mode", 3}} {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				var got []any
				for ctx.Err() == nil {
					if got, err = r.SampleTopic(ctx, c.topic, 1, 5*time.Second); err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				cancel()
				if err != nil || len(got) != 1 {
					t.Fatalf("%s: %v %v", c.topic, got, err)
				}
				m, _ := got[0].(map[string]any)
				if fmt.Sprint(m["mode"]) != fmt.Sprint(c.want) {
					t.Fatalf("%s: %#v, want mode %v", c.topic, got[0], c.want)
				}
			}
		})
	}
}
