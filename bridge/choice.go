package bridge

import (
	"fmt"
	"slices"
	"strings"
)

// ActuatorArg names the actuator a kind's tool acts on. It exists only when
// the robot has more than one actuator of that kind: with one, the tool's
// arguments are those of a robot with a single arm, gripper or base.
const ActuatorArg = "actuator"

// chooseActuator makes t act on one of names (the kind's actuators in
// config order). With one name nothing changes but the lock it holds; with
// several, t takes a required ActuatorArg whose schema is the enum of
// names, and each call locks only the actuator it names, so two arms move
// at once while one arm's writes serialize.
func chooseActuator(t *Tool, kind string, names []string) *Tool {
	if len(names) == 1 {
		t.Resource = names[0]
		return t
	}
	t.Input.Properties[ActuatorArg] = Enum(fmt.Sprintf("Which %s this acts on: %s.", kind, strings.Join(names, ", ")), names...)
	t.Input.Required = append([]string{ActuatorArg}, t.Input.Required...)
	t.Resource = ""
	t.ResourceOf = func(c *Call) string {
		s, _ := c.Values[ActuatorArg].(string)
		return s
	}
	return t
}

// chosen is the index in names of the actuator a call names: 0 when the
// kind has one actuator. The schema check has refused names outside the
// enum; a call that skipped it gets the same invalid_argument.
func chosen(c *Call, names []string) (int, *Error) {
	if len(names) == 1 {
		return 0, nil
	}
	s, _ := c.Values[ActuatorArg].(string)
	if i := slices.Index(names, s); i >= 0 {
		return i, nil
	}
	actual := "missing"
	if v, ok := c.Values[ActuatorArg]; ok {
		actual = describe(v)
	}
	return 0, FieldError(ActuatorArg, "one of: "+strings.Join(names, ", "), actual, "no such actuator of this kind")
}

// notOwnJoint refuses a joint that belongs to another actuator of the kind
// than the one the call names.
func notOwnJoint(field, joint, actuator string, own []string) *Error {
	return FieldError(field, "a joint of "+actuator+": "+strings.Join(own, ", "), quote(joint), "joint is not "+actuator+"'s")
}

// actuatorModel is an actuator's model as the tools know it.
type actuatorModel interface {
	*ArmModel | *GripperModel | *BaseModel
	actuatorName() string
}

func (a *ArmModel) actuatorName() string     { return a.Name }
func (g *GripperModel) actuatorName() string { return g.Name }
func (b *BaseModel) actuatorName() string    { return b.Name }

// namesOf lists the actuators' names, in order.
func namesOf[T actuatorModel](items []T) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.actuatorName()
	}
	return out
}

// pick is the actuator of items a call names (the only one when there is one).
func pick[T actuatorModel](c *Call, items []T) (T, *Error) {
	i, err := chosen(c, namesOf(items))
	if err != nil {
		var none T
		return none, err
	}
	return items[i], nil
}
