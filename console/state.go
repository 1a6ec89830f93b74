package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
)

const (
	// snapshotMaxAge bounds how often the robot is read however many pages
	// poll: viewers within this window share one read.
	snapshotMaxAge = 500 * time.Millisecond
	// recentMax is how many motions the page keeps after they end.
	recentMax = 8
	// eventPages bounds the motion events one read catches up on.
	eventPages = 5
)

// inFlightStates are the motion states the page lists as in flight.
var inFlightStates = []string{"dispatching", "sent", "active", "unknown"}

// snapshot is one read of the robot through the pipeline's read tools
// (robot_describe, joints_read, motions_list, motion_status) and of the
// store's pending previews.
type snapshot struct {
	at       time.Time
	Robot    json.RawMessage   `json:"robot,omitempty"`
	Joints   json.RawMessage   `json:"joints,omitempty"`
	InFlight []json.RawMessage `json:"motions"`
	Recent   []json.RawMessage `json:"recent"`
	Previews []previewView     `json:"previews"`
	Errors   []string          `json:"errors,omitempty"`
}

// recentMotion is a motion the console saw in flight or started; final is
// its last motion_status once terminal.
type recentMotion struct {
	id    string
	final json.RawMessage
}

// stateView is what GET /console/api/state returns.
type stateView struct {
	Now  time.Time `json:"now"`
	Auth struct {
		Mode string `json:"mode"`
		Role string `json:"role"`
	} `json:"auth"`
	*snapshot
}

func (c *Console) serveState(w http.ResponseWriter, r *http.Request) {
	who, ok := c.authorized(w, r, false)
	if !ok {
		return
	}
	v := stateView{Now: c.now().UTC(), snapshot: c.read(r.Context())}
	v.Auth.Mode, v.Auth.Role = who.mode, string(who.role)
	writeJSON(w, http.StatusOK, v)
}

// invalidate makes the next read fresh (after an action).
func (c *Console) invalidate() {
	c.mu.Lock()
	c.cache = nil
	c.mu.Unlock()
}

// remember adds a motion to the recent list, newest first.
func (c *Console) remember(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rememberLocked(id)
}

func (c *Console) rememberLocked(id string) {
	if id == "" || slices.ContainsFunc(c.recent, func(m recentMotion) bool { return m.id == id }) {
		return
	}
	c.recent = append([]recentMotion{{id: id}}, c.recent...)
	if len(c.recent) > recentMax {
		c.recent = c.recent[:recentMax]
	}
}

// read returns a snapshot at most snapshotMaxAge old, reading anew if needed.
func (c *Console) read(ctx context.Context) *snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.cache != nil && !now.Before(c.cache.at) && now.Sub(c.cache.at) < snapshotMaxAge {
		return c.cache
	}
	s := &snapshot{at: now, InFlight: []json.RawMessage{}, Recent: []json.RawMessage{}, Previews: []previewView{}}
	s.Robot = c.readTool(ctx, s, "robot_describe", map[string]any{})
	s.Joints = c.readTool(ctx, s, "joints_read", map[string]any{})
	c.followMotions(ctx, s)
	flying := map[string]bool{}
	for _, st := range inFlightStates {
		var page struct {
			Items []json.RawMessage `json:"items"`
		}
		if raw := c.readTool(ctx, s, "motions_list", map[string]any{"state": st, "limit": 100}); raw != nil {
			_ = json.Unmarshal(raw, &page)
		}
		for _, it := range page.Items {
			s.InFlight = append(s.InFlight, it)
			id := motionID(it)
			flying[id] = true
			c.rememberLocked(id)
		}
	}
	for i, m := range c.recent {
		if m.final != nil || flying[m.id] {
			continue
		}
		// No longer in flight: read its end once and keep it.
		if raw := c.readTool(ctx, s, "motion_status", map[string]any{"motion_id": m.id}); raw != nil {
			var st struct {
				Terminal bool `json:"terminal"`
			}
			if json.Unmarshal(raw, &st) == nil && st.Terminal {
				c.recent[i].final = raw
			}
		}
	}
	for _, m := range c.recent {
		if m.final != nil {
			s.Recent = append(s.Recent, m.final)
		}
	}
	s.Previews = c.pendingViews(now, s)
	c.cache = s
	return s
}

