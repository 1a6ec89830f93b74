package node

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/rtps"
)

// The environment variables ROS 2 reads for discovery (rcl
// `discovery_options`; ROS_LOCALHOST_ONLY is Humble's, deprecated since).
const (
	EnvDomainID       = "ROS_DOMAIN_ID"
	EnvDiscoveryRange = "ROS_AUTOMATIC_DISCOVERY_RANGE"
	EnvLocalhostOnly  = "ROS_LOCALHOST_ONLY"
	EnvStaticPeers    = "ROS_STATIC_PEERS"
)

// Range is how far automatic discovery reaches (ROS_AUTOMATIC_DISCOVERY_RANGE).
type Range string

// The ranges. SystemDefault is this library's default, Localhost: rcl's
// default since Iron is Subnet, but a bridge should not reach across the
// network unless told to.
const (
	Localhost     Range = "LOCALHOST" // unicast to 127.0.0.1, SPDP multicast with TTL 0: this host only
	Subnet        Range = "SUBNET"    // SPDP multicast on one interface, unicast to 127.0.0.1
	Off           Range = "OFF"       // static peers only
	SystemDefault Range = "SYSTEM_DEFAULT"
)

// Discovery is where a Context looks for other participants.
type Discovery struct {
	Domain int
	Range  Range
	// StaticPeers are hosts (IPv4 addresses or names) discovered by
	// unicast whatever the range (ROS_STATIC_PEERS).
	StaticPeers []string
	// Interface is the IPv4 address of the interface Subnet discovery
	// uses; zero picks the first multicast-capable one that is up (or
	// loopback when there is none). ROS 2 has no variable for it.
	Interface netip.Addr
	// Servers are Fast DDS Discovery Servers (ROS_DISCOVERY_SERVER): with
	// any, the participant is their client and discovers through them
	// alone; Range and StaticPeers are then not used.
	Servers []DiscoveryServer
	// SuperClient asks the servers for every endpoint of the domain, as
	// `ros2` tools need for the whole graph (ROS_SUPER_CLIENT); a plain
	// client hears of the endpoints on its own topics only.
	SuperClient bool
}

// DiscoveryFromEnv reads the ROS 2 discovery variables through lookup
// (os.LookupEnv). Unset variables take ROS 2's defaults, except the range,
// which defaults to Localhost (see Range).
func DiscoveryFromEnv(lookup func(string) (string, bool)) (Discovery, error) {
	d := Discovery{Range: Localhost}
	if v, _ := lookup(EnvDomainID); strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 232 {
			return d, fmt.Errorf("%w: %s=%q is not a domain id (0 to 232)", ErrEnv, EnvDomainID, v)
		}
		d.Domain = n
	}
	rangeSet := false
	if v, ok := lookup(EnvDiscoveryRange); ok && v != "" {
		switch r := Range(v); r {
		case Localhost, Subnet, Off, SystemDefault:
			d.Range, rangeSet = r, true
		default:
			return d, fmt.Errorf("%w: %s=%q, want SUBNET, LOCALHOST, OFF or SYSTEM_DEFAULT", ErrEnv, EnvDiscoveryRange, v)
		}
	}
	switch v, _ := lookup(EnvLocalhostOnly); v {
	case "", "0":
	case "1":
		if rangeSet && d.Range != Localhost {
			return d, fmt.Errorf("%w: %s=1 contradicts %s=%s; unset one", ErrEnv, EnvLocalhostOnly, EnvDiscoveryRange, d.Range)
		}
		d.Range = Localhost
	default:
		return d, fmt.Errorf("%w: %s=%q, want 0 or 1", ErrEnv, EnvLocalhostOnly, v)
	}
	if v, _ := lookup(EnvDiscoveryServer); strings.TrimSpace(v) != "" {
		servers, err := ParseDiscoveryServers(v)
		if err != nil {
			return d, err
		}
		d.Servers = servers
	}
	v, _ := lookup(EnvSuperClient)
	super, err := parseSuperClient(v)
	if err != nil {
		return d, err
	}
	d.SuperClient = super // used only with servers (from here or a config)
	if v, _ := lookup(EnvStaticPeers); v != "" {
		for p := range strings.SplitSeq(v, ";") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if a, err := netip.ParseAddr(p); err == nil && !a.Is4() {
				return d, fmt.Errorf("%w: %s: %s is not IPv4, the only transport here", ErrEnv, EnvStaticPeers, p)
			}
			d.StaticPeers = append(d.StaticPeers, p)
		}
	}
	return d, nil
}

