package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
)

// Previewer builds previews: it reads the robot, computes what would move
// and checks every limit; violations refuse the preview; otherwise the
// preview is stored and a signed preview_id returned. Nothing moves.
// Each kind holds any number of actuators, in config order: a kind with
// none has no tools (Tools), one with several names its actuator in an
// argument (choice.go).
type Previewer struct {
	Robot      actuators.Robot
	Store      MotionStore
	Signer     PreviewSigner
	Motions    *Motions
	Arms       []*ArmModel
	Grippers   []*GripperModel
	Bases      []*BaseModel
	TTL        time.Duration
	StaleAfter time.Duration
	SpeedScale func() float64
	Now        func() time.Time
	// LargeMotion and LongDuration trigger warnings.
	LargeMotion  float64
	LongDuration float64
	// StepCaps refuse motions that change too much at once (previews_stepcap.go).
	StepCaps StepCaps
}

// joints reads the robot's joint states by the freshness rule
// (freshJoints).
func (p *Previewer) joints(ctx context.Context) (map[string]actuators.JointReading, *Error) {
	return freshJoints(ctx, p.Robot, p.Now, p.StaleAfter)
}

// stateDigest hashes the start state the preview depends on.
func stateDigest(start map[string]float64) string {
	h := sha256.New()
	for _, k := range sortedKeys(start) {
		fmt.Fprintf(h, "%s=%.4f;", k, start[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// issue stores the preview and returns the planner-facing result, which
// names the tool as the preview's.
func (p *Previewer) issue(ctx context.Context, c *Call, actuator string, goal previewGoal, summary map[string]any) (Result, error) {
	out, err := p.store(ctx, c, actuator, goal, summary)
	if err != nil {
		return Result{}, err
	}
	return Result{Value: out, PreviewOf: c.Tool.Name}, nil
}

func (p *Previewer) store(ctx context.Context, c *Call, actuator string, goal previewGoal, summary map[string]any) (map[string]any, error) {
	if e := p.Motions.unambiguous(actuator); e != nil {
		return nil, e
	}
	goal.Start = roundMap(goal.Start)
	gb, err := json.Marshal(goal)
	if err != nil {
		return nil, Errf(CodeInternal, "goal not encodable: %v", err)
	}
	now := p.Now()
	b := previewBinding{Actuator: actuator, Tool: c.Tool.Name, ArgsDigest: Digest(c.Args), StateDigest: stateDigest(goal.Start),
		Expires: now.Add(p.TTL).Truncate(time.Second).Add(time.Second)}
	id := p.Signer.Sign(&b)
	if len(id) > maxPreviewID {
		return nil, FieldError("(arguments)", fmt.Sprintf("a preview id of at most %d bytes", maxPreviewID),
			fmt.Sprintf("%d bytes, for actuator %s", len(id), clipRunes(actuator, 80)), "the actuator's name is too long to preview")
	}
	requires := p.Motions.Confirmer(actuator)
	if rec, _ := summary["recovery"].(bool); rec {
		requires = RoleOperator // a way out of a limit is the operator's call, whatever the policy
	}
	summary["preview_id"] = id
	summary["tool"] = c.Tool.Name
	summary["actuator"] = actuator
	summary["state_digest"] = b.StateDigest
	summary["expires_at"] = b.Expires.UTC().Format(time.RFC3339)
	summary["confirm_with"] = "motion_confirm"
	summary["confirmed_by"] = string(requires)
	if w, ok := summary["warnings"].([]string); !ok || w == nil {
		summary["warnings"] = []string{}
	}
	sb, _ := json.Marshal(summary)
	if err := p.Store.PutPreview(ctx, inflight.Preview{ID: b.ID, Tool: c.Tool.Name, Actuator: actuator,
		ArgsDigest: b.ArgsDigest, Args: c.Args, Goal: gb, StateDigest: b.StateDigest, Summary: sb,
		Role: string(requires), CreatedAt: now, ExpiresAt: b.Expires}); err != nil {
		return nil, storeUnavailable(err)
	}
	delete(summary, "plot")
	delete(summary, "limit_use")
	delete(summary, "tool_plot")
	return summary, nil
}

func roundMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round6(v)
	}
	return out
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// violationJSON is a violation as a refusal's details show it to the
// planner: its time as time_s, and a point only for a link.
type violationJSON struct {
	Joint string      `json:"joint,omitempty"`
	Link  string      `json:"link,omitempty"`
	Kind  string      `json:"kind"` // position, velocity, acceleration, effort, geofence, speed_cap, step_cap, workspace, forbidden_zone, tool_speed
	Zone  string      `json:"zone,omitempty"`
	Axis  string      `json:"axis,omitempty"`
	Point *[3]float64 `json:"point,omitempty"`
	TimeS float64     `json:"time_s"`
	Value float64     `json:"value"`
	Limit float64     `json:"limit"`
}

func violationsJSON(vs []safety.Violation) []violationJSON {
	out := make([]violationJSON, len(vs))
	for i, v := range vs {
		out[i] = violationJSON{Joint: v.Joint, Link: v.Link, Kind: string(v.Kind), Zone: v.Zone, Axis: v.Axis, TimeS: v.Time, Value: v.Value, Limit: v.Limit}
		if v.Link != "" {
			p := v.Point
			out[i].Point = &p
		}
	}
	return out
}

func violationError(tool string, vs []safety.Violation) *Error {
	parts := make([]string, 0, 3)
	for i, v := range vs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-3))
			break
		}
		who := v.Joint
		if v.Link != "" {
			parts = append(parts, describeLink(v))
			continue
		}
		if who == "" {
			who = "base"
		}
		parts = append(parts, fmt.Sprintf("%s %s %.4g over limit %.4g at t=%.2fs", who, v.Kind, v.Value, v.Limit, v.Time))
	}
	e := RuleError(CodeLimitViolation, "within_limits", "", "motion would break limits: "+strings.Join(parts, "; ")+"; no preview issued, nothing moves")
	e.Retryable = false
	return e.WithDetails(map[string]any{"violations": violationsJSON(vs)}).WithHint("change the targets or make the motion slower (longer duration_s), then preview again")
}

