package main

import (
	"testing"

	"github.com/actbridge/actbridge/ros2/param"
)

// TestParamGetPrintsValuesAsROS2ParamGet: each parameter type prints with
// ros2 param get's label and Python's form of the value.
func TestParamGetPrintsValuesAsROS2ParamGet(t *testing.T) {
	for _, c := range []struct {
		v            any
		label, value string
	}{
		{nil, "Parameter not set.", ""},
		{true, "Boolean value is:", "True"},
		{int64(-3), "Integer value is:", "-3"},
		{1.0, "Double value is:", "1.0"},
		{0.25, "Double value is:", "0.25"},
		{1e-5, "Double value is:", "1e-05"},
		{1e16, "Double value is:", "1e+16"},
		{"base", "String value is:", "base"},
		{[]byte{1, 255}, "Byte values are:", `[b'\x01', b'\xff']`},
		{[]bool{true, false}, "Boolean values are:", "[True, False]"},
		{[]int64{1, 2}, "Integer values are:", "array('q', [1, 2])"},
		{[]float64{0.5, 2}, "Double values are:", "array('d', [0.5, 2.0])"},
		{[]string{"a", "b"}, "String values are:", "['a', 'b']"},
	} {
		label, value, err := paramText(param.Value{V: c.v})
		if err != nil || label != c.label || value != c.value {
			t.Errorf("%#v: %q %q %v, want %q %q", c.v, label, value, err, c.label, c.value)
		}
	}
	if _, _, err := paramText(param.Value{V: 3}); err == nil {
		t.Error("an int (not int64) printed")
	}
}