// followMotions remembers every motion that changed state since the last
// read, from the bridge's motion events (events_read), so the history
// holds motions that started and ended between two reads too.
func (c *Console) followMotions(ctx context.Context, s *snapshot) {
	if _, ok := c.pipeline.Registry.Lookup("events_read"); !ok {
		return
	}
	for range eventPages {
		var page struct {
			Items []struct {
				Subject string `json:"subject"`
			} `json:"items"`
			NextCursor string `json:"next_cursor"`
			More       bool   `json:"more"`
		}
		args := map[string]any{"kinds": []string{bridge.EventMotion}, "limit": 200}
		if c.eventCursor != "" {
			args["cursor"] = c.eventCursor
		}
		raw := c.readTool(ctx, s, "events_read", args)
		if raw == nil || json.Unmarshal(raw, &page) != nil {
			return
		}
		for _, ev := range page.Items { // oldest first: the newest ends up first
			c.rememberLocked(ev.Subject)
		}
		c.eventCursor = page.NextCursor
		if !page.More {
			return
		}
	}
}

// readTool runs a read tool through the pipeline; a failure is noted on
// the page instead of failing the whole state.
func (c *Console) readTool(ctx context.Context, s *snapshot, tool string, args map[string]any) json.RawMessage {
	raw, _ := json.Marshal(args)
	out, e := c.pipeline.Call(ctx, tool, raw, bridge.Invocation{Role: bridge.RoleOperator, Session: Session})
	if e != nil {
		s.Errors = append(s.Errors, tool+": "+e.Message)
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		s.Errors = append(s.Errors, tool+": "+err.Error())
		return nil
	}
	return b
}

