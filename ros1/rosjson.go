package ros1

import (
	"math"
	"reflect"
	"time"
	"unicode"

	"github.com/bluenviron/goroslib/v2/pkg/msg"
)

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
	packageType  = reflect.TypeOf(msg.Package(0))
	nameType     = reflect.TypeOf(msg.Name(0))
	defsType     = reflect.TypeOf(msg.Definitions(0))
)

// rosJSON turns a goroslib message into JSON-ready values with the ROS
// field names (goroslib's own CamelCase → snake_case rule, or a rosname
// tag). Times and durations become seconds; NaN and ±Inf become nil, which
// encoding/json cannot write otherwise; uint8[] stays []byte (base64, as
// rosbridge does).
func rosJSON(v any) any { return toJSON(reflect.ValueOf(v)) }

func toJSON(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return toJSON(v.Elem())
	}
	switch v.Type() {
	case timeType:
		t := v.Interface().(time.Time)
		if t.IsZero() {
			return 0.0
		}
		return float64(t.UnixNano()) / 1e9
	case durationType:
		return time.Duration(v.Int()).Seconds()
	}
	switch v.Kind() {
	case reflect.Struct:
		out := map[string]any{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && (f.Type == packageType || f.Type == nameType || f.Type == defsType) {
				continue
			}
			if !f.IsExported() {
				continue
			}
			name := f.Tag.Get("rosname")
			if name == "" {
				name = camelToSnake(f.Name)
			}
			out[name] = toJSON(v.Field(i))
		}
		return out
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toJSON(v.Index(i))
		}
		return out
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	}
	return v.Interface()
}

// camelToSnake is goroslib's field naming: every upper-case letter starts
// a new lower-case word ("GoalId" → "goal_id", "FrameId" → "frame_id").
func camelToSnake(in string) string {
	out := make([]rune, 0, len(in)+4)
	for i, r := range in {
		if unicode.IsUpper(r) {
			if i > 0 {
				out = append(out, '_')
			}
			r = unicode.ToLower(r)
		}
		out = append(out, r)
	}
	return string(out)
}
