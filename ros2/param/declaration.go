package param

import (
	"fmt"
	"math"

	"github.com/actbridge/actbridge/cdr"
)

// Declaration is a parameter a Server serves, as rclcpp's
// declare_parameter takes it: a name, an initial value and a descriptor.
// Unless DynamicTyping, the initial value's type is the only one the
// parameter takes.
type Declaration struct {
	Name                               string
	Value                              Value
	Description, AdditionalConstraints string
	ReadOnly, DynamicTyping            bool
	// IntegerRange and FloatRange, when set, bound an integer or a double
	// value (ends included; a non-zero step: only from + k·step).
	IntegerRange *IntegerRange
	FloatRange   *FloatRange
}

// IntegerRange is rcl_interfaces/IntegerRange.
type IntegerRange struct {
	From, To int64
	Step     uint64
}

// FloatRange is rcl_interfaces/FloatingPointRange.
type FloatRange struct{ From, To, Step float64 }

// typeNames are rclcpp::to_string of each ParameterType, as its refusals
// name them.
var typeNames = [...]string{"not set", "bool", "integer", "double", "string",
	"byte_array", "bool_array", "integer_array", "double_array", "string_array"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// check is what rclcpp says of setting d to v, "" when it may: the
// declared type (unless dynamically typed), then the range.
func (d *Declaration) check(v Value) string {
	want, _ := d.Value.Type()
	got, err := v.Type()
	if err != nil {
		return err.Error()
	}
	if !d.DynamicTyping && got != want {
		return fmt.Sprintf("Wrong parameter type, parameter {%s} is of type {%s}, setting it to {%s} is not allowed.", d.Name, want, got)
	}
	switch x := v.V.(type) {
	case int64:
		if r := d.IntegerRange; r != nil && !r.holds(x) {
			return fmt.Sprintf("Parameter {%s} doesn't comply with integer range.", d.Name)
		}
	case float64:
		if r := d.FloatRange; r != nil && !r.holds(x) {
			return fmt.Sprintf("Parameter {%s} doesn't comply with floating point range.", d.Name)
		}
	}
	return ""
}

func (r *IntegerRange) holds(v int64) bool {
	if v == r.From || v == r.To {
		return true
	}
	if v < r.From || v > r.To {
		return false
	}
	return r.Step == 0 || uint64(v-r.From)%r.Step == 0
}

func (r *FloatRange) holds(v float64) bool {
	if nearly(v, r.From) || nearly(v, r.To) {
		return true
	}
	if v < r.From || v > r.To {
		return false
	}
	return r.Step == 0 || nearly(v, r.From+math.Round((v-r.From)/r.Step)*r.Step)
}

// nearly is rclcpp's __are_doubles_equal: within 100 ulps of the scale.
func nearly(x, y float64) bool {
	const epsilon = 2.220446049250313e-16
	return math.Abs(x-y) <= epsilon*math.Abs(x+y)*100
}

// descriptorMessage is d as a rcl_interfaces/ParameterDescriptor of s;
// fields a distro lacks are left out.
func (d *Declaration) descriptorMessage(s *cdr.Struct) *cdr.Message {
	m := cdr.Zero(s)
	t, _ := d.Value.Type()
	m.Set("name", d.Name)
	m.Set("type", uint8(t))
	m.Set("description", d.Description)
	m.Set("additional_constraints", d.AdditionalConstraints)
	m.Set("read_only", d.ReadOnly)
	m.Set("dynamic_typing", d.DynamicTyping)
	if r := d.IntegerRange; r != nil {
		m.Set("integer_range", rangeMessages(s, "integer_range", r.From, r.To, r.Step))
	}
	if r := d.FloatRange; r != nil {
		m.Set("floating_point_range", rangeMessages(s, "floating_point_range", r.From, r.To, r.Step))
	}
	return m
}

// rangeMessages is the one-element range sequence field of s.
func rangeMessages(s *cdr.Struct, field string, from, to, step any) []*cdr.Message {
	ranges := cdr.MakeSlice(s.Field(s.FieldIndex(field)).Type, 1).([]*cdr.Message)
	ranges[0].Set("from_value", from)
	ranges[0].Set("to_value", to)
	ranges[0].Set("step", step)
	return ranges
}
