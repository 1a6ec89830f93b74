package ros2rpc

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestParameterEventsFromEachVendorReachOurSubscription publishes
// rcl_interfaces/ParameterEvent on rt/parameter_events from each vendor
// (as an rclcpp node does on a change) and reads it with
// param.SubscribeEvents.
func TestParameterEventsFromEachVendorReachOurSubscription(t *testing.T) {
	ns := netns.Require(t)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	evT, err := set.Struct("rcl_interfaces/msg/ParameterEvent")
	if err != nil {
		t.Fatal(err)
	}
	peers := ddspeers.BuildTypes(t, []*cdr.Struct{evT})
	ev := cdr.Zero(evT)
	ev.Set("node", "/arm/controller")
	changed := cdr.MakeSlice(evT.Field(evT.FieldIndex("changed_parameters")).Type, 1).([]*cdr.Message)
	changed[0].Set("name", "speed")
	v := changed[0].Get("value").(*cdr.Message)
	v.Set("type", uint8(param.Double))
	v.Set("double_value", 0.75)
	ev.Set("changed_parameters", changed)
	line, err := ddspeers.SampleLine(ev)
	if err != nil {
		t.Fatal(err)
	}
	for i, bin := range []string{peers.Cyclone, peers.Fast, peers.Fast3(t)} {
		t.Run([]string{"cyclonedds", "fastdds", "fastdds3"}[i], func(t *testing.T) {
			ddspeers.SkipMissing(t, bin)
			domain := 150 + i
			events, err := param.SubscribeEvents(servicetest.Participant(t, domain), set, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer events.Close()
			pub := ddspeers.StartPeer(t, ns, bin, strings.NewReader(line), "pub", "--type", "rcl_interfaces/msg/ParameterEvent",
				"--topic", "rt/parameter_events", "--depth", "1000", "--domain", strconv.Itoa(domain))
			got, err := events.Next(servicetest.Timeout(t, 30*time.Second))
			if err != nil {
				t.Fatalf("%v: %s", err, pub.Stderr())
			}
			if got.Node != "/arm/controller" || len(got.Changed) != 1 || got.Changed[0].Name != "speed" || got.Changed[0].Value.V != 0.75 || len(got.New) != 0 {
				t.Fatalf("event %+v", got)
			}
		})
	}
}
