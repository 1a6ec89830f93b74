package ros2

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestOdomFromEachVendorReachesOdomAndQoSRolesReachTheEndpoints: a
// CycloneDDS and a Fast DDS Odometry writer (best effort) reach Odom as
// sent; a base whose qos.odom asks for reliable never matches that
// writer, and one whose qos.cmd_vel offers best effort is reported not
// connected to a reliable cmd_vel subscriber, saying why: each role's
// override reaches its own endpoint.
func TestOdomFromEachVendorReachesOdomAndQoSRolesReachTheEndpoints(t *testing.T) {
	ns := netns.Require(t)
	p, _ := basePeers(t)
	m := odometry(t, "odom", 1.25, -0.5, 0.3)
	line, err := ddspeers.SampleLine(m)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			domain := 115 + i
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			pub := ddspeers.StartPeer(t, ns, v.bin, strings.NewReader(line), "pub", "--type", odometryType, "--topic", "rt/diff_drive_controller/odom",
				"--best-effort", "--domain", fmt.Sprint(domain), "--timeout", "30", "--count", "600", "--rate", "20", "--wait-match", "1")
			sub := ddspeers.StartPeer(t, ns, v.bin, nil, "sub", "--type", twistStampedType, "--topic", "rt/diff_drive_controller/cmd_vel",
				"--domain", fmt.Sprint(domain), "--timeout", "30")
			base := config.ActuatorConfig{CmdVelTopic: "/diff_drive_controller/cmd_vel", OdomTopic: "/diff_drive_controller/odom"}
			plain := openRobot(t, baseConfig(domain, "jazzy", base))
			base.QoS = map[string]config.QoSOverride{config.QoSOdom: {Reliability: "reliable"}, config.QoSCmdVel: {Reliability: "best_effort"}}
			strict := openRobot(t, baseConfig(domain, "jazzy", base))

			for {
				got, ok := plain.Odom("base")
				if ok {
					if got.Frame != "odom" || got.X != 1.25 || got.Y != -0.5 || math.Abs(got.Yaw-0.3) > 1e-9 {
						t.Errorf("Odom = %+v, want odom (1.25, -0.5) yaw 0.3", got)
					}
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("no odometry from the vendor's writer: %s", pub.Stderr())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := sub.WaitStderr(ctx, "matched"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // the strict robot has seen both peers' endpoints by now, many times over
			if p, ok := strict.Odom("base"); ok {
				t.Errorf("a reliable odom reader matched a best-effort writer: %+v", p)
			}
			st := strict.Actuators()[0]
			if st.Connected || !strings.Contains(st.Detail, "reliability: offered best_effort, requested reliable") {
				t.Errorf("best-effort cmd_vel against a reliable subscriber: %+v", st)
			}
			if st := plain.Actuators()[0]; !st.Connected {
				t.Errorf("plain base not connected: %+v", st)
			}
		})
	}
}
