package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/allowlist"
)

// Who may confirm a motion of an actuator. The actuators package only
// carries the policy; the bridge enforces it.
const (
	PolicyPlanner  = "planner"
	PolicyOperator = "operator"
)

// Defaults for fields a config may leave out.
const (
	DefaultNodeName           = "actbridge"
	DefaultJointStatesTopic   = "/joint_states"
	DefaultDescriptionParam   = "/robot_description"
	DefaultStatusGrace        = 3 * time.Second
	DefaultGoalConnectTimeout = 5 * time.Second
	DefaultDriveRateHz        = 10.0
	DefaultMaxDriveDuration   = 10 * time.Second
	DefaultOdomFrame          = "odom"
	// DefaultTFTopic and DefaultTFStaticTopic are tf2's topics, where a
	// robot without a namespace publishes its frame tree.
	DefaultTFTopic       = "/tf"
	DefaultTFStaticTopic = "/tf_static"
	// DefaultTFMaxAge is how old the transform from a base's odometry
	// frame into its geofence's may be (bridge.DefaultTFMaxAge).
	DefaultTFMaxAge = time.Second
	// DefaultRecoverySpeedFraction is safety.DefaultRecoveryFraction: slow
	// enough for a person to stop a recovery that goes wrong.
	DefaultRecoverySpeedFraction = 0.1
)

// Transports.
const (
	TransportROS1 = "ros1"
	TransportROS2 = "ros2"
)

// Transports lists the transport values a config may name.
func Transports() []string { return []string{TransportROS1, TransportROS2} }

// ErrConfig is wrapped by every Load / Validate failure; the message
// names the field (e.g. "actuators[1].action").
var ErrConfig = errors.New("invalid robot config")

// Config is one robot: which transport reaches it, where its actuators
// live, what the guarded tools may touch and the numbers the bridge
// carries for the safety layer. Load it with Load; a Config built in code
// needs ApplyDefaults and must pass Validate.
type Config struct {
	// Transport names the transport that reaches the robot: one of
	// Transports; empty means TransportROS1.
	Transport string `yaml:"transport"`
	// ROS2 holds the keys only transport ros2 reads (distro, domain_id,
	// discovery_range, static_peers), inline at the top level.
	ROS2 `yaml:",inline"`
	// NodeName is the bridge's ROS node name (no namespace; ROS_NAMESPACE applies).
	NodeName string `yaml:"node_name"`
	// DescriptionParam is the parameter holding the URDF (ros1), or the
	// latched topic robot_state_publisher publishes it on (ros2).
	DescriptionParam string `yaml:"robot_description_param"`
	// URDFSHA256 pins the robot description the limits come from: the
	// SHA-256 (hex) of the URDF text, as check-config --urdf prints it.
	// When set, a robot that publishes another URDF is refused at start.
	URDFSHA256 string `yaml:"urdf_sha256"`
	// LimitsFile is the joint_limits.yaml; a relative path is relative to
	// the config file. Empty means URDF limits only.
	LimitsFile string `yaml:"limits_file"`
	// StatusGrace and GoalConnectTimeout are defaults for every actuator.
	StatusGrace        Duration `yaml:"status_grace"`
	GoalConnectTimeout Duration `yaml:"goal_connect_timeout"`

	Actuators []ActuatorConfig `yaml:"actuators"`

	// Access lists what the guarded ROS tools may reach: topics, parameters,
	// services and event conditions. Anything not listed is refused.
	Access AccessConfig `yaml:"access"`
	// RateLimits bound calls per minute; robot_stop and motion_cancel are
	// never limited. Absent or zero means unlimited.
	RateLimits RateLimitConfig `yaml:"rate_limits"`
	// StepCaps bound one motion on top of the limits. Zero means no cap.
	StepCaps StepCapConfig `yaml:"step_caps"`
	// RecoverySpeedFraction is the share of every velocity limit and base
	// speed cap a recovery motion (the way back from outside a limit) may
	// use, in (0, 1]; absent or 0 means DefaultRecoverySpeedFraction.
	RecoverySpeedFraction float64 `yaml:"recovery_speed_fraction"`
	// OperatorViaElicitation lets the MCP client's user, asked by
	// elicitation, approve a motion policy gives the operator. Off by
	// default: the planner's own client may answer that question, so it
	// is the operator only where that client is a person's.
	OperatorViaElicitation bool `yaml:"operator_via_elicitation"`

	// TFSources pins, per child frame, the one node whose TF transforms
	// of it count ({odom: /ekf_node}); others are ignored. TF is read only
	// for a base fenced outside its odom_frame (or an arm's pose goals).
	TFSources map[string]string `yaml:"tf_sources"`
	// TFTopic and TFStaticTopic are the topics the frame tree is read
	// from: /tf and /tf_static unless the robot publishes them under its
	// namespace (a TurtleBot 4's ROBOT_NAMESPACE: /robot1/tf).
	TFTopic       string `yaml:"tf_topic"`
	TFStaticTopic string `yaml:"tf_static_topic"`
	// TFMaxAge is how old a transform the safety checks read from TF may
	// be: a base's odom_frame into its geofence's frame, and a pose's
	// frame into an arm's base link; absent or 0 means DefaultTFMaxAge.
	TFMaxAge Duration `yaml:"tf_max_age"`
}

