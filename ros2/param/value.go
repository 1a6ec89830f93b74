package param

import (
	"fmt"

	"github.com/actbridge/actbridge/cdr"
)

// Type is rcl_interfaces/ParameterType: which field of a ParameterValue
// holds the value.
type Type uint8

// The parameter types (rcl_interfaces/msg/ParameterType, the same in
// every distro this module knows).
const (
	NotSet Type = iota
	Bool
	Integer
	Double
	String
	ByteArray
	BoolArray
	IntegerArray
	DoubleArray
	StringArray
)

// fields are the ParameterValue field of each type.
var fields = [...]string{"", "bool_value", "integer_value", "double_value", "string_value",
	"byte_array_value", "bool_array_value", "integer_array_value", "double_array_value", "string_array_value"}

// Value is a parameter value in Go form: nil (not set), bool, int64,
// float64, string, []byte, []bool, []int64, []float64 or []string.
type Value struct{ V any }

// Type is the ROS 2 type of v, or an error for a Go type that has none.
func (v Value) Type() (Type, error) {
	switch v.V.(type) {
	case nil:
		return NotSet, nil
	case bool:
		return Bool, nil
	case int64:
		return Integer, nil
	case float64:
		return Double, nil
	case string:
		return String, nil
	case []byte:
		return ByteArray, nil
	case []bool:
		return BoolArray, nil
	case []int64:
		return IntegerArray, nil
	case []float64:
		return DoubleArray, nil
	case []string:
		return StringArray, nil
	}
	return 0, fmt.Errorf("%w: Go %T", ErrValueType, v.V)
}

// message returns v as a rcl_interfaces/ParameterValue of struct s.
func (v Value) message(s *cdr.Struct) (*cdr.Message, error) {
	t, err := v.Type()
	if err != nil {
		return nil, err
	}
	m := cdr.Zero(s)
	m.Set("type", uint8(t))
	if t != NotSet {
		if err := m.Set(fields[t], v.V); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// valueOf reads a rcl_interfaces/ParameterValue.
func valueOf(m *cdr.Message) (Value, error) {
	t, _ := m.Get("type").(uint8)
	if int(t) >= len(fields) {
		return Value{}, fmt.Errorf("%w: type %d", ErrValueType, t)
	}
	if Type(t) == NotSet {
		return Value{}, nil
	}
	return Value{V: m.Get(fields[t])}, nil
}

// Parameter is a named value (rcl_interfaces/Parameter).
type Parameter struct {
	Name  string
	Value Value
}

func parameterOf(m *cdr.Message) (Parameter, error) {
	name, _ := m.Get("name").(string)
	vm, _ := m.Get("value").(*cdr.Message)
	if vm == nil {
		return Parameter{}, fmt.Errorf("%w: parameter %q has no value", ErrValueType, name)
	}
	v, err := valueOf(vm)
	return Parameter{Name: name, Value: v}, err
}

func parametersOf(v any) ([]Parameter, error) {
	ms, _ := v.([]*cdr.Message)
	out := make([]Parameter, 0, len(ms))
	for _, m := range ms {
		p, err := parameterOf(m)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
