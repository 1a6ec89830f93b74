package config

import (
	"fmt"
	"math"
	"regexp"

	"github.com/actbridge/actbridge/actuators"
)

// Workspace is an arm's Cartesian limits, in its base_link frame, metres:
// a box the tool link's origin stays in, boxes given links must not enter,
// and a cap on the tool's speed. Every key is optional; the block must set
// at least one.
type Workspace struct {
	Box          *WorkspaceBox   `yaml:"box"`
	Forbidden    []ForbiddenZone `yaml:"forbidden"`
	ToolSpeedMax float64         `yaml:"tool_speed_max"` // m/s; 0: no cap
}

// WorkspaceBox is an axis-aligned box: min and max are [x, y, z].
type WorkspaceBox struct {
	Min []float64 `yaml:"min"`
	Max []float64 `yaml:"max"`
}

// ForbiddenZone is a box (a table, a wall, a fixture) that the origins of
// Links must not enter; no links means every link the arm moves.
type ForbiddenZone struct {
	Name  string    `yaml:"name"`
	Min   []float64 `yaml:"min"`
	Max   []float64 `yaml:"max"`
	Links []string  `yaml:"links"`
}

// Bounds on workspace config: a robot's cell, not a building.
const (
	maxWorkspaceCoord = 100 // m from the base link
	maxToolSpeed      = 10  // m/s
	maxForbidden      = 32  // boxes per arm
	maxZoneLinks      = 64  // links per box
)

var (
	zoneNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	linkNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]{0,127}$`)
)

// validateArmChain checks base_link, tool_link and workspace: only an arm
// has them, and their values are well formed (that the links exist is
// checked against the URDF when the model is built).
func (a *ActuatorConfig) validateArmChain(f func(string) string) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, f(field), fmt.Sprintf(format, args...))
	}
	if a.Kind != actuators.KindArm {
		for _, s := range []struct {
			name string
			on   bool
		}{{"base_link", a.BaseLink != ""}, {"tool_link", a.ToolLink != ""}, {"workspace", a.Workspace != nil}} {
			if s.on {
				return bad(s.name, "only an arm has %s", s.name)
			}
		}
		return nil
	}
	for _, l := range []struct{ name, v string }{{"base_link", a.BaseLink}, {"tool_link", a.ToolLink}} {
		if l.v != "" && !linkNameRE.MatchString(l.v) {
			return bad(l.name, "%q is not a URDF link name", l.v)
		}
	}
	w := a.Workspace
	if w == nil {
		return nil
	}
	if w.Box == nil && len(w.Forbidden) == 0 && w.ToolSpeedMax == 0 {
		return bad("workspace", "sets no limit; give box, forbidden or tool_speed_max, or drop the block")
	}
	if w.Box != nil {
		if err := checkBox(w.Box.Min, w.Box.Max); err != nil {
			return bad("workspace.box", "%v", err)
		}
	}
	if w.ToolSpeedMax != 0 && !(w.ToolSpeedMax > 0 && w.ToolSpeedMax <= maxToolSpeed) {
		return bad("workspace.tool_speed_max", "%v must be in (0, %d] m/s", w.ToolSpeedMax, maxToolSpeed)
	}
	if len(w.Forbidden) > maxForbidden {
		return bad("workspace.forbidden", "%d boxes, at most %d", len(w.Forbidden), maxForbidden)
	}
	names := map[string]int{}
	for i, z := range w.Forbidden {
		zf := fmt.Sprintf("workspace.forbidden[%d]", i)
		if !zoneNameRE.MatchString(z.Name) {
			return bad(zf+".name", "%q must match %s", z.Name, zoneNameRE)
		}
		if p, dup := names[z.Name]; dup {
			return bad(zf+".name", "%q is already the name of workspace.forbidden[%d]", z.Name, p)
		}
		names[z.Name] = i
		if err := checkBox(z.Min, z.Max); err != nil {
			return bad(zf, "%v", err)
		}
		if len(z.Links) > maxZoneLinks {
			return bad(zf+".links", "%d links, at most %d", len(z.Links), maxZoneLinks)
		}
		for k, l := range z.Links {
			if !linkNameRE.MatchString(l) {
				return bad(fmt.Sprintf("%s.links[%d]", zf, k), "%q is not a URDF link name", l)
			}
		}
	}
	return nil
}

// checkBox wants min and max of three finite coordinates, min below max on
// every axis.
func checkBox(lo, hi []float64) error {
	if len(lo) != 3 || len(hi) != 3 {
		return fmt.Errorf("min and max must each be [x, y, z], got %d and %d numbers", len(lo), len(hi))
	}
	for a, axis := range []string{"x", "y", "z"} {
		for _, v := range []float64{lo[a], hi[a]} {
			if !(math.Abs(v) <= maxWorkspaceCoord) {
				return fmt.Errorf("%s %v must be a number within ±%d m", axis, v, maxWorkspaceCoord)
			}
		}
		if !(lo[a] < hi[a]) {
			return fmt.Errorf("min %s %v must be below max %s %v", axis, lo[a], axis, hi[a])
		}
	}
	return nil
}
