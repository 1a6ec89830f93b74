package bridge

import (
	"math"

	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// StepCaps bound how much one motion may change, on top of the joint and
// base limits: a planner that wants more must split the motion and look
// at the robot in between. Zero means no cap.
type StepCaps struct {
	// MaxJointChange is the largest distance (rad, or m for prismatic
	// joints) any arm joint may be from its start at any waypoint.
	MaxJointChange float64 `json:"max_joint_change"`
	// MaxBaseTravel is the longest base trip (m): the straight line of a
	// navigation goal, the path length of a drive.
	MaxBaseTravel float64 `json:"max_base_travel"`
}

// armSteps lists the joints whose waypoints stray from the start by more
// than the cap, worst waypoint per joint.
func (c StepCaps) armSteps(joints []string, start []spline.State, points []spline.Point) []safety.Violation {
	if c.MaxJointChange <= 0 {
		return nil
	}
	var out []safety.Violation
	for i, j := range joints {
		worst, at := 0.0, 0.0
		for _, pt := range points {
			if i < len(pt.Positions) {
				if d := math.Abs(pt.Positions[i] - start[i].Pos); d > worst {
					worst, at = d, pt.Time
				}
			}
		}
		if worst > c.MaxJointChange+1e-9 {
			out = append(out, safety.Violation{Joint: j, Kind: "step_cap", Time: round6(at), Value: round6(worst), Limit: c.MaxJointChange})
		}
	}
	return out
}

// baseStep refuses a base trip longer than the cap.
func (c StepCaps) baseStep(travel float64) []safety.Violation {
	if c.MaxBaseTravel <= 0 || travel <= c.MaxBaseTravel+1e-9 {
		return nil
	}
	return []safety.Violation{{Kind: "step_cap", Value: round6(travel), Limit: c.MaxBaseTravel}}
}
