package roslink

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// DefaultMasterURI is the master ROS tools assume when ROS_MASTER_URI is unset.
const DefaultMasterURI = "http://127.0.0.1:11311"

// Env is where the master is and how other nodes reach us, read from the
// standard ROS variables because goroslib ignores them.
type Env struct {
	// MasterAddress is the master's host:port (goroslib's NodeConf form).
	MasterAddress string
	// Host is the address other nodes use to reach ours; empty lets
	// goroslib pick the interface on the master's subnet.
	Host string
}

// EnvFromOS reads Env from the process environment; see EnvFrom.
func EnvFromOS() (Env, error) { return EnvFrom(os.Getenv) }

// EnvFrom reads ROS_MASTER_URI (default DefaultMasterURI), ROS_HOSTNAME and
// ROS_IP through getenv. ROS_HOSTNAME wins over ROS_IP, as in roscpp and
// rospy; with neither set and a loopback master, Host is 127.0.0.1.
func EnvFrom(getenv func(string) string) (Env, error) {
	raw := strings.TrimSpace(getenv("ROS_MASTER_URI"))
	if raw == "" {
		raw = DefaultMasterURI
	}
	host, port, err := parseMasterURI(raw)
	if err != nil {
		return Env{}, fmt.Errorf("roslink: ROS_MASTER_URI=%q: %v (want e.g. %s)", raw, err, DefaultMasterURI)
	}
	env := Env{MasterAddress: net.JoinHostPort(host, port)}

	if h := strings.TrimSpace(getenv("ROS_HOSTNAME")); h != "" {
		if strings.ContainsAny(h, "/: ") && net.ParseIP(h) == nil {
			return Env{}, fmt.Errorf("roslink: ROS_HOSTNAME=%q: not a host name or IP address (want e.g. robot1.local)", h)
		}
		env.Host = h
		return env, nil
	}
	if ip := strings.TrimSpace(getenv("ROS_IP")); ip != "" {
		if net.ParseIP(ip) == nil {
			return Env{}, fmt.Errorf("roslink: ROS_IP=%q: not an IP address (want e.g. 192.168.1.20)", ip)
		}
		env.Host = ip
		return env, nil
	}
	if isLoopback(host) {
		env.Host = "127.0.0.1"
	}
	return env, nil
}

// parseMasterURI accepts http://host:port with an optional trailing slash,
// the only form the ROS tools understand.
func parseMasterURI(raw string) (host, port string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("not a URI: %v", err)
	}
	switch {
	case u.Scheme != "http":
		return "", "", fmt.Errorf("scheme must be http, got %q", u.Scheme)
	case u.Opaque != "" || u.Host == "":
		return "", "", fmt.Errorf("no host")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "", "", fmt.Errorf("unexpected user, query or fragment")
	case u.Path != "" && u.Path != "/":
		return "", "", fmt.Errorf("unexpected path %q", u.Path)
	}
	host, port = u.Hostname(), u.Port()
	if host == "" {
		return "", "", fmt.Errorf("no host")
	}
	if port == "" {
		return "", "", fmt.Errorf("no port")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("port %q is not in 1-65535", port)
	}
	return host, port, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
