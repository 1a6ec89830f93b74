package node_test

import (
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/ros2/node"
)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// TestDiscoveryFromEnvReadsROSVariables: the four variables as rcl reads
// them, localhost-only when none is set, and every value ROS 2 has no
// meaning for (or a contradiction) refused with the variable named.
func TestDiscoveryFromEnvReadsROSVariables(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want node.Discovery
		err  error
	}{
		{"defaults", nil, node.Discovery{Range: node.Localhost}, nil},
		{"domain", map[string]string{"ROS_DOMAIN_ID": " 42 "}, node.Discovery{Domain: 42, Range: node.Localhost}, nil},
		{"empty domain is 0", map[string]string{"ROS_DOMAIN_ID": ""}, node.Discovery{Range: node.Localhost}, nil},
		{"subnet", map[string]string{"ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET"}, node.Discovery{Range: node.Subnet}, nil},
		{"off with peers", map[string]string{"ROS_AUTOMATIC_DISCOVERY_RANGE": "OFF", "ROS_STATIC_PEERS": "127.0.0.2; ;robot.local"},
			node.Discovery{Range: node.Off, StaticPeers: []string{"127.0.0.2", "robot.local"}}, nil},
		{"humble localhost only", map[string]string{"ROS_LOCALHOST_ONLY": "1"}, node.Discovery{Range: node.Localhost}, nil},
		{"localhost only 0 keeps range", map[string]string{"ROS_LOCALHOST_ONLY": "0", "ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET"}, node.Discovery{Range: node.Subnet}, nil},
		{"domain not a number", map[string]string{"ROS_DOMAIN_ID": "one"}, node.Discovery{}, node.ErrEnv},
		{"domain too large", map[string]string{"ROS_DOMAIN_ID": "233"}, node.Discovery{}, node.ErrEnv},
		{"negative domain", map[string]string{"ROS_DOMAIN_ID": "-1"}, node.Discovery{}, node.ErrEnv},
		{"unknown range", map[string]string{"ROS_AUTOMATIC_DISCOVERY_RANGE": "subnet"}, node.Discovery{}, node.ErrEnv},
		{"localhost only bad", map[string]string{"ROS_LOCALHOST_ONLY": "yes"}, node.Discovery{}, node.ErrEnv},
		{"contradiction", map[string]string{"ROS_LOCALHOST_ONLY": "1", "ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET"}, node.Discovery{}, node.ErrEnv},
		{"ipv6 peer", map[string]string{"ROS_STATIC_PEERS": "::1"}, node.Discovery{}, node.ErrEnv},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := node.DiscoveryFromEnv(lookup(c.env))
			if !errors.Is(err, c.err) || c.err == nil && err != nil {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if c.err == nil && !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestDiscoveryConfigKeepsLocalhostOnLoopback: each range becomes the
// participant configuration it means; OFF without peers and remote peers
// under LOCALHOST are refused rather than silently finding nothing.
func TestDiscoveryConfigKeepsLocalhostOnLoopback(t *testing.T) {
	lo := netip.MustParseAddr("127.0.0.1")
	iface := netip.MustParseAddr("127.0.0.1")
	for _, c := range []struct {
		name      string
		d         node.Discovery
		multicast bool
		peers     []netip.Addr
		err       error
	}{
		{"localhost", node.Discovery{Domain: 3, Range: node.Localhost}, false, []netip.Addr{lo}, nil},
		{"localhost plus loopback peer", node.Discovery{Range: node.Localhost, StaticPeers: []string{"127.0.0.5"}}, false, []netip.Addr{lo, netip.MustParseAddr("127.0.0.5")}, nil},
		{"subnet", node.Discovery{Range: node.Subnet, Interface: iface}, true, []netip.Addr{lo}, nil},
		{"off", node.Discovery{Range: node.Off, StaticPeers: []string{"localhost"}}, false, []netip.Addr{lo}, nil},
		{"off alone", node.Discovery{Range: node.Off}, false, nil, node.ErrNoDiscovery},
		{"remote peer on localhost", node.Discovery{Range: node.Localhost, StaticPeers: []string{"192.0.2.1"}}, false, nil, node.ErrEnv},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := c.d.Config(t.Context())
			if !errors.Is(err, c.err) || c.err == nil && err != nil {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if c.err != nil {
				return
			}
			if cfg.Domain != c.d.Domain || cfg.Multicast != c.multicast || !reflect.DeepEqual(cfg.Peers, c.peers) {
				t.Fatalf("config %+v", cfg)
			}
			if !c.multicast && cfg.Addr != lo {
				t.Fatalf("address %v, want loopback", cfg.Addr)
			}
			if want := c.d.Range == node.Localhost; cfg.HostMulticast != want {
				t.Fatalf("host-wide SPDP multicast %v, want %v", cfg.HostMulticast, want)
			}
		})
	}
}

// FuzzDiscoveryFromEnv: whatever the variables hold, reading them never
// panics, and what is accepted is a domain the ports allow, a known range
// and IPv4-or-name peers.
func FuzzDiscoveryFromEnv(f *testing.F) {
	f.Add("0", "SUBNET", "", "127.0.0.1;host")
	f.Add("232", "", "1", "")
	f.Add("x", "OFF", "0", ";;")
	f.Fuzz(func(t *testing.T, domain, rng, localhost, peers string) {
		d, err := node.DiscoveryFromEnv(lookup(map[string]string{"ROS_DOMAIN_ID": domain, "ROS_AUTOMATIC_DISCOVERY_RANGE": rng,
			"ROS_LOCALHOST_ONLY": localhost, "ROS_STATIC_PEERS": peers}))
		if err != nil {
			if !errors.Is(err, node.ErrEnv) {
				t.Fatalf("error %v is not ErrEnv", err)
			}
			return
		}
		if d.Domain < 0 || d.Domain > 232 {
			t.Fatalf("domain %d accepted", d.Domain)
		}
		switch d.Range {
		case node.Localhost, node.Subnet, node.Off, node.SystemDefault:
		default:
			t.Fatalf("range %q accepted", d.Range)
		}
		for _, p := range d.StaticPeers {
			if a, err := netip.ParseAddr(p); p == "" || strings.Contains(p, ";") || err == nil && !a.Is4() {
				t.Fatalf("peer %q accepted", p)
			}
		}
	})
}
