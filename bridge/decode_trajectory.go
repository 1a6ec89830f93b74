package bridge

import (
	"encoding/json"
	"strconv"
)

// trajectoryInput is arm_follow_trajectory's arguments.
type trajectoryInput struct {
	Joints []string
	Points []trajectoryWaypoint
}

// trajectoryWaypoint is one waypoint as given; an array not given is nil,
// one given empty is empty (the length check tells them apart).
type trajectoryWaypoint struct {
	Positions, Velocities, Accelerations []float64
	Time                                 float64
}

// trajectoryInputOf reads arm_follow_trajectory's arguments from the
// schema-checked values rather than decoding 200 KB of JSON a second time.
// Each number is parsed from its literal, as json.Unmarshal would.
func trajectoryInputOf(values map[string]any) (trajectoryInput, *Error) {
	var in trajectoryInput
	joints, _ := values["joints"].([]any)
	points, _ := values["points"].([]any)
	in.Joints = make([]string, len(joints))
	for i, j := range joints {
		s, ok := j.(string)
		if !ok {
			return in, undecodable("joints[" + strconv.Itoa(i) + "]")
		}
		in.Joints[i] = s
	}
	// One backing array for every waypoint's numbers.
	n := 0
	for _, pt := range points {
		m, _ := pt.(map[string]any)
		for _, k := range waypointArrays {
			a, _ := m[k].([]any)
			n += len(a)
		}
	}
	floats := make([]float64, 0, n)
	in.Points = make([]trajectoryWaypoint, len(points))
	for i, pt := range points {
		m, ok := pt.(map[string]any)
		if !ok {
			return in, undecodable(pointField(i, ""))
		}
		w := &in.Points[i]
		for k, dst := range []*[]float64{&w.Positions, &w.Velocities, &w.Accelerations} {
			v, given := m[waypointArrays[k]]
			if !given {
				continue
			}
			a, ok := v.([]any)
			if !ok {
				return in, undecodable(pointField(i, waypointArrays[k]))
			}
			start := len(floats)
			for _, x := range a {
				num, err := jsonFloat(x)
				if err != nil {
					return in, undecodable(pointField(i, waypointArrays[k]))
				}
				floats = append(floats, num)
			}
			*dst = floats[start:len(floats):len(floats)]
		}
		t, err := jsonFloat(m["time_from_start"])
		if err != nil {
			return in, undecodable(pointField(i, "time_from_start"))
		}
		w.Time = t
	}
	return in, nil
}

var waypointArrays = [...]string{"positions", "velocities", "accelerations"}

// jsonFloat parses a decoded JSON number to float64.
func jsonFloat(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(string(n), 64)
}

func pointField(i int, name string) string {
	f := "points[" + strconv.Itoa(i) + "]"
	if name != "" {
		f += "." + name
	}
	return f
}

// undecodable is Call.Decode's refusal, for values the schema should have
// refused already.
func undecodable(field string) *Error {
	return FieldError("(arguments)", "arguments matching the schema", "no number or string at "+field, "arguments could not be decoded")
}