// AccessConfig is the allowlists of the guarded ROS tools. Patterns are
// absolute ROS names where * matches within one segment and ** across
// segments ("/camera/**").
type AccessConfig struct {
	// Topics may be sampled (topic_sample, camera_snapshot) and watched.
	Topics []string          `yaml:"topics"`
	Params ParamAccessConfig `yaml:"params"`
	// Services may be called, each at its tier.
	Services []ServiceAccessConfig `yaml:"services"`
	// Events are conditions on watched topics that become events.
	Events []EventConditionConfig `yaml:"events"`
}

// ParamAccessConfig says which parameters may be read and which set.
type ParamAccessConfig struct {
	Read []string         `yaml:"read"`
	Set  []ParamSetConfig `yaml:"set"`
}

// Parameter types a set rule names.
const (
	ParamBool   = "bool"
	ParamInt    = "int"
	ParamDouble = "double"
	ParamString = "string"
)

// ParamSetConfig allows setting the parameters Name matches to values of
// Type; numbers within [Min, Max], strings at most MaxLength characters.
type ParamSetConfig struct {
	Name      string   `yaml:"name"`
	Type      string   `yaml:"type"`
	Min       *float64 `yaml:"min"`
	Max       *float64 `yaml:"max"`
	MaxLength int      `yaml:"max_length"`
}

// Service tiers.
const (
	TierRead         = "read"
	TierWrite        = "write"
	TierIrreversible = "irreversible"
)

// DefaultServiceTimeout bounds a service call when its rule says nothing.
const DefaultServiceTimeout = 5 * time.Second

// ServiceAccessConfig allows calling the services Name matches. An
// irreversible service is previewed and confirmed (Policy says by whom,
// operator by default); Type, when set, pins the service's type.
type ServiceAccessConfig struct {
	Name    string   `yaml:"name"`
	Tier    string   `yaml:"tier"`
	Policy  string   `yaml:"policy"`
	Type    string   `yaml:"type"`
	Timeout Duration `yaml:"timeout"`
}

// EventConditionConfig makes an event when Field of Topic's messages goes
// above Above or below Below (and another when it comes back).
type EventConditionConfig struct {
	Name  string   `yaml:"name"`
	Topic string   `yaml:"topic"`
	Field string   `yaml:"field"`
	Above *float64 `yaml:"above"`
	Below *float64 `yaml:"below"`
}

// RateLimitConfig is calls per minute: Global for all tools together,
// Default for each tool without its own entry in Tools. 0 means unlimited.
type RateLimitConfig struct {
	Global  float64            `yaml:"global"`
	Default float64            `yaml:"default"`
	Tools   map[string]float64 `yaml:"tools"`
}

// StepCapConfig bounds one motion: the largest change of any arm joint
// (rad, or m for prismatic joints) and the longest base trip (m).
type StepCapConfig struct {
	MaxJointChange float64 `yaml:"max_joint_change"`
	MaxBaseTravel  float64 `yaml:"max_base_travel"`
}

