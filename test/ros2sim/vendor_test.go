package ros2sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestVendorSubscribersReceiveJointStates: a CycloneDDS and a Fast DDS
// reader of rt/joint_states (their own generated code, their own
// discovery) take JointStates from `simrobot --ros 2` on its default
// localhost-only discovery; each decodes as the sim's joints, stamps
// advancing: the sim's ROS 2 face is ROS 2 on the wire, not only to our
// own client.
func TestVendorSubscribersReceiveJointStates(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.Build(t)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	js, err := set.Struct("sensor_msgs/msg/JointState")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []struct{ name, bin string }{{"cyclone", p.Cyclone}, {"fast", p.Fast}, {"fast3", p.Fast3(t)}} {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			domain := 92 + i // 90, 91 and 95 to 97 are other tests
			sim := startSim(t, domain)
			sub := ddspeers.StartPeer(t, ns, v.bin, nil, "sub", "--type", "sensor_msgs/msg/JointState", "--topic", "rt/joint_states",
				"--domain", fmt.Sprint(domain), "--timeout", "30", "--count", "5")
			if err := sub.Wait(ctx); err != nil {
				t.Fatalf("peer sub: %v: %s\nsim:\n%s", err, sub.Stderr(), sim.Output())
			}
			got, err := ddspeers.HexLines(sub.Stdout())
			if err != nil || len(got) < 5 { // a peer may print a whole batch it took
				t.Fatalf("the peer took %d samples: %v", len(got), err)
			}
			var prev time.Time
			for k, b := range got {
				m, err := cdr.Decode(js, b)
				if err != nil {
					t.Fatalf("sample %d: %v", k, err)
				}
				if names := m.Get("name").([]string); len(names) != 7 || names[6] != "gripper_finger_joint" {
					t.Fatalf("sample %d: %s", k, m.AppendJSON(nil))
				}
				if s := stampOf(m); !s.After(prev) {
					t.Fatalf("sample %d stamped %v after %v", k, s, prev)
				} else {
					prev = s
				}
			}
		})
	}
}
