package actuators

// Kind is an actuator kind. A new kind is a Goal variant here, a case in
// each transport and a preview tool in the tool layer.
type Kind string

// Actuator kinds.
const (
	KindArm     Kind = "arm"
	KindGripper Kind = "gripper"
	KindBase    Kind = "base"
)

// Kinds lists every kind, in the order tools and configs name them.
func Kinds() []Kind { return []Kind{KindArm, KindGripper, KindBase} }

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindArm, KindGripper, KindBase:
		return true
	}
	return false
}

// ActuatorStatus is one actuator's connectivity as the planner sees it.
type ActuatorStatus struct {
	Name      string `json:"name"`
	Kind      Kind   `json:"kind"`
	Connected bool   `json:"connected"`
	Detail    string `json:"detail,omitempty"`
	// Action is where the transport reaches the actuator: an action
	// namespace, or the velocity topic of a drive-only base.
	Action string `json:"action,omitempty"`
	// Ambiguous names, when set, the servers of its action or the
	// publishers of its state found where one is expected (their nodes and
	// participants): no motion is sent to the actuator until one is left
	// or the config names the node to use.
	Ambiguous string `json:"ambiguous,omitempty"`
	// Foreign counts messages about the actuator's goals from a
	// participant other than the goal's server (status, feedback,
	// replies), ignored.
	Foreign uint64 `json:"foreign_ignored,omitempty"`
}
