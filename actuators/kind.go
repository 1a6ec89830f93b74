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
}