// ActuatorConfig is one actuator. Which fields apply depends on Kind:
// arm and gripper need Action and Joints; a base needs Action (move_base)
// or CmdVelTopic (or both).
type ActuatorConfig struct {
	// Name is what tools and Cancel/Track call the actuator: [a-z][a-z0-9_]*.
	Name string         `yaml:"name"`
	Kind actuators.Kind `yaml:"kind"`
	// Action is the actionlib namespace, e.g. /arm_controller/follow_joint_trajectory.
	Action string `yaml:"action"`
	// Joints: the arm's joint names, or the gripper's one finger joint.
	Joints []string `yaml:"joints"`
	// JointStatesTopic feeds Joints() for arm and gripper.
	JointStatesTopic string `yaml:"joint_states_topic"`
	// Policy says who confirms this actuator's motions: planner or operator.
	Policy string `yaml:"policy"`
	// StatusGrace: how long a goal may be missing from the server's status
	// before it is reported lost. GoalConnectTimeout: how long a send waits
	// for the server to subscribe to the goal topic. Zero means the robot default.
	StatusGrace        Duration `yaml:"status_grace"`
	GoalConnectTimeout Duration `yaml:"goal_connect_timeout"`

	// ActionType is a gripper's ROS 2 action type (transport ros2 only):
	// GripperActionCommand (gripper_action_controller) or
	// GripperActionParallel (parallel_gripper_controller), or
	// GripperActionFranka (franka_gripper's move and grasp). Empty means the
	// distro's: GripperCommand up to Jazzy, ParallelGripperCommand from
	// Kilted on (Lyrical too), where gripper_action_controller is gone.
	ActionType string `yaml:"action_type"`

	// Base only.
	CmdVelTopic      string    `yaml:"cmd_vel_topic"`
	OdomTopic        string    `yaml:"odom_topic"`
	OdomFrame        string    `yaml:"odom_frame"`
	DriveRateHz      float64   `yaml:"drive_rate_hz"`
	MaxDriveDuration Duration  `yaml:"max_drive_duration"`
	Caps             *BaseCaps `yaml:"caps"`
	Geofence         *Geofence `yaml:"geofence"`

	// CmdVelStamped (transport ros2, default true): TwistStamped on
	// cmd_vel_topic; false sends Twist, for a Humble diff_drive_controller
	// reading ~/cmd_vel_unstamped (use_stamped_vel false).
	CmdVelStamped *bool `yaml:"cmd_vel_stamped"`

	// ServerNode (transport ros2) names the node whose action server to
	// use, "/ns/node", when more than one participant serves the action:
	// goals go to that node's participant alone. Unset, more than one
	// server refuses every motion on the actuator (ambiguous_server).
	ServerNode string `yaml:"server_node"`
	// StateNode (transport ros2) names the node publishing the
	// actuator's joint states (arm, gripper) or odometry (base), when
	// more than one publishes them: only its messages are read. Unset,
	// more than one publisher refuses motion (ambiguous_server).
	StateNode string `yaml:"state_node"`

	// QoS overrides the QoS of the topics this actuator uses, keyed by
	// the topic's role (joint_states); transport ros2 only.
	QoS map[string]QoSOverride `yaml:"qos"`

	// Arm only: the ends of the arm's kinematic chain in the URDF (empty:
	// the chain its joints make, kinematics.Model.DefaultChain) and the
	// Cartesian limits checked on every motion (workspace.go).
	BaseLink  string     `yaml:"base_link"`
	ToolLink  string     `yaml:"tool_link"`
	Workspace *Workspace `yaml:"workspace"`
	// Planning asks MoveIt's move_group for the arm's pose goals
	// (planning.go); transport ros2 only.
	Planning *Planning `yaml:"planning"`
}

// BaseCaps are the base's speed caps, carried for the safety layer.
type BaseCaps struct {
	MaxLinear  float64 `yaml:"max_linear"`  // m/s
	MaxAngular float64 `yaml:"max_angular"` // rad/s
}

// Geofence is an axis-aligned rectangle in a named frame (default the
// odom frame) the base must stay in, carried for the safety layer.
type Geofence struct {
	// Frame is where the fence is declared and checked: map on a robot
	// with localisation (then TF links odom_frame to it), else odom_frame.
	Frame string  `yaml:"frame"`
	MinX  float64 `yaml:"min_x"`
	MaxX  float64 `yaml:"max_x"`
	MinY  float64 `yaml:"min_y"`
	MaxY  float64 `yaml:"max_y"`
}

