package bridge

import (
	"fmt"
	"slices"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// ToolPose is an arm's tool link pose in its base link frame: position in
// metres, orientation a unit quaternion (x, y, z, w).
type ToolPose struct {
	Actuator    string     `json:"actuator,omitempty"`
	Link        string     `json:"link,omitempty"`
	Frame       string     `json:"frame,omitempty"`
	Position    [3]float64 `json:"position"`
	Orientation [4]float64 `json:"orientation"`
}

// toolPathSchema describes an arm preview's tool_path.
var toolPathSchema = &Schema{Type: "object", Description: "The tool link's path in the arm's base link frame (metres, m/s, quaternions x, y, z, w): start and end pose, distance_m travelled, lowest and highest point {point, time_s}, peak_speed {m_s, point, time_s}. Absent for an arm without a kinematic model."}

// Kinematic is an ArmGuard that knows the arm's kinematic chain: the tool
// pose for joints_read and robot_describe, the chain and its workspace
// limits for robot_describe.
type Kinematic interface {
	// ToolPose is the tool's pose at the given joint positions; false
	// when a joint of the chain is missing.
	ToolPose(positions func(joint string) (float64, bool)) (ToolPose, bool)
	// DescribeWorkspace is the chain's ends and the workspace limits.
	DescribeWorkspace() map[string]any
}

// ToolPose computes the tool pose with the arm's chain.
func (s SafetyArm) ToolPose(positions func(joint string) (float64, bool)) (ToolPose, bool) {
	w := s.Opts.Workspace
	if w == nil {
		return ToolPose{}, false
	}
	c := w.Chain()
	joints := c.Joints()
	q := make([]float64, len(joints))
	for i, j := range joints {
		v, ok := positions(j)
		if !ok {
			return ToolPose{}, false
		}
		q[i] = v
	}
	d := c.NewData()
	if err := c.FK(d, q); err != nil {
		return ToolPose{}, false
	}
	p := posePoint(d.ToolPose())
	p.Link, p.Frame = c.Tool(), c.Base()
	return p, true
}

// DescribeWorkspace reports base_link, tool_link and the workspace limits.
func (s SafetyArm) DescribeWorkspace() map[string]any {
	w := s.Opts.Workspace
	if w == nil {
		return nil
	}
	c, lim := w.Chain(), w.Limits()
	// The config's shape: box {min, max}, forbidden [{name, min, max, links}].
	forbidden := make([]map[string]any, len(lim.Forbidden))
	for i, z := range lim.Forbidden {
		forbidden[i] = map[string]any{"name": z.Name, "min": z.Box.Min, "max": z.Box.Max, "links": z.Links}
	}
	ws := map[string]any{"forbidden": forbidden, "tool_speed_max": lim.ToolSpeedMax, "resolution_m": safety.WorkspaceResolution}
	if lim.Box != nil {
		ws["box"] = lim.Box
	}
	return map[string]any{"base_link": c.Base(), "tool_link": c.Tool(), "workspace": ws}
}

// toolPoses is every arm's tool pose at the snapshot's positions, for the
// arms with a kinematic model and every chain joint in the snapshot.
func toolPoses(arms []*ArmModel, snap []actuators.JointReading) []ToolPose {
	var out []ToolPose
	for _, a := range arms {
		k, ok := a.Guard.(Kinematic)
		if !ok {
			continue
		}
		p, ok := k.ToolPose(func(j string) (float64, bool) {
			i := slices.IndexFunc(snap, func(r actuators.JointReading) bool { return r.Name == j })
			if i < 0 {
				return 0, false
			}
			return snap[i].Position, true
		})
		if ok {
			p.Actuator = a.Name
			out = append(out, p)
		}
	}
	return out
}

func posePoint(p kinematics.Pose) ToolPose {
	return ToolPose{Position: round6v(p.Position), Orientation: [4]float64{round6(p.Orientation[0]), round6(p.Orientation[1]), round6(p.Orientation[2]), round6(p.Orientation[3])}}
}

func round6v(v [3]float64) [3]float64 { return [3]float64{round6(v[0]), round6(v[1]), round6(v[2])} }

// describeLink is a workspace violation for a refusal's message: the link,
// the point, the face or cap crossed, and the time.
func describeLink(v safety.Violation) string {
	p := v.Point
	at := fmt.Sprintf("at (%.3f, %.3f, %.3f) m, t=%.2fs", p[0], p[1], p[2], v.Time)
	switch v.Kind {
	case safety.KindForbidden:
		return fmt.Sprintf("link %s inside forbidden box %s (%s %.4g, face at %.4g) %s", v.Link, v.Zone, v.Axis, v.Value, v.Limit, at)
	case safety.KindWorkspace:
		return fmt.Sprintf("link %s outside the workspace box (%s %.4g beyond %.4g) %s", v.Link, v.Axis, v.Value, v.Limit, at)
	}
	return fmt.Sprintf("link %s %s %.4g m/s over cap %.4g m/s %s", v.Link, v.Kind, v.Value, v.Limit, at)
}

// ToolPlot is what the console draws of an arm preview, to scale: the
// tool's path (a few samples) and the workspace limits, in the arm's base
// link frame.
type ToolPlot struct {
	Frame     string        `json:"frame"`
	Link      string        `json:"link"`
	Path      [][3]float64  `json:"path"`
	Box       *safety.Box   `json:"box,omitempty"`
	Forbidden []safety.Zone `json:"forbidden,omitempty"`
}

// toolPlotter fills a ToolPlot from joint states in the checked order.
type toolPlotter struct {
	plot  *ToolPlot
	chain *kinematics.Chain
	d     *kinematics.Data
	order []int // chain joint → index in the states
	q     []float64
}

func (s SafetyArm) newToolPlot(joints []string) *toolPlotter {
	w := s.Opts.Workspace
	if w == nil {
		return &toolPlotter{}
	}
	c, lim := w.Chain(), w.Limits()
	tp := &toolPlotter{plot: &ToolPlot{Frame: c.Base(), Link: c.Tool(), Box: lim.Box, Forbidden: lim.Forbidden},
		chain: c, d: c.NewData(), q: make([]float64, len(c.Joints()))}
	for _, j := range c.Joints() {
		i := slices.Index(joints, j)
		if i < 0 {
			return &toolPlotter{}
		}
		tp.order = append(tp.order, i)
	}
	return tp
}

func (tp *toolPlotter) add(st []spline.State) {
	if tp.plot == nil {
		return
	}
	for k, i := range tp.order {
		tp.q[k] = st[i].Pos
	}
	if tp.chain.FK(tp.d, tp.q) == nil {
		tp.plot.Path = append(tp.plot.Path, round6v(tp.d.Position(len(tp.chain.Links())-1)))
	}
}
