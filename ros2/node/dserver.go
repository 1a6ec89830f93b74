package node

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/rtps/wire"
)

// The variables rmw_fastrtps and Fast DDS read for the Discovery Server.
const (
	EnvDiscoveryServer = "ROS_DISCOVERY_SERVER"
	EnvSuperClient     = "ROS_SUPER_CLIENT"
)

// DefaultServerPort is a discovery server's port when an entry names none
// (Fast DDS's DEFAULT_ROS2_SERVER_PORT).
const DefaultServerPort = 11811

// maxServers bounds the entries of a server list: Fast DDS 2.x puts the
// entry's index in one octet of the server's GUID prefix.
const maxServers = 256

// DiscoveryServer is one Fast DDS Discovery Server to join as a client.
type DiscoveryServer struct {
	// Index is the entry's position in ROS_DISCOVERY_SERVER, empty
	// entries counted: the server id of `fast-discovery-server -i`.
	Index int
	// Host is an IPv4 address or a host name; Port its UDP port.
	Host string
	Port uint16
}

// String is the entry as ROS_DISCOVERY_SERVER writes it.
func (s DiscoveryServer) String() string {
	return s.Host + ":" + strconv.Itoa(int(s.Port))
}

// DefaultPrefix is the GUID prefix a server started with `-i Index` and
// no prefix of its own takes, 44.53.<Index>.5f.45.50.52.4f.53.49.4d.41
// ("DS" Index "_EPROSIMA"). Fast DDS 2.x clients need it to reach the
// server; Fast DDS 3 clients and ours learn the server's prefix from it.
func (s DiscoveryServer) DefaultPrefix() wire.GUIDPrefix {
	return wire.GUIDPrefix{0x44, 0x53, byte(s.Index), 0x5f, 0x45, 0x50, 0x52, 0x4f, 0x53, 0x49, 0x4d, 0x41}
}

// ParseDiscoveryServers reads a server list in ROS_DISCOVERY_SERVER's
// syntax: entries separated by ";", each "host:port" or "host" (port
// 11811); an empty entry keeps its index free, so that
// ";10.0.0.2:11812" names server 1 alone. 0.0.0.0 means this host, as
// Fast DDS reads it. IPv6 is refused: the bridge speaks UDPv4 only.
func ParseDiscoveryServers(v string) ([]DiscoveryServer, error) {
	var out []DiscoveryServer
	for i, e := range strings.Split(v, ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if i >= maxServers {
			return nil, fmt.Errorf("%w: %s: more than %d entries", ErrEnv, EnvDiscoveryServer, maxServers)
		}
		s, err := parseServer(e)
		if err != nil {
			return nil, fmt.Errorf("%w: %s entry %d %q: %v", ErrEnv, EnvDiscoveryServer, i, e, err)
		}
		s.Index = i
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s=%q names no server", ErrEnv, EnvDiscoveryServer, v)
	}
	return out, nil
}

// ParseDiscoveryServer reads one "host:port" or "host" entry (a config's
// discovery_server item), index 0.
func ParseDiscoveryServer(e string) (DiscoveryServer, error) {
	s, err := parseServer(strings.TrimSpace(e))
	if err != nil {
		return s, fmt.Errorf("%w: discovery server %q: %v", ErrEnv, e, err)
	}
	return s, nil
}

func parseServer(e string) (DiscoveryServer, error) {
	s := DiscoveryServer{Host: e, Port: DefaultServerPort}
	if strings.HasPrefix(e, "[") || strings.Count(e, ":") > 1 {
		return s, fmt.Errorf("IPv6 is not spoken here; give an IPv4 address or a host name")
	}
	if h, p, ok := strings.Cut(e, ":"); ok {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return s, fmt.Errorf("port %q is not 1 to 65535", p)
		}
		s.Host, s.Port = h, uint16(n)
	}
	if a, err := netip.ParseAddr(s.Host); err == nil {
		if !a.Is4() {
			return s, fmt.Errorf("%s is not IPv4", s.Host)
		}
		if a.IsUnspecified() {
			s.Host = loopback().String() // a server listens on every address; this host's is meant
		}
		return s, nil
	}
	if !hostName(s.Host) {
		return s, fmt.Errorf("%q is not an IPv4 address or a host name", s.Host)
	}
	return s, nil
}

// hostName reports whether h is a plausible DNS name.
func hostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// parseSuperClient reads ROS_SUPER_CLIENT as Fast DDS does: TRUE, true,
// True or 1; FALSE, false, False or 0; anything else is an error here
// (Fast DDS logs it and takes false).
func parseSuperClient(v string) (bool, error) {
	switch v {
	case "TRUE", "true", "True", "1":
		return true, nil
	case "", "FALSE", "false", "False", "0":
		return false, nil
	}
	return false, fmt.Errorf("%w: %s=%q, want TRUE or FALSE", ErrEnv, EnvSuperClient, v)
}

// ForTools is d for a command that lists the graph (`actbridge ros2
// …`): with discovery servers, a super client, as `ros2 topic list`
// needs ROS_SUPER_CLIENT=TRUE under a discovery server; a plain client
// would hear of the endpoints on its own topics only.
func (d Discovery) ForTools() Discovery {
	d.SuperClient = d.SuperClient || len(d.Servers) > 0
	return d
}

// Describe names the discovery in a few words for a log line:
// "localhost discovery", or "discovery server 10.0.0.2:11811 (super
// client)".
func (d Discovery) Describe() string {
	if len(d.Servers) == 0 {
		return strings.ToLower(string(d.Range)) + " discovery"
	}
	names := make([]string, len(d.Servers))
	for i, s := range d.Servers {
		names[i] = s.String()
	}
	role := "client"
	if d.SuperClient {
		role = "super client"
	}
	return fmt.Sprintf("discovery server %s (%s)", strings.Join(names, ", "), role)
}