// Duration is a time.Duration written with a unit in YAML ("3s", "250ms").
type Duration time.Duration

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalYAML accepts Go duration strings and refuses bare numbers,
// whose unit would be a guess.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return fmt.Errorf("line %d: want a duration with a unit like \"3s\" or \"250ms\", got %q", n.Line, n.Value)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: want a duration like \"3s\" or \"250ms\", got %q", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration back as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Load reads, defaults and validates a robot config. A relative
// limits_file is resolved against the config file's folder.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("robot config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("robot config %s: %w", path, err)
	}
	if c.LimitsFile != "" && !filepath.IsAbs(c.LimitsFile) {
		c.LimitsFile = filepath.Join(filepath.Dir(path), c.LimitsFile)
	}
	return c, nil
}

// Parse decodes a robot config, refusing unknown fields, then fills
// defaults and validates it.
func Parse(data []byte) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty document", ErrConfig)
		}
		return nil, fmt.Errorf("%w: %v", ErrConfig, quoteLines(err.Error(), data))
	}
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

var lineRE = regexp.MustCompile(`line (\d+):`)

// quoteLines adds the source text to yaml's "line N:" references, so a
// decode error shows the key it is about.
func quoteLines(msg string, data []byte) string {
	lines := strings.Split(string(data), "\n")
	return lineRE.ReplaceAllStringFunc(msg, func(m string) string {
		var n int
		if _, err := fmt.Sscanf(m, "line %d:", &n); err != nil || n < 1 || n > len(lines) {
			return m
		}
		text := strings.TrimSpace(lines[n-1])
		if len(text) > 80 {
			text = text[:80] + "..."
		}
		return fmt.Sprintf("line %d (%s):", n, text)
	})
}

// ApplyDefaults fills the fields a config may leave out.
func (c *Config) ApplyDefaults() {
	if c.Transport == "" {
		c.Transport = TransportROS1
	}
	if c.Transport == TransportROS2 && c.DiscoveryRange == "" {
		c.DiscoveryRange = DiscoveryLocalhost
	}
	if c.NodeName == "" {
		c.NodeName = DefaultNodeName
	}
	if c.DescriptionParam == "" {
		c.DescriptionParam = DefaultDescriptionParam
	}
	if c.StatusGrace == 0 {
		c.StatusGrace = Duration(DefaultStatusGrace)
	}
	if c.GoalConnectTimeout == 0 {
		c.GoalConnectTimeout = Duration(DefaultGoalConnectTimeout)
	}
	if c.TFMaxAge == 0 {
		c.TFMaxAge = Duration(DefaultTFMaxAge)
	}
	if c.TFTopic == "" {
		c.TFTopic = DefaultTFTopic
	}
	if c.TFStaticTopic == "" {
		c.TFStaticTopic = DefaultTFStaticTopic
	}
	if c.RecoverySpeedFraction == 0 {
		c.RecoverySpeedFraction = DefaultRecoverySpeedFraction
	}
	for i := range c.Access.Services {
		sv := &c.Access.Services[i]
		if sv.Policy == "" && sv.Tier == TierIrreversible {
			sv.Policy = PolicyOperator
		}
		if sv.Timeout == 0 {
			sv.Timeout = Duration(DefaultServiceTimeout)
		}
	}
	for i := range c.Actuators {
		a := &c.Actuators[i]
		if a.StatusGrace == 0 {
			a.StatusGrace = c.StatusGrace
		}
		if a.GoalConnectTimeout == 0 {
			a.GoalConnectTimeout = c.GoalConnectTimeout
		}
		if a.Policy == "" {
			a.Policy = PolicyOperator
		}
		switch a.Kind {
		case actuators.KindArm, actuators.KindGripper:
			if a.JointStatesTopic == "" {
				a.JointStatesTopic = DefaultJointStatesTopic
			}
			if a.Kind == actuators.KindGripper && a.ActionType == "" && c.Transport == TransportROS2 {
				a.ActionType = defaultGripperAction(c.Distro)
			}
		case actuators.KindBase:
			if a.CmdVelTopic != "" {
				if a.DriveRateHz == 0 {
					a.DriveRateHz = DefaultDriveRateHz
				}
				if a.MaxDriveDuration == 0 {
					a.MaxDriveDuration = Duration(DefaultMaxDriveDuration)
				}
			}
			if a.OdomTopic != "" && a.OdomFrame == "" {
				a.OdomFrame = DefaultOdomFrame
			}
			if a.Geofence != nil && a.Geofence.Frame == "" {
				a.Geofence.Frame = a.OdomFrame
			}
		}
	}
}