func motionID(raw json.RawMessage) string {
	var m struct {
		ID string `json:"motion_id"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.ID
}

// previewView is one pending preview as the page shows it.
type previewView struct {
	PreviewID   string     `json:"preview_id"`
	Tool        string     `json:"tool"`
	Actuator    string     `json:"actuator"`
	ConfirmedBy string     `json:"confirmed_by"`
	CreatedAt   time.Time  `json:"created_at"`
	ExpiresAt   time.Time  `json:"expires_at"`
	ExpiresInS  float64    `json:"expires_in_s"`
	DurationS   float64    `json:"duration_s"`
	Warnings    []string   `json:"warnings"`
	Moves       []moveView `json:"moves"`
	Holds       []string   `json:"holds"` // joints that keep their position
	Detail      string     `json:"detail,omitempty"`
	// Recovery marks a way back from outside a limit; OutOfRange says
	// what stands outside which limit and by how much.
	Recovery   bool        `json:"recovery,omitempty"`
	OutOfRange []outOfView `json:"out_of_range,omitempty"`
	// Kind is what the page draws: joints (arm, gripper), base or service.
	Kind    string       `json:"kind"`
	Base    *baseView    `json:"base,omitempty"`
	Service *serviceView `json:"service,omitempty"`
	// WorkspaceSVG draws an arm's tool path and workspace limits, side
	// and top view, to scale.
	WorkspaceSVG string `json:"workspace_svg,omitempty"`
}

// baseView is a base preview's map.
type baseView struct {
	MapSVG string `json:"map_svg"`
	// ClearanceM is the closest the path comes to the geofence, m
	// (negative: outside); nil when the fence is unknown or in another frame.
	ClearanceM *float64 `json:"fence_clearance_m,omitempty"`
	Note       string   `json:"note"`
}

// serviceView is what an irreversible service call would send.
type serviceView struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Request string `json:"request"` // indented JSON
}

// outOfView is one joint (or base axis) outside its limit, with units.
type outOfView struct {
	Joint    string `json:"joint"`
	Position string `json:"position"`
	Limit    string `json:"limit"`
	By       string `json:"by"`
}

// moveView is what one joint (or the base) would do.
type moveView struct {
	Name    string   `json:"name"`
	From    string   `json:"from"`
	To      string   `json:"to"`
	Delta   string   `json:"delta,omitempty"`
	Percent *float64 `json:"percent_of_velocity_limit,omitempty"`
	PlotSVG string   `json:"plot_svg,omitempty"`
	// LimitUse says how much of each limit the move uses, as
	// "position 40% · velocity 75% of limit".
	LimitUse string `json:"limit_use,omitempty"`
}

// previewSummary is the part of a stored preview summary the page reads.
type previewSummary struct {
	PreviewID   string                     `json:"preview_id"`
	ConfirmedBy string                     `json:"confirmed_by"`
	DurationS   float64                    `json:"duration_s"`
	Warnings    []string                   `json:"warnings"`
	Joints      []bridge.JointImpact       `json:"joints"`
	Plot        map[string][][2]float64    `json:"plot"`
	RawFrom     json.RawMessage            `json:"from"`
	RawTo       json.RawMessage            `json:"to"`
	EndPose     *actuators.Pose2D          `json:"end_pose"`
	Linear      float64                    `json:"linear"`
	Angular     float64                    `json:"angular"`
	LimitUse    map[string]bridge.LimitUse `json:"limit_use"`
	Service     string                     `json:"service"`
	Type        string                     `json:"type"`
	Request     json.RawMessage            `json:"request"`
	Recovery    bool                       `json:"recovery"`
	OutOfRange  []safety.OutOfRange        `json:"out_of_range"`
	ToolPlot    *bridge.ToolPlot           `json:"tool_plot"`
	// Frames is a base preview's poses in both frames by the frames'
	// names, and "transform", odometry→fence (bridge's baseFrames.show).
	Frames map[string]json.RawMessage `json:"frames"`
}

// framePoses are a base preview's poses in one frame.
type framePoses struct {
	From    *actuators.Pose2D `json:"from"`
	To      *actuators.Pose2D `json:"to"`
	EndPose *actuators.Pose2D `json:"end_pose"`
}

// inFence is the preview's start and end in frame, as the bridge carried
// them there, and the odometry→frame transform; false when the preview
// has not both.
func (s previewSummary) inFence(frame string) (from, to actuators.Pose2D, tr [3]float64, ok bool) {
	var ps framePoses
	var t *struct{ X, Y, Yaw float64 }
	if json.Unmarshal(s.Frames[frame], &ps) != nil || json.Unmarshal(s.Frames["transform"], &t) != nil || t == nil || ps.From == nil {
		return from, to, tr, false
	}
	end := ps.To
	if end == nil {
		end = ps.EndPose
	}
	if end == nil {
		return from, to, tr, false
	}
	from, to = *ps.From, *end
	from.Frame, to.Frame = frame, frame
	return from, to, [3]float64{t.X, t.Y, t.Yaw}, true
}

// limits is what robot_describe says about joint ranges.
type limits struct {
	Joints  []bridge.JointLimits `json:"joints"`
	Gripper struct {
		Joint string  `json:"joint"`
		Min   float64 `json:"min"`
		Max   float64 `json:"max"`
	} `json:"gripper"`
	Base struct {
		Geofence *fence `json:"geofence"`
	} `json:"base"`
}

// rangeOf returns a joint's position limits and unit.
func (l limits) rangeOf(joint string) (lo, hi *float64, unit string) {
	if joint != "" && joint == l.Gripper.Joint {
		return &l.Gripper.Min, &l.Gripper.Max, "m"
	}
	for _, j := range l.Joints {
		if j.Name == joint {
			unit = "rad"
			if j.Type == "prismatic" {
				unit = "m"
			}
			return j.Lower, j.Upper, unit
		}
	}
	return nil, nil, "rad"
}

func (c *Console) pendingViews(now time.Time, s *snapshot) []previewView {
	out := []previewView{}
	if c.previews == nil {
		s.Errors = append(s.Errors, "previews: the motion store is unavailable")
		return out
	}
	pvs, err := c.previews.PendingPreviews(now)
	if err != nil {
		s.Errors = append(s.Errors, "previews: "+err.Error())
		return out
	}
	var lim limits
	_ = json.Unmarshal(s.Robot, &lim)
	for _, p := range pvs {
		out = append(out, viewOf(p, now, lim))
	}
	return out
}

// viewOf turns a stored preview into what the page shows: per joint from,
// to, a plot with limits and the share of each limit used; for the base, a
// map; for a service call, the request.
func viewOf(p inflight.Preview, now time.Time, lim limits) previewView {
	var sum previewSummary
	_ = json.Unmarshal(p.Summary, &sum)
	v := previewView{PreviewID: sum.PreviewID, Tool: p.Tool, Actuator: p.Actuator, ConfirmedBy: sum.ConfirmedBy,
		CreatedAt: p.CreatedAt.UTC(), ExpiresAt: p.ExpiresAt.UTC(), DurationS: sum.DurationS,
		Warnings: sum.Warnings, Moves: []moveView{}, Holds: []string{}, Kind: "joints"}
	if v.Warnings == nil {
		v.Warnings = []string{}
	}
	v.ExpiresInS = math.Max(0, math.Round(p.ExpiresAt.Sub(now).Seconds()*10)/10)
	switch {
	case p.Tool == bridge.ServiceCallTool:
		v.Kind = "service"
		v.Service = &serviceView{Name: sum.Service, Type: sum.Type, Request: indented(sum.Request)}
		v.Detail = fmt.Sprintf("sends this request once; waits up to %.1f s for the answer", sum.DurationS)
	case len(sum.Joints) == 0:
		v.Kind = "base"
		baseOf(&v, sum, lim.Base.Geofence)
	default:
		jointsOf(&v, sum, lim)
		if sum.ToolPlot != nil {
			v.WorkspaceSVG = workspaceSVG(*sum.ToolPlot)
		}
	}
	if sum.Recovery {
		recoveryOf(&v, sum, lim)
	}
	return v
}

// recoveryOf marks a recovery and lists what is out of range, in the
// joint's unit (metres for the base's x and y).
func recoveryOf(v *previewView, sum previewSummary, lim limits) {
	v.Recovery = true
	for _, o := range sum.OutOfRange {
		_, _, unit := lim.rangeOf(o.Joint)
		if v.Kind == "base" {
			unit = "m"
		}
		f := func(x float64) string { return fmt.Sprintf("%.3f %s", x, unit) }
		v.OutOfRange = append(v.OutOfRange, outOfView{Joint: o.Joint, Position: f(o.Position), Limit: f(o.Limit), By: f(o.By)})
	}
}

// indented is raw JSON indented for reading, as written (no HTML escapes:
// the page sets it as text).
func indented(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as sent, not rounded through float64
	if dec.Decode(&v) != nil {
		return "{}"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// jointsOf adds a line and a plot per moving joint, and the held joints.
func jointsOf(v *previewView, sum previewSummary, lim limits) {
	for _, j := range sum.Joints {
		if math.Abs(j.Delta) <= 1e-6 {
			v.Holds = append(v.Holds, j.Joint)
			continue
		}
		lo, hi, unit := lim.rangeOf(j.Joint)
		pct := j.PercentOfLimit
		mv := moveView{Name: j.Joint, From: fmt.Sprintf("%.3f %s", j.From, unit), To: fmt.Sprintf("%.3f %s", j.To, unit),
			Delta: fmt.Sprintf("%+.3f %s", j.Delta, unit), Percent: &pct, LimitUse: limitUseText(sum.LimitUse[j.Joint])}
		samples := sum.Plot[j.Joint]
		if len(samples) == 0 { // gripper: a straight move over the duration
			samples = [][2]float64{{0, j.From}, {math.Max(sum.DurationS, 0.1), j.To}}
		}
		mv.PlotSVG = plotSVG(j.Joint, unit, samples, lo, hi)
		v.Moves = append(v.Moves, mv)
	}
}

// limitUseText is "position 40% · velocity 75% · acceleration 20% of
// limit", naming only the limits the joint has.
func limitUseText(u bridge.LimitUse) string {
	var parts []string
	for _, l := range []struct {
		name string
		v    *float64
	}{{"position", u.Position}, {"velocity", u.Velocity}, {"acceleration", u.Acceleration}} {
		if l.v != nil {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", l.name, *l.v))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " · ") + " of limit"
}

// baseOf adds the poses and the map of a navigation goal or a drive.
func baseOf(v *previewView, sum previewSummary, f *fence) {
	var from, to actuators.Pose2D
	_ = json.Unmarshal(sum.RawFrom, &from)
	var path [][2]float64
	straight := sum.EndPose == nil
	if straight {
		_ = json.Unmarshal(sum.RawTo, &to)
		path = [][2]float64{{from.X, from.Y}, {to.X, to.Y}}
		v.Detail = fmt.Sprintf("navigate %.2f m in a straight line; the planner on the robot picks the route", math.Hypot(to.X-from.X, to.Y-from.Y))
	} else {
		to = *sum.EndPose
		path = arcPath(from, sum.Linear, sum.Angular, sum.DurationS)
		v.Detail = fmt.Sprintf("drive at %.2f m/s, %.2f rad/s for %.1f s", sum.Linear, sum.Angular, sum.DurationS)
	}
	v.Moves = append(v.Moves, moveView{Name: v.Actuator, From: pose(from), To: pose(to)})
	if f != nil && cleanFrame(f.Frame) != cleanFrame(from.Frame) {
		// The fence was checked in its own frame: draw the poses the
		// bridge carried there (a goal given in the fence's frame is
		// already there), and a drive's arc by the same transform.
		if fromF, toF, tr, ok := sum.inFence(cleanFrame(f.Frame)); ok {
			if straight {
				path = [][2]float64{{fromF.X, fromF.Y}, {toF.X, toF.Y}}
			} else {
				path = inFramePath(path, tr[0], tr[1], tr[2])
			}
			from, to = fromF, toF
		}
	}
	m := newBaseMap(from, to, path, straight, f)
	bv := &baseView{MapSVG: m.svg()}
	switch {
	case m.Fence != nil:
		c := math.Round(m.Clearance*100) / 100
		bv.ClearanceM = &c
		bv.Note = fmt.Sprintf("closest to the geofence: %.2f m; at the goal: %.2f m", c, m.Fence.clearance(to.X, to.Y))
		if c < 0 {
			bv.Note = fmt.Sprintf("OUTSIDE the geofence by up to %.2f m; at the goal: %.2f m", -c, m.Fence.clearance(to.X, to.Y))
		}
	case f != nil:
		bv.Note = fmt.Sprintf("the geofence is in frame %s, the poses in %s: not drawn", f.Frame, from.Frame)
	default:
		bv.Note = "no geofence known: not drawn"
	}
	v.Base = bv
}

func pose(p actuators.Pose2D) string {
	s := fmt.Sprintf("x %.2f m, y %.2f m, yaw %.2f rad", p.X, p.Y, p.Yaw)
	if p.Frame != "" {
		s += " (" + strings.TrimPrefix(p.Frame, "/") + ")"
	}
	return s
}
