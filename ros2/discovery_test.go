package ros2

import (
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros2/node"
)

// TestDiscoveryTakesTheConfigThenTheEnvironment: what the config sets
// wins over ROS 2's variables; what it leaves unset comes from them, then
// from ROS 2's defaults (localhost-only discovery among them).
func TestDiscoveryTakesTheConfigThenTheEnvironment(t *testing.T) {
	seven := 7
	env := map[string]string{"ROS_DOMAIN_ID": "42", "ROS_STATIC_PEERS": "127.0.0.2", "ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct {
		name   string
		c      config.ROS2
		lookup func(string) (string, bool)
		want   node.Discovery
	}{
		{"nothing set", config.ROS2{}, nil, node.Discovery{Range: node.Localhost}},
		{"environment only", config.ROS2{}, lookup, node.Discovery{Domain: 42, Range: node.Subnet, StaticPeers: []string{"127.0.0.2"}}},
		{"config wins", config.ROS2{DomainID: &seven, DiscoveryRange: config.DiscoveryLocalhost, StaticPeers: []string{"127.0.0.3"}}, lookup,
			node.Discovery{Domain: 7, Range: node.Localhost, StaticPeers: []string{"127.0.0.3"}}},
		{"config's range, environment's domain", config.ROS2{DiscoveryRange: config.DiscoveryOff, StaticPeers: []string{"127.0.0.3"}}, lookup,
			node.Discovery{Domain: 42, Range: node.Off, StaticPeers: []string{"127.0.0.3"}}},
	} {
		got, err := Discovery(tc.c, tc.lookup)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	if _, err := Discovery(config.ROS2{}, func(string) (string, bool) { return "x", true }); err == nil {
		t.Error("a malformed ROS_DOMAIN_ID was taken")
	}
}