var (
	actuatorNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	nodeNameRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	// rosNameRE is an absolute ROS graph name: /a/b_c/d2.
	rosNameRE   = regexp.MustCompile(`^(/[A-Za-z][A-Za-z0-9_]*)+$`)
	jointNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)
	frameRE     = regexp.MustCompile(`^/?[A-Za-z][A-Za-z0-9_/]*$`)
)

// Validate checks a config with defaults applied; the error names the
// first bad field and what it should be.
func (c *Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, args...))
	}
	if !slices.Contains(Transports(), c.Transport) {
		return bad("transport", "%q is not one of %s", c.Transport, strings.Join(Transports(), ", "))
	}
	if !nodeNameRE.MatchString(c.NodeName) {
		return bad("node_name", "%q is not a ROS node name (letters, digits, _; no '/')", c.NodeName)
	}
	if !rosNameRE.MatchString(c.DescriptionParam) {
		return bad("robot_description_param", "%q is not an absolute ROS name like /robot_description", c.DescriptionParam)
	}
	if err := checkDuration(c.StatusGrace, 100*time.Millisecond, time.Minute); err != nil {
		return bad("status_grace", "%v", err)
	}
	if err := checkDuration(c.GoalConnectTimeout, 100*time.Millisecond, time.Minute); err != nil {
		return bad("goal_connect_timeout", "%v", err)
	}
	if err := checkDuration(c.TFMaxAge, 10*time.Millisecond, time.Minute); err != nil {
		return bad("tf_max_age", "%v", err)
	}
	for _, k := range []struct{ key, topic string }{{"tf_topic", c.TFTopic}, {"tf_static_topic", c.TFStaticTopic}} {
		if !rosNameRE.MatchString(k.topic) {
			return bad(k.key, "%q is not an absolute ROS topic name like /robot1/tf", k.topic)
		}
	}
	if c.TFTopic == c.TFStaticTopic {
		return bad("tf_static_topic", "%q is tf_topic too: the static transforms need a topic of their own", c.TFStaticTopic)
	}
	for _, frame := range slices.Sorted(maps.Keys(c.TFSources)) {
		if !frameRE.MatchString(frame) {
			return bad("tf_sources", "%q is not a frame id", frame)
		}
		if n := c.TFSources[frame]; !rosNameRE.MatchString(n) {
			return bad("tf_sources."+frame, "%q is not an absolute node name like /ekf_node", n)
		}
	}
	if len(c.Actuators) == 0 {
		return bad("actuators", "at least one actuator is needed")
	}
	names := map[string]int{}
	jointOwner := map[string]string{}
	for i := range c.Actuators {
		a := &c.Actuators[i]
		f := func(name string) string { return fmt.Sprintf("actuators[%d].%s", i, name) }
		if !actuatorNameRE.MatchString(a.Name) {
			return bad(f("name"), "%q must match %s", a.Name, actuatorNameRE)
		}
		if j, dup := names[a.Name]; dup {
			return bad(f("name"), "%q is already the name of actuators[%d]", a.Name, j)
		}
		names[a.Name] = i
		if !a.Kind.Valid() {
			return bad(f("kind"), "%q is not one of %s", a.Kind, kindList())
		}
		if a.Policy != PolicyPlanner && a.Policy != PolicyOperator {
			return bad(f("policy"), "%q is not one of planner, operator", a.Policy)
		}
		if err := checkDuration(a.StatusGrace, 100*time.Millisecond, time.Minute); err != nil {
			return bad(f("status_grace"), "%v", err)
		}
		if err := checkDuration(a.GoalConnectTimeout, 100*time.Millisecond, time.Minute); err != nil {
			return bad(f("goal_connect_timeout"), "%v", err)
		}
		if a.Action != "" && !rosNameRE.MatchString(a.Action) {
			return bad(f("action"), "%q is not an absolute ROS name like /arm_controller/follow_joint_trajectory", a.Action)
		}
		switch a.Kind {
		case actuators.KindArm, actuators.KindGripper:
			if a.Action == "" {
				return bad(f("action"), "an %s needs its action namespace", a.Kind)
			}
			if !rosNameRE.MatchString(a.JointStatesTopic) {
				return bad(f("joint_states_topic"), "%q is not an absolute ROS topic name", a.JointStatesTopic)
			}
			if a.Kind == actuators.KindArm && len(a.Joints) == 0 {
				return bad(f("joints"), "an arm needs at least one joint name")
			}
			if a.Kind == actuators.KindGripper && len(a.Joints) != 1 {
				return bad(f("joints"), "a gripper needs exactly one finger joint, got %d", len(a.Joints))
			}
			for k, j := range a.Joints {
				if !jointNameRE.MatchString(j) {
					return bad(fmt.Sprintf("actuators[%d].joints[%d]", i, k), "%q is not a joint name", j)
				}
				if owner, dup := jointOwner[j]; dup {
					return bad(fmt.Sprintf("actuators[%d].joints[%d]", i, k), "joint %q already belongs to %s", j, owner)
				}
				jointOwner[j] = a.Name
			}
			if err := a.noBaseFields(f); err != nil {
				return err
			}
			if err := a.validateArmChain(f); err != nil {
				return err
			}
			if err := a.validatePlanning(c.Transport, f); err != nil {
				return err
			}
		case actuators.KindBase:
			if err := a.validateArmChain(f); err != nil {
				return err
			}
			if err := a.validatePlanning(c.Transport, f); err != nil {
				return err
			}
			if len(a.Joints) != 0 {
				return bad(f("joints"), "a base has no joints; drop the field")
			}
			if a.Action == "" && a.CmdVelTopic == "" {
				return bad(f("action"), "a base needs a move_base action, a cmd_vel_topic, or both")
			}
			if a.CmdVelTopic != "" {
				if !rosNameRE.MatchString(a.CmdVelTopic) {
					return bad(f("cmd_vel_topic"), "%q is not an absolute ROS topic name", a.CmdVelTopic)
				}
				if !(a.DriveRateHz >= 2 && a.DriveRateHz <= 100) {
					return bad(f("drive_rate_hz"), "%v must be in [2, 100] Hz (above the robot's cmd_vel timeout rate)", a.DriveRateHz)
				}
				if err := checkDuration(a.MaxDriveDuration, 100*time.Millisecond, 5*time.Minute); err != nil {
					return bad(f("max_drive_duration"), "%v", err)
				}
			} else if a.DriveRateHz != 0 || a.MaxDriveDuration != 0 {
				return bad(f("cmd_vel_topic"), "drive_rate_hz/max_drive_duration given without a cmd_vel_topic")
			}
			if a.OdomTopic != "" {
				if !rosNameRE.MatchString(a.OdomTopic) {
					return bad(f("odom_topic"), "%q is not an absolute ROS topic name", a.OdomTopic)
				}
				if !frameRE.MatchString(a.OdomFrame) {
					return bad(f("odom_frame"), "%q is not a frame id", a.OdomFrame)
				}
			} else if a.OdomFrame != "" {
				return bad(f("odom_topic"), "odom_frame %q given without an odom_topic", a.OdomFrame)
			}
			if a.Caps != nil {
				if !(a.Caps.MaxLinear > 0 && finite(a.Caps.MaxLinear)) {
					return bad(f("caps.max_linear"), "%v must be a positive number of m/s", a.Caps.MaxLinear)
				}
				if !(a.Caps.MaxAngular > 0 && finite(a.Caps.MaxAngular)) {
					return bad(f("caps.max_angular"), "%v must be a positive number of rad/s", a.Caps.MaxAngular)
				}
			}
			if g := a.Geofence; g != nil {
				if g.Frame != "" && !frameRE.MatchString(g.Frame) {
					return bad(f("geofence.frame"), "%q is not a frame id", g.Frame)
				}
				for _, v := range []struct {
					name string
					x    float64
				}{{"min_x", g.MinX}, {"max_x", g.MaxX}, {"min_y", g.MinY}, {"max_y", g.MaxY}} {
					if !finite(v.x) {
						return bad(f("geofence."+v.name), "%v is not a finite number", v.x)
					}
				}
				if !(g.MinX < g.MaxX) {
					return bad(f("geofence"), "min_x %v must be below max_x %v", g.MinX, g.MaxX)
				}
				if !(g.MinY < g.MaxY) {
					return bad(f("geofence"), "min_y %v must be below max_y %v", g.MinY, g.MaxY)
				}
			}
			if a.JointStatesTopic != "" {
				return bad(f("joint_states_topic"), "a base has no joints; drop the field")
			}
		}
	}
	if err := c.validateTransport(bad); err != nil {
		return err
	}
	if err := c.validateAccess(bad); err != nil {
		return err
	}
	return c.validateLimits(bad)
}

