package node_test

import (
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// TestDiscoveryServerListKeepsIndicesAndRefusesWhatFastDDSCannotReach:
// ROS_DISCOVERY_SERVER's syntax, an empty entry keeping its index free
// (the server id of `fast-discovery-server -i`), and every entry the
// bridge could not reach refused with the entry named.
func TestDiscoveryServerListKeepsIndicesAndRefusesWhatFastDDSCannotReach(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []node.DiscoveryServer
		err  string
	}{
		{in: "127.0.0.1:11811", want: []node.DiscoveryServer{{Index: 0, Host: "127.0.0.1", Port: 11811}}},
		{in: ";10.0.0.2:11812", want: []node.DiscoveryServer{{Index: 1, Host: "10.0.0.2", Port: 11812}}},
		{in: "robot.local; ;10.0.0.3:1", want: []node.DiscoveryServer{{0, "robot.local", 11811}, {2, "10.0.0.3", 1}}},
		{in: "0.0.0.0:14520", want: []node.DiscoveryServer{{0, "127.0.0.1", 14520}}},
		{in: "", err: "names no server"},
		{in: ";;", err: "names no server"},
		{in: "[::1]:11811", err: "IPv6"},
		{in: "::1", err: "IPv6"},
		{in: "10.0.0.2:0", err: "port"},
		{in: "10.0.0.2:70000", err: "port"},
		{in: "10.0.0.2:x", err: "port"},
		{in: "a b", err: "entry 0"},
		{in: ";;a/b", err: "entry 2"},
		{in: strings.Repeat(";", 256) + "h", err: "more than 256"},
	} {
		got, err := node.ParseDiscoveryServers(c.in)
		switch {
		case c.err != "" && (err == nil || !errors.Is(err, node.ErrEnv) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want ErrEnv with %q", c.in, err, c.err)
		case c.err == "" && (err != nil || !reflect.DeepEqual(got, c.want)):
			t.Errorf("%q = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// TestServerDefaultPrefixCarriesItsIndex: the prefix Fast DDS 2.x clients
// expect of server i, 44.53.<i>.5f.45.50.52.4f.53.49.4d.41.
func TestServerDefaultPrefixCarriesItsIndex(t *testing.T) {
	want := wire.GUIDPrefix{0x44, 0x53, 0x02, 0x5f, 0x45, 0x50, 0x52, 0x4f, 0x53, 0x49, 0x4d, 0x41}
	if got := (node.DiscoveryServer{Index: 2}).DefaultPrefix(); got != want {
		t.Fatalf("prefix %x, want %x", got, want)
	}
}

// TestDiscoveryServerEnvMakesAClientOfThoseServersAlone: the variables
// give a participant configuration that sends discovery to the servers
// only (no multicast, no peers), as a super client when asked.
func TestDiscoveryServerEnvMakesAClientOfThoseServersAlone(t *testing.T) {
	d, err := node.DiscoveryFromEnv(lookup(map[string]string{"ROS_DISCOVERY_SERVER": ";127.0.0.1:11812", "ROS_SUPER_CLIENT": "TRUE", "ROS_STATIC_PEERS": "127.0.0.2"}))
	if err != nil {
		t.Fatal(err)
	}
	if !d.SuperClient || len(d.Servers) != 1 || d.Servers[0].Index != 1 {
		t.Fatalf("discovery %+v", d)
	}
	cfg, err := d.Config(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:11812")}; !reflect.DeepEqual(cfg.DiscoveryServers, want) || !cfg.SuperClient {
		t.Errorf("servers %v super %v, want %v", cfg.DiscoveryServers, cfg.SuperClient, want)
	}
	if cfg.Multicast || cfg.HostMulticast || len(cfg.Peers) > 0 || len(cfg.PeerAddrs) > 0 || !cfg.Addr.IsLoopback() {
		t.Errorf("a client of a server on this host discovers elsewhere: %+v", cfg)
	}
	for _, v := range []string{"yes", "2", "on"} {
		if _, err := node.DiscoveryFromEnv(lookup(map[string]string{"ROS_SUPER_CLIENT": v})); !errors.Is(err, node.ErrEnv) {
			t.Errorf("ROS_SUPER_CLIENT=%s: %v, want ErrEnv", v, err)
		}
	}
	if _, err := node.DiscoveryFromEnv(lookup(map[string]string{"ROS_DISCOVERY_SERVER": "[::1]"})); !errors.Is(err, node.ErrEnv) {
		t.Errorf("IPv6 server: %v, want ErrEnv", err)
	}
}

// TestAdviceNamesTheServerThatDidNotAnswer: a client that found nothing
// is told about its servers, not about discovery ranges.
func TestAdviceNamesTheServerThatDidNotAnswer(t *testing.T) {
	d := node.Discovery{Servers: []node.DiscoveryServer{{Host: "10.0.0.2", Port: 11811}}}
	if a := d.Advice(rtps.ParticipantData{}, nil); !strings.Contains(a, "no discovery server answered at 10.0.0.2:11811") {
		t.Errorf("advice %q", a)
	}
	server := rtps.ParticipantData{Properties: []rtps.Property{{Name: rtps.PropertyParticipantType, Value: "SERVER"}}}
	if a := d.Advice(rtps.ParticipantData{}, []rtps.ParticipantData{server}); !strings.Contains(a, "relayed no other participant") {
		t.Errorf("advice %q", a)
	}
	if a := d.Advice(rtps.ParticipantData{}, []rtps.ParticipantData{server, {}}); a != "" {
		t.Errorf("advice %q with a participant relayed", a)
	}
}