// recoveryNote tells the planner the one way out of a joint limit.
const recoveryNote = "If a joint already stands outside its range, only a recovery is previewed: out-of-range joints move monotonically toward their range (checked along the interpolated motion), every other joint holds, no joint above the recovery speed fraction of its velocity limit; the preview says recovery: true and out_of_range [{joint, position, limit, by}], and an operator confirms it whatever the policy. Anything else is refused with limit_violation, rule recovery_only."

// recoveryError refuses a motion from out of range that is not a recovery:
// the rule is recovery_only, and the details name the joints out of range.
func recoveryError(out []safety.OutOfRange, vs []safety.Violation, hint string) *Error {
	e := violationError("", vs)
	names := make([]string, len(out))
	for i, o := range out {
		names[i] = fmt.Sprintf("%s at %.4g is %.4g past its limit %.4g", o.Joint, o.Position, o.By, o.Limit)
	}
	e.Rule = "recovery_only"
	e.Message = "out of range (" + strings.Join(names, "; ") + "): only a recovery motion is allowed; " + e.Message
	return e.WithDetails(map[string]any{"violations": violationsJSON(vs), "out_of_range": out}).WithHint(hint)
}

// Hints of a refused recovery: what the one way out looks like.
const (
	armRecoveryHint  = "move only the out-of-range joints, monotonically toward their range, hold every other joint, at no more than the recovery speed fraction of the velocity limits (arm_move_joints without duration_s picks it); an operator confirms"
	baseRecoveryHint = "use base_drive: turn in place, then drive straight toward the geofence, at no more than the recovery speed fraction of the caps, ending closer to it; an operator confirms"
)

func previewOut(extra map[string]*Schema) *Schema {
	props := map[string]*Schema{
		"preview_id":   {Type: "string", Description: "Pass to motion_confirm to run exactly this motion. Single use."},
		"tool":         {Type: "string", Description: "The tool that made the preview."},
		"actuator":     {Type: "string", Description: "arm, gripper or base."},
		"duration_s":   {Type: "number", Description: "Planned duration."},
		"warnings":     {Type: "array", Description: "Near-limit, large or long motion warnings."},
		"impact":       {Type: "object", Description: "joints_moved, actuators_touched."},
		"state_digest": {Type: "string", Description: "Digest of the robot state the preview was computed on."},
		"expires_at":   {Type: "string", Description: "RFC 3339 time after which confirm refuses the preview."},
		"confirmed_by": {Type: "string", Description: "Who must confirm: planner or operator."},
		"confirm_with": {Type: "string", Description: "Always motion_confirm."},
		"recovery":     {Type: "boolean", Description: "Present and true when the robot starts outside a limit and this motion is the way back: an operator confirms it, whatever the policy."},
		"out_of_range": {Type: "array", Description: "With recovery: [{joint, position, limit, by}], what stands outside which limit and by how much (for the base: joint is the axis x or y, limit that side of the geofence)."},
	}
	for k, v := range extra {
		props[k] = v
	}
	return &Schema{Type: "object", Open: true, Properties: props,
		Required: []string{"preview_id", "actuator", "duration_s", "warnings", "impact", "expires_at", "state_digest"}}
}

var previewErrors = []Code{CodeInvalidArgument, CodeLimitViolation, CodeNotFound, CodeEstopLatched, CodeUnavailable, CodeAmbiguousServer, CodeInternal}

func (p *Previewer) estopReady(context.Context, *Call) error {
	if latched, ev, reason := p.Motions.EStop(); latched {
		return StateError(CodeEstopLatched, fmt.Sprintf("e-stop latched (event %d: %s)", ev, reason),
			"an operator calls estop_reset for that event", "e-stop is latched: no motion can be previewed")
	}
	return nil
}

// motionReady is a motion preview's resource check: the e-stop, and a
// robot description that still matches the limits.
func (p *Previewer) motionReady(ctx context.Context, c *Call) error {
	if err := p.estopReady(ctx, c); err != nil {
		return err
	}
	if e := p.Motions.Description.Hold(); e != nil {
		return e
	}
	return nil
}

// Tools are the preview tools of the kinds the robot has: the arm tools
// with at least one arm (the pose tools with a kinematic chain), gripper_move with a gripper, the base tools with
// a base. A kind the robot lacks has no tool that could name it.
func (p *Previewer) Tools() []*Tool {
	var out []*Tool
	if len(p.Arms) > 0 {
		out = append(out, p.ArmMoveJoints(), p.ArmFollowTrajectory())
		if p.poseArms() { // Cartesian goals need an arm with a kinematic chain
			out = append(out, p.ArmMovePose(), p.ArmMoveRelative())
		}
	}
	if len(p.Grippers) > 0 {
		out = append(out, p.GripperMove())
	}
	if len(p.Bases) > 0 {
		out = append(out, p.BaseNavigate(), p.BaseDrive())
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
