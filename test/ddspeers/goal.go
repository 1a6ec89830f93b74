package ddspeers

import (
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// RestGoal is a FollowJointTrajectory goal the node peers' action-server
// accepts: one point at zero for joints j1 and j2, at rest (what
// action-client sends by default).
func RestGoal(set *msgs.Set) (*cdr.Message, error) {
	g, err := set.Message("control_msgs/action/FollowJointTrajectory_Goal")
	if err != nil {
		return nil, err
	}
	tr := g.Get("trajectory").(*cdr.Message)
	tr.Set("joint_names", []string{"j1", "j2"})
	ptT := tr.Type.Field(tr.Type.FieldIndex("points")).Type
	pts := cdr.MakeSlice(ptT, 1).([]*cdr.Message)
	pts[0].Set("positions", []float64{0, 0})
	tr.Set("points", pts)
	return g, nil
}

// SampleOf is a pub peer's stdin line for a typ message of set with the
// fields given set and the others zero.
func SampleOf(set *msgs.Set, typ string, fields map[string]any) (string, error) {
	s, err := set.Struct(typ)
	if err != nil {
		return "", err
	}
	m := cdr.Zero(s)
	for k, v := range fields {
		m.Set(k, v)
	}
	return SampleLine(m)
}
