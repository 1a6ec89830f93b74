package config

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/actuators"
)

// ROS 2 distros a config may name.
const (
	DistroHumble = "humble"
	DistroJazzy  = "jazzy"
	DistroKilted = "kilted"
	// DistroLyrical is Lyrical Luth (May 2026, LTS).
	DistroLyrical = "lyrical"
)

// Discovery ranges, as ROS_AUTOMATIC_DISCOVERY_RANGE in lower case.
const (
	DiscoveryLocalhost = "localhost"
	DiscoverySubnet    = "subnet"
	DiscoveryOff       = "off"
)

// MaxDomainID is the largest ROS 2 domain id (rcl refuses larger ones:
// their ports do not fit).
const MaxDomainID = 232

// QoS roles: the topics of an actuator whose QoS a config may override.
const QoSJointStates = "joint_states"

// ROS2 is the top level of a config for transport ros2. Every key is
// refused under ros1, so a key that would be ignored is never written.
type ROS2 struct {
	// Distro chooses the message definitions and controller semantics:
	// humble, jazzy, kilted or lyrical.
	Distro string `yaml:"distro"`
	// DomainID is ROS_DOMAIN_ID, 0..232.
	DomainID *int `yaml:"domain_id"`
	// DiscoveryRange is localhost (the default: no packet leaves the
	// host), subnet or off (static peers only).
	DiscoveryRange string `yaml:"discovery_range"`
	// StaticPeers are hosts (IPv4 addresses or names) reached by unicast.
	StaticPeers []string `yaml:"static_peers"`
	// DiscoveryServer lists Fast DDS Discovery Servers, "host:port" or
	// "host" (port 11811): the bridge joins them as a client and finds the
	// robot through them alone (ROS_DISCOVERY_SERVER, as a list);
	// static_peers then has no use and is refused beside it.
	DiscoveryServer []string `yaml:"discovery_server"`
	// DescriptionNode names the node publishing robot_description_param,
	// "/ns/node", when more than one participant publishes it: only its
	// URDF is read. Unset, more than one publisher refuses every motion
	// (ambiguous_server).
	DescriptionNode string `yaml:"description_node"`
}

// QoSOverride is a topic's QoS change in the form of ros2/qos.Override: a
// base profile by name and any field replaced. The transport resolves the
// profile name when it opens.
type QoSOverride struct {
	Profile     string `yaml:"profile"`
	Reliability string `yaml:"reliability"` // reliable | best_effort
	Durability  string `yaml:"durability"`  // volatile | transient_local
	History     string `yaml:"history"`     // keep_last | keep_all
	Depth       int    `yaml:"depth"`       // keep_last depth, 1..10000
}

// A gripper's ROS 2 action types (action_type).
const (
	// GripperActionCommand is gripper_action_controller's, Humble and
	// Jazzy (deprecated there); the controller is gone from Kilted on
	// (ros2_controllers #1652).
	GripperActionCommand = "control_msgs/action/GripperCommand"
	// GripperActionParallel is parallel_gripper_controller's, Jazzy and later.
	GripperActionParallel = "control_msgs/action/ParallelGripperCommand"
	// GripperActionFranka is franka_ros2's franka_gripper node, every
	// distro: the actuator's action is the node's namespace (e.g.
	// /franka_gripper), an opening goal goes to its ~/move and a closing
	// one to ~/grasp (franka_msgs/action/Move, Grasp), widths in full.
	GripperActionFranka = "franka_msgs"
)

// defaultGripperAction is the gripper action type of a distro's
// controllers: the one its default gripper controller serves.
func defaultGripperAction(distro string) string {
	switch distro {
	case DistroHumble, DistroJazzy:
		return GripperActionCommand
	case DistroKilted, DistroLyrical:
		return GripperActionParallel
	}
	return "" // Validate refuses the distro
}

// checkGripperAction refuses a gripper action type the distro's
// controllers do not serve.
func checkGripperAction(typ, distro string) error {
	switch {
	case typ == GripperActionCommand && (distro == DistroKilted || distro == DistroLyrical):
		return fmt.Errorf("gripper_action_controller, which serves %s, is gone from kilted on (ros2_controllers #1652); %s has %s (parallel_gripper_controller)", typ, distro, GripperActionParallel)
	case typ == GripperActionParallel && distro == DistroHumble:
		return fmt.Errorf("parallel_gripper_controller, which serves %s, comes with jazzy; humble's gripper_action_controller serves %s", typ, GripperActionCommand)
	case typ != GripperActionCommand && typ != GripperActionParallel && typ != GripperActionFranka:
		return fmt.Errorf("%q is not one of %s, %s, %s", typ, GripperActionCommand, GripperActionParallel, GripperActionFranka)
	}
	return nil
}

var hostRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$`)

// validateTransport checks the keys that belong to one transport, and
// refuses them under the other.
func (c *Config) validateTransport(bad func(field, format string, args ...any) error) error {
	if c.Transport != TransportROS2 {
		for _, k := range []struct {
			name string
			set  bool
		}{{"distro", c.Distro != ""}, {"domain_id", c.DomainID != nil},
			{"discovery_range", c.DiscoveryRange != ""}, {"static_peers", len(c.StaticPeers) > 0},
			{"discovery_server", len(c.DiscoveryServer) > 0},
			{"description_node", c.DescriptionNode != ""}} {
			if k.set {
				return bad(k.name, "only transport ros2 reads it; this config's transport is %s", c.Transport)
			}
		}
		for i, a := range c.Actuators {
			if len(a.QoS) > 0 {
				return bad(fmt.Sprintf("actuators[%d].qos", i), "only transport ros2 reads QoS; this config's transport is %s", c.Transport)
			}
			if a.ActionType != "" {
				return bad(fmt.Sprintf("actuators[%d].action_type", i), "only transport ros2 chooses an action type; this config's transport is %s", c.Transport)
			}
			if a.CmdVelStamped != nil {
				return bad(fmt.Sprintf("actuators[%d].cmd_vel_stamped", i), "only transport ros2 reads it (ROS 1's cmd_vel is Twist); this config's transport is %s", c.Transport)
			}
			for _, k := range []struct{ name, v string }{{"server_node", a.ServerNode}, {"state_node", a.StateNode}} {
				if k.v != "" {
					return bad(fmt.Sprintf("actuators[%d].%s", i, k.name), "only transport ros2 pins a node; this config's transport is %s", c.Transport)
				}
			}
		}
		return nil
	}
	switch c.Distro {
	case DistroHumble, DistroJazzy, DistroKilted, DistroLyrical:
	case "":
		return bad("distro", "transport ros2 needs the robot's distro: humble, jazzy, kilted or lyrical")
	default:
		return bad("distro", "%q is not one of humble, jazzy, kilted, lyrical", c.Distro)
	}
	if c.DescriptionNode != "" && !nodeRE.MatchString(c.DescriptionNode) {
		return bad("description_node", "%q is not a fully qualified node name (/ns/node)", c.DescriptionNode)
	}
	if c.DomainID != nil && (*c.DomainID < 0 || *c.DomainID > MaxDomainID) {
		return bad("domain_id", "%d is not a ROS 2 domain id (0 to %d)", *c.DomainID, MaxDomainID)
	}
	switch c.DiscoveryRange {
	case DiscoveryLocalhost, DiscoverySubnet:
	case DiscoveryOff:
		if len(c.StaticPeers) == 0 {
			return bad("discovery_range", "off finds only static_peers, and none is listed")
		}
	default:
		return bad("discovery_range", "%q is not one of localhost, subnet, off", c.DiscoveryRange)
	}
	if err := c.checkDiscoveryServers(bad); err != nil {
		return err
	}
	for i, h := range c.StaticPeers {
		f := fmt.Sprintf("static_peers[%d]", i)
		if a, err := netip.ParseAddr(h); err == nil {
			if !a.Is4() {
				return bad(f, "%s is not IPv4, the only transport the bridge speaks", h)
			}
			if c.DiscoveryRange == DiscoveryLocalhost && !a.IsLoopback() {
				return bad(f, "%s is not on loopback, which localhost discovery uses; set discovery_range: subnet or off", h)
			}
			continue
		}
		if !hostRE.MatchString(h) {
			return bad(f, "%q is not an IPv4 address or a host name", h)
		}
	}
	qosByTopic := map[string]QoSOverride{}
	for i, a := range c.Actuators {
		f := func(name string) string { return fmt.Sprintf("actuators[%d].%s", i, name) }
		switch {
		case a.Kind == actuators.KindGripper:
			if err := checkGripperAction(a.ActionType, c.Distro); err != nil {
				return bad(f("action_type"), "%v", err)
			}
		case a.ActionType != "":
			return bad(f("action_type"), "only a gripper chooses its action type; a %s's is fixed", a.Kind)
		}
		if err := a.checkCmdVelStamped(c.Distro); err != nil {
			return bad(f("cmd_vel_stamped"), "%v", err)
		}
		if err := a.checkPinnedNodes(f); err != nil {
			return err
		}
		roles := a.qosRoles()
		for _, role := range slices.Sorted(maps.Keys(a.QoS)) {
			o := a.QoS[role]
			topic, ok := roles[role]
			if !ok {
				return bad(f("qos."+role), "kind %s has no %s topic; it has %s", a.Kind, role, strings.Join(slices.Sorted(maps.Keys(roles)), ", "))
			}
			if err := o.check(); err != nil {
				return bad(f("qos."+role), "%v", err)
			}
			if role == QoSCmdVel && (o.History == "keep_all" || o.Durability == "transient_local") {
				// A keep-all writer can block a zero twist behind a lagging
				// reader; a transient-local one replays old twists.
				return bad(f("qos."+role), "a velocity command must be keep_last and volatile")
			}
			if prev, dup := qosByTopic[topic]; dup && prev != o {
				return bad(f("qos."+role), "%s already has another QoS override from an actuator sharing the topic", topic)
			}
			qosByTopic[topic] = o
		}
	}
	return nil
}

// qosRoles maps the roles of the topics a has to the topic names.
func (a *ActuatorConfig) qosRoles() map[string]string {
	switch a.Kind {
	case actuators.KindArm, actuators.KindGripper:
		return map[string]string{QoSJointStates: a.JointStatesTopic}
	case actuators.KindBase:
		roles := map[string]string{}
		if a.CmdVelTopic != "" {
			roles[QoSCmdVel] = a.CmdVelTopic
		}
		if a.OdomTopic != "" {
			roles[QoSOdom] = a.OdomTopic
		}
		return roles
	}
	return map[string]string{}
}

// QoSByTopic is every actuator's QoS overrides keyed by topic name, as
// the ROS 2 client layer takes them. Validate has refused conflicts.
func (c *Config) QoSByTopic() map[string]QoSOverride {
	out := map[string]QoSOverride{}
	for _, a := range c.Actuators {
		roles := a.qosRoles()
		for role, o := range a.QoS {
			if topic, ok := roles[role]; ok {
				out[topic] = o
			}
		}
	}
	return out
}

// check refuses values the ROS 2 layer would refuse, so check-config
// finds them; the profile name is checked when the transport opens.
func (o QoSOverride) check() error {
	if o.Profile != "" && !nodeNameRE.MatchString(o.Profile) {
		return fmt.Errorf("profile: %q is not a profile name", o.Profile)
	}
	for _, f := range []struct {
		name, v string
		ok      []string
	}{{"reliability", o.Reliability, []string{"reliable", "best_effort"}},
		{"durability", o.Durability, []string{"volatile", "transient_local"}},
		{"history", o.History, []string{"keep_last", "keep_all"}}} {
		if f.v != "" && !slices.Contains(f.ok, f.v) {
			return fmt.Errorf("%s: %q is not one of %s", f.name, f.v, strings.Join(f.ok, ", "))
		}
	}
	if o.Depth != 0 && (o.Depth < 1 || o.Depth > 10000) {
		return fmt.Errorf("depth: %d is not in 1..10000", o.Depth)
	}
	if o.Depth != 0 && o.History == "keep_all" {
		return fmt.Errorf("depth: only with history keep_last")
	}
	return nil
}

// nodeRE is a fully qualified ROS 2 node name: "/name" or "/ns/.../name",
// each token rcl's [A-Za-z_][A-Za-z0-9_]*.
var nodeRE = regexp.MustCompile(`^(/[A-Za-z_][A-Za-z0-9_]*)+$`)

// checkPinnedNodes refuses a server_node or state_node that is not a
// fully qualified node name, or that pins what the actuator lacks.
func (a *ActuatorConfig) checkPinnedNodes(f func(string) string) error {
	for _, k := range []struct {
		name, v string
		has     bool
		lacks   string
	}{
		{"server_node", a.ServerNode, a.Action != "", "no action"},
		{"state_node", a.StateNode, a.Kind != actuators.KindBase || a.OdomTopic != "", "no odom_topic"},
	} {
		switch {
		case k.v == "":
		case !nodeRE.MatchString(k.v):
			return fmt.Errorf("%w: %s: %q is not a fully qualified node name (/ns/node)", ErrConfig, f(k.name), k.v)
		case !k.has:
			return fmt.Errorf("%w: %s: the actuator has %s to pin", ErrConfig, f(k.name), k.lacks)
		}
	}
	return nil
}

// checkDiscoveryServers refuses a discovery_server entry that is not
// "host:port" or "host" with an IPv4 address or a host name, a repeated
// one, and static_peers beside them (a discovery server client asks
// nobody else). ros2/node parses the entries again when it joins.
func (c *Config) checkDiscoveryServers(bad func(field, format string, args ...any) error) error {
	if len(c.DiscoveryServer) > 0 && len(c.StaticPeers) > 0 {
		return bad("static_peers", "a discovery server client finds participants through discovery_server alone; drop one of the two")
	}
	seen := map[string]bool{}
	for i, e := range c.DiscoveryServer {
		f := fmt.Sprintf("discovery_server[%d]", i)
		if strings.Count(e, ":") > 1 || strings.HasPrefix(e, "[") {
			return bad(f, "%q is not IPv4, the only transport the bridge speaks", e)
		}
		host, port, hasPort := strings.Cut(e, ":")
		if hasPort {
			if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
				return bad(f, "%q: port %q is not 1 to 65535", e, port)
			}
		}
		if a, err := netip.ParseAddr(host); err == nil {
			if !a.Is4() {
				return bad(f, "%q is not IPv4, the only transport the bridge speaks", e)
			}
		} else if !hostRE.MatchString(host) {
			return bad(f, "%q is not host:port with an IPv4 address or a host name", e)
		}
		if seen[e] {
			return bad(f, "%q is listed twice", e)
		}
		seen[e] = true
	}
	return nil
}
