package config

import (
	"strings"
	"testing"
)

func TestDiscoveryServerKeyListsServersAndRefusesWhatCannotBeReached(t *testing.T) {
	c, err := Parse([]byte("transport: ros2\ndistro: jazzy\ndiscovery_server: ['127.0.0.1:11811', robot.local]\n" + ros2Arm))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.DiscoveryServer; len(got) != 2 || got[0] != "127.0.0.1:11811" || got[1] != "robot.local" {
		t.Fatalf("discovery_server read as %v", got)
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"under ros1", "discovery_server: ['127.0.0.1:11811']\n" + ros2Arm, "discovery_server: only transport ros2"},
		{"ipv6", "transport: ros2\ndistro: jazzy\ndiscovery_server: ['[::1]:11811']\n" + ros2Arm, "discovery_server[0]: \"[::1]:11811\" is not IPv4"},
		{"port 0", "transport: ros2\ndistro: jazzy\ndiscovery_server: ['10.0.0.2:0']\n" + ros2Arm, "discovery_server[0]: \"10.0.0.2:0\": port"},
		{"port too large", "transport: ros2\ndistro: jazzy\ndiscovery_server: ['h', '10.0.0.2:65536']\n" + ros2Arm, "discovery_server[1]"},
		{"bad host", "transport: ros2\ndistro: jazzy\ndiscovery_server: ['a b:1']\n" + ros2Arm, "discovery_server[0]"},
		{"twice", "transport: ros2\ndistro: jazzy\ndiscovery_server: [h, h]\n" + ros2Arm, "discovery_server[1]: \"h\" is listed twice"},
		{"with static peers", "transport: ros2\ndistro: jazzy\nstatic_peers: [127.0.0.1]\ndiscovery_server: [h]\n" + ros2Arm, "static_peers: a discovery server client"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