// loopback is 127.0.0.1.
func loopback() netip.Addr { return netip.AddrFrom4([4]byte{127, 0, 0, 1}) }

// Config turns d into the participant's discovery configuration,
// resolving static peers given by name (ctx bounds the lookups).
func (d Discovery) Config(ctx context.Context) (rtps.Config, error) {
	cfg := rtps.Config{Domain: d.Domain}
	if len(d.Servers) > 0 {
		return d.serverConfig(ctx, cfg)
	}
	peers, err := resolve(ctx, EnvStaticPeers, d.StaticPeers)
	if err != nil {
		return cfg, err
	}
	remote := false
	for _, p := range peers {
		remote = remote || !p.IsLoopback()
	}
	switch d.Range {
	case Localhost, SystemDefault, "":
		if remote {
			// One participant binds one interface (rtps.Config.Addr).
			return cfg, fmt.Errorf("%w: static peers %v are not on loopback, which %s discovery uses; use SUBNET or OFF", ErrEnv, d.StaticPeers, Localhost)
		}
		// HostMulticast: the host's participants that hear discovery on
		// the SPDP group alone (CycloneDDS's default, ROS 2's SUBNET)
		// get our SPDP there too, without it leaving the host.
		cfg.Addr, cfg.Peers, cfg.HostMulticast = loopback(), append([]netip.Addr{loopback()}, peers...), true
	case Subnet:
		// Loopback as a peer too: the host's participants under LOCALHOST
		// hear no multicast, only unicast at their participant index.
		cfg.Multicast, cfg.Peers = true, append(peers, loopback())
		if cfg.Addr, err = d.iface(); err != nil {
			return cfg, err
		}
	case Off:
		if len(peers) == 0 {
			return cfg, fmt.Errorf("%w: %s=OFF and no %s", ErrNoDiscovery, EnvDiscoveryRange, EnvStaticPeers)
		}
		cfg.Addr, cfg.Peers = loopback(), peers
		if remote {
			if cfg.Addr, err = d.iface(); err != nil {
				return cfg, err
			}
		}
	default:
		return cfg, fmt.Errorf("%w: range %q", ErrEnv, d.Range)
	}
	return cfg, nil
}

// serverConfig is Config for a discovery server client: our locators on
// loopback when every server is on this host, else on the interface.
func (d Discovery) serverConfig(ctx context.Context, cfg rtps.Config) (rtps.Config, error) {
	hosts := make([]string, len(d.Servers))
	for i, s := range d.Servers {
		hosts[i] = s.Host
	}
	addrs, err := resolve(ctx, EnvDiscoveryServer, hosts)
	if err != nil {
		return cfg, err
	}
	cfg.Addr, cfg.SuperClient = loopback(), d.SuperClient
	for i, a := range addrs {
		cfg.DiscoveryServers = append(cfg.DiscoveryServers, netip.AddrPortFrom(a, d.Servers[i].Port))
		if !a.IsLoopback() && cfg.Addr.IsLoopback() {
			if cfg.Addr, err = d.iface(); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, nil
}

func resolve(ctx context.Context, what string, hosts []string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			out = append(out, a)
			continue
		}
		as, err := net.DefaultResolver.LookupNetIP(ctx, "ip4", h)
		if err != nil || len(as) == 0 {
			return nil, fmt.Errorf("%w: %s: cannot resolve %q: %v", ErrEnv, what, h, err)
		}
		out = append(out, as[0].Unmap())
	}
	return out, nil
}

// iface is the interface address for multicast or remote peers.
func (d Discovery) iface() (netip.Addr, error) {
	if d.Interface.IsValid() {
		if !d.Interface.Is4() {
			return netip.Addr{}, fmt.Errorf("%w: interface %v is not IPv4", ErrEnv, d.Interface)
		}
		return d.Interface, nil
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return netip.Addr{}, err
	}
	for _, fi := range ifs {
		if fi.Flags&net.FlagUp == 0 || fi.Flags&net.FlagMulticast == 0 || fi.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := fi.Addrs()
		for _, a := range addrs {
			if pn, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(pn.IP.To4()); ok && pn.IP.To4() != nil {
					return ip, nil
				}
			}
		}
	}
	return loopback(), nil
}
