package bridge

import (
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/spline"
)

// previewGoal is the exact goal a preview will publish, kept in the store
// so confirm sends what was shown and nothing else: the actuator's goal as
// it goes on the wire (actuators.Goal), or a service_call request.
type previewGoal struct {
	Goal    actuators.Goal
	Service *serviceGoal // servicecall.go
	// Start is the robot state the preview was computed from; confirm
	// compares the live state with it.
	Start map[string]float64
	// FrameLink is, for an arm pose given in a frame TF places, that
	// frame in the arm's base link as the preview read it; confirm reads
	// it again (restate.go).
	FrameLink *frameLink
}

// frameLink is a frame's pose in an arm's base link, as TF gave it, and
// the goal as given in that frame: its position, and whether its
// orientation was the frame's too (else it is the tool's own, in the base
// link, which the frame does not turn).
type frameLink struct {
	Frame       string     `json:"frame"`
	Base        string     `json:"base"`
	Translation [3]float64 `json:"translation"`
	Rotation    [4]float64 `json:"rotation"`
	Position    [3]float64 `json:"position"`
	Oriented    bool       `json:"oriented,omitempty"`
}

// goalRecord is previewGoal's layout in the store, as records of earlier
// builds hold it: one member per goal variant.
type goalRecord struct {
	Trajectory *struct {
		Joints []string       `json:"joints"`
		Points []spline.Point `json:"points"`
	} `json:"trajectory,omitempty"`
	Gripper *struct {
		Position  float64 `json:"position"`
		MaxEffort float64 `json:"max_effort"`
	} `json:"gripper,omitempty"`
	Navigate *actuators.Pose2D `json:"navigate,omitempty"`
	Drive    *struct {
		Linear    float64 `json:"linear"`
		Angular   float64 `json:"angular"`
		DurationS float64 `json:"duration_s"`
	} `json:"drive,omitempty"`
	Service   *serviceGoal       `json:"service,omitempty"`
	Start     map[string]float64 `json:"start"`
	FrameLink *frameLink         `json:"frame_link,omitempty"`
}

var errGoalVariant = errors.New("stored goal: unknown goal variant")

// MarshalJSON writes the goal in the store's layout (goalRecord).
func (g previewGoal) MarshalJSON() ([]byte, error) {
	r := goalRecord{Service: g.Service, Start: g.Start, FrameLink: g.FrameLink}
	switch x := g.Goal.(type) {
	case nil:
	case actuators.Trajectory:
		r.Trajectory = &struct {
			Joints []string       `json:"joints"`
			Points []spline.Point `json:"points"`
		}{x.Joints, x.Points}
	case actuators.GripperCommand:
		r.Gripper = &struct {
			Position  float64 `json:"position"`
			MaxEffort float64 `json:"max_effort"`
		}{x.Position, x.MaxEffort}
	case actuators.Navigate:
		t := x.Target
		r.Navigate = &t
	case actuators.Drive:
		r.Drive = &struct {
			Linear    float64 `json:"linear"`
			Angular   float64 `json:"angular"`
			DurationS float64 `json:"duration_s"`
		}{x.Linear, x.Angular, x.Duration.Seconds()}
	default:
		return nil, errGoalVariant
	}
	return json.Marshal(r)
}

// UnmarshalJSON reads the store's layout back into the goal it names.
func (g *previewGoal) UnmarshalJSON(b []byte) error {
	var r goalRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	*g = previewGoal{Service: r.Service, Start: r.Start, FrameLink: r.FrameLink}
	switch {
	case r.Trajectory != nil:
		g.Goal = actuators.Trajectory{Joints: r.Trajectory.Joints, Points: r.Trajectory.Points}
	case r.Gripper != nil:
		g.Goal = actuators.GripperCommand{Position: r.Gripper.Position, MaxEffort: r.Gripper.MaxEffort}
	case r.Navigate != nil:
		g.Goal = actuators.Navigate{Target: *r.Navigate}
	case r.Drive != nil:
		g.Goal = actuators.Drive{Linear: r.Drive.Linear, Angular: r.Drive.Angular,
			Duration: time.Duration(math.Round(r.Drive.DurationS * float64(time.Second)))}
	}
	return nil
}