var (
	conditionNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	fieldPathRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+){0,15}$`)
	serviceTypeRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*/[A-Za-z][A-Za-z0-9_]*$`)
	// ros2ServiceTypeRE is a service type as ROS 2 names it, pkg/srv/Type,
	// or an action the ROS 2 transport calls as a service (one goal, its
	// result), pkg/action/Type.
	ros2ServiceTypeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*/(srv|action)/[A-Za-z][A-Za-z0-9_]*$`)
	toolNameRE        = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// validateAccess checks the allowlists; bad formats the error as Validate does.
func (c *Config) validateAccess(bad func(field, format string, args ...any) error) error {
	ac := &c.Access
	for i, p := range ac.Topics {
		if err := allowlist.Check(p); err != nil {
			return bad(fmt.Sprintf("access.topics[%d]", i), "%v", err)
		}
	}
	for i, p := range ac.Params.Read {
		if err := allowlist.Check(p); err != nil {
			return bad(fmt.Sprintf("access.params.read[%d]", i), "%v", err)
		}
	}
	for i, r := range ac.Params.Set {
		f := func(name string) string { return fmt.Sprintf("access.params.set[%d].%s", i, name) }
		if err := allowlist.Check(r.Name); err != nil {
			return bad(f("name"), "%v", err)
		}
		switch r.Type {
		case ParamBool, ParamString:
			if r.Min != nil || r.Max != nil {
				return bad(f("min"), "a %s parameter has no range", r.Type)
			}
		case ParamInt, ParamDouble:
			if r.MaxLength != 0 {
				return bad(f("max_length"), "only string parameters have a max_length")
			}
			for _, v := range []struct {
				name string
				x    *float64
			}{{"min", r.Min}, {"max", r.Max}} {
				if v.x != nil && !finite(*v.x) {
					return bad(f(v.name), "%v is not a finite number", *v.x)
				}
			}
			if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
				return bad(f("min"), "min %v is above max %v", *r.Min, *r.Max)
			}
		default:
			return bad(f("type"), "%q is not one of bool, int, double, string", r.Type)
		}
		if r.MaxLength < 0 || r.MaxLength > 4096 {
			return bad(f("max_length"), "%d must be in [1, 4096]", r.MaxLength)
		}
	}
	for i, sv := range ac.Services {
		f := func(name string) string { return fmt.Sprintf("access.services[%d].%s", i, name) }
		if err := allowlist.Check(sv.Name); err != nil {
			return bad(f("name"), "%v", err)
		}
		switch sv.Tier {
		case TierRead, TierWrite:
			if sv.Policy != "" {
				return bad(f("policy"), "only irreversible services are confirmed; drop the field")
			}
		case TierIrreversible:
			if sv.Policy != PolicyPlanner && sv.Policy != PolicyOperator {
				return bad(f("policy"), "%q is not one of planner, operator", sv.Policy)
			}
		default:
			return bad(f("tier"), "%q is not one of read, write, irreversible", sv.Tier)
		}
		if c.Transport == TransportROS2 {
			if sv.Type != "" && !ros2ServiceTypeRE.MatchString(sv.Type) {
				return bad(f("type"), "%q is not a ROS 2 service type like std_srvs/srv/Trigger (or an action type like franka_msgs/action/ErrorRecovery)", sv.Type)
			}
		} else if sv.Type != "" && !serviceTypeRE.MatchString(sv.Type) {
			return bad(f("type"), "%q is not a service type like std_srvs/Trigger", sv.Type)
		}
		if err := checkDuration(sv.Timeout, 100*time.Millisecond, time.Minute); err != nil {
			return bad(f("timeout"), "%v", err)
		}
	}
	names := map[string]bool{}
	for i, ev := range ac.Events {
		f := func(name string) string { return fmt.Sprintf("access.events[%d].%s", i, name) }
		if !conditionNameRE.MatchString(ev.Name) {
			return bad(f("name"), "%q must match %s", ev.Name, conditionNameRE)
		}
		if names[ev.Name] {
			return bad(f("name"), "%q is used twice", ev.Name)
		}
		names[ev.Name] = true
		if !rosNameRE.MatchString(ev.Topic) {
			return bad(f("topic"), "%q is not an absolute ROS topic name", ev.Topic)
		}
		if !fieldPathRE.MatchString(ev.Field) {
			return bad(f("field"), "%q is not a field path like pose.pose.position.x", ev.Field)
		}
		if ev.Above == nil && ev.Below == nil {
			return bad(f("above"), "a condition needs above, below or both")
		}
		for _, v := range []*float64{ev.Above, ev.Below} {
			if v != nil && !finite(*v) {
				return bad(f("above"), "%v is not a finite number", *v)
			}
		}
		if _, ok := allowlist.Globs(ac.Topics).Match(ev.Topic); !ok {
			return bad(f("topic"), "%s is not in access.topics", ev.Topic)
		}
	}
	return nil
}

// validateLimits checks rate limits and step caps.
func (c *Config) validateLimits(bad func(field, format string, args ...any) error) error {
	rl := c.RateLimits
	for _, v := range []struct {
		name string
		x    float64
	}{{"rate_limits.global", rl.Global}, {"rate_limits.default", rl.Default}} {
		if !(v.x >= 0 && v.x <= 1e6) {
			return bad(v.name, "%v must be in [0, 1000000] calls per minute (0: unlimited)", v.x)
		}
	}
	for name, v := range rl.Tools {
		if !toolNameRE.MatchString(name) {
			return bad("rate_limits.tools", "%q is not a tool name", name)
		}
		if name == "robot_stop" || name == "motion_cancel" {
			return bad("rate_limits.tools."+name, "%s is never rate limited; drop the entry", name)
		}
		if !(v >= 0 && v <= 1e6) {
			return bad("rate_limits.tools."+name, "%v must be in [0, 1000000] calls per minute (0: unlimited)", v)
		}
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"step_caps.max_joint_change", c.StepCaps.MaxJointChange}, {"step_caps.max_base_travel", c.StepCaps.MaxBaseTravel}} {
		if !(v.x >= 0 && finite(v.x)) {
			return bad(v.name, "%v must be a non-negative number (0: no cap)", v.x)
		}
	}
	if c.URDFSHA256 != "" && !sha256RE.MatchString(c.URDFSHA256) {
		return bad("urdf_sha256", "%q must be 64 lowercase hex digits (actbridge check-config --urdf FILE prints it)", c.URDFSHA256)
	}
	if f := c.RecoverySpeedFraction; !(f > 0 && f <= 1) {
		return bad("recovery_speed_fraction", "%v must be in (0, 1]: the share of the velocity limits and speed caps a recovery may use", f)
	}
	return nil
}

// noBaseFields refuses base-only fields on an arm or gripper, so a
// misplaced key is not silently ignored.
func (a *ActuatorConfig) noBaseFields(f func(string) string) error {
	set := []struct {
		name string
		on   bool
	}{
		{"cmd_vel_topic", a.CmdVelTopic != ""}, {"odom_topic", a.OdomTopic != ""},
		{"odom_frame", a.OdomFrame != ""}, {"drive_rate_hz", a.DriveRateHz != 0},
		{"max_drive_duration", a.MaxDriveDuration != 0}, {"cmd_vel_stamped", a.CmdVelStamped != nil}, {"caps", a.Caps != nil},
		{"geofence", a.Geofence != nil},
	}
	for _, s := range set {
		if s.on {
			return fmt.Errorf("%w: %s: only a base has %s", ErrConfig, f(s.name), s.name)
		}
	}
	return nil
}

func checkDuration(d Duration, lo, hi time.Duration) error {
	if d.D() < lo || d.D() > hi {
		return fmt.Errorf("%s must be in [%s, %s]", d.D(), lo, hi)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Actuator returns the named actuator's config.
func (c *Config) Actuator(name string) (ActuatorConfig, bool) {
	for _, a := range c.Actuators {
		if a.Name == name {
			return a, true
		}
	}
	return ActuatorConfig{}, false
}

// ByKind returns the actuators of one kind, in config order.
func (c *Config) ByKind(kind actuators.Kind) []ActuatorConfig {
	var out []ActuatorConfig
	for _, a := range c.Actuators {
		if a.Kind == kind {
			out = append(out, a)
		}
	}
	return out
}

// String names an actuator for messages: "arm (/arm_controller/...)".
func (a ActuatorConfig) String() string {
	ns := a.Action
	if ns == "" {
		ns = a.CmdVelTopic
	}
	return strings.TrimSpace(a.Name + " (" + ns + ")")
}

// kindList is the actuator kinds for messages: "arm, gripper, base".
func kindList() string {
	ks := make([]string, 0, len(actuators.Kinds()))
	for _, k := range actuators.Kinds() {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ", ")
}
