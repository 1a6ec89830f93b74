package param

import (
	"errors"
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

func TestEveryParameterTypeSurvivesTheWire(t *testing.T) {
	set, err := msgs.Load(msgs.Humble)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := set.Struct("rcl_interfaces/msg/ParameterValue")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    any
		want Type
	}{
		{nil, NotSet}, {true, Bool}, {int64(-3), Integer}, {2.5, Double}, {"s", String},
		{[]byte{1}, ByteArray}, {[]bool{true}, BoolArray}, {[]int64{4}, IntegerArray},
		{[]float64{0.5}, DoubleArray}, {[]string{"x"}, StringArray},
	} {
		m, err := Value{tc.v}.message(pv)
		if err != nil {
			t.Fatalf("%T: %v", tc.v, err)
		}
		b, err := cdr.Encode(m, cdr.LittleEndian)
		if err != nil {
			t.Fatalf("%T: %v", tc.v, err)
		}
		back, err := cdr.Decode(pv, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := valueOf(back)
		if err != nil || !reflect.DeepEqual(got.V, tc.v) || back.Get("type") != uint8(tc.want) {
			t.Errorf("%T %v came back as %T %v (type %v), %v", tc.v, tc.v, got.V, got.V, back.Get("type"), err)
		}
	}
	for _, bad := range []any{int32(1), float32(1), []int{1}, struct{}{}} {
		if _, err := (Value{bad}).message(pv); !errors.Is(err, ErrValueType) {
			t.Errorf("%T: %v, want ErrValueType", bad, err)
		}
	}
	m := cdr.Zero(pv)
	m.Set("type", uint8(42))
	if _, err := valueOf(m); !errors.Is(err, ErrValueType) {
		t.Errorf("type 42: %v", err)
	}
}
