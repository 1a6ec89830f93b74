package console

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
)

// mapDoc is the part of a base map's SVG the tests read.
type mapDoc struct {
	Fence struct {
		Class string  `xml:"class,attr"`
		W     float64 `xml:"width,attr"`
		H     float64 `xml:"height,attr"`
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
	} `xml:"rect"`
	Path struct {
		Class  string `xml:"class,attr"`
		Points string `xml:"points,attr"`
	} `xml:"polyline"`
	Poses []struct {
		Class string `xml:"class,attr"`
	} `xml:"polygon"`
	Texts []string `xml:"text"`
}

func parseMap(t *testing.T, svg string) mapDoc {
	t.Helper()
	var d mapDoc
	if err := xml.Unmarshal([]byte(svg), &d); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, svg)
	}
	return d
}

func previewsOf(t *testing.T, r *rig) []previewView {
	t.Helper()
	_, st := r.do(t, "GET", "/console/api/state", operatorToken, nil)
	b, _ := json.Marshal(st["previews"])
	var pvs []previewView
	if err := json.Unmarshal(b, &pvs); err != nil {
		t.Fatal(err)
	}
	return pvs
}

func TestBasePreviewsDrawTheFenceThePathAndTheClearanceToScale(t *testing.T) {
	for _, c := range []struct {
		name, tool, args string
		clearance        float64
		straight         bool
	}{
		// From (0, 0) in a ±5 m fence: the goal (3, 1) is 2 m from the x = 5 edge.
		{"navigation goal", "base_navigate", `{"x":3,"y":1,"yaw":0.5}`, 2, true},
		// 0.5 m/s for 4 s ends at (2, 0), 3 m from the fence.
		{"timed drive", "base_drive", `{"linear":0.5,"duration_s":4}`, 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, withTokens())
			id := r.plan(t, c.tool, c.args)
			pvs := previewsOf(t, r)
			if len(pvs) != 1 || pvs[0].PreviewID != id || pvs[0].Kind != "base" || pvs[0].Base == nil {
				t.Fatalf("previews: %+v", pvs)
			}
			b := pvs[0].Base
			if b.ClearanceM == nil || *b.ClearanceM != c.clearance || !strings.Contains(b.Note, "closest to the geofence: "+strconv.FormatFloat(c.clearance, 'f', 2, 64)+" m") {
				t.Fatalf("clearance %v, note %q; want %g m", b.ClearanceM, b.Note, c.clearance)
			}
			d := parseMap(t, b.MapSVG)
			if d.Fence.Class != "fence" || d.Fence.W <= 0 || math.Abs(d.Fence.W-d.Fence.H) > 0.2 {
				t.Fatalf("the square fence is not drawn square (to scale): %+v", d.Fence)
			}
			if strings.Contains(d.Path.Class, "straight") != c.straight || len(strings.Fields(d.Path.Points)) < 2 {
				t.Fatalf("path %+v", d.Path)
			}
			if len(d.Poses) != 2 || d.Poses[0].Class != "goal" || d.Poses[1].Class != "robot" {
				t.Fatalf("poses %+v", d.Poses)
			}
			if !slicesContain(d.Texts, strconv.FormatFloat(c.clearance, 'f', 2, 64)+" m") {
				t.Fatalf("the map does not label the clearance: %q", d.Texts)
			}
		})
	}
}

func slicesContain(ss []string, want string) bool {
	for _, s := range ss {
		if s == want {
			return true
		}
	}
	return false
}

func TestAPathOutsideTheFenceIsSaidToBe(t *testing.T) {
	v := previewView{Actuator: "base"}
	from, _ := json.Marshal(actuators.Pose2D{Frame: "odom", X: 6})
	to, _ := json.Marshal(actuators.Pose2D{Frame: "odom", X: 5.5})
	baseOf(&v, previewSummary{RawFrom: from, RawTo: to}, &fence{Frame: "odom", MinX: -5, MaxX: 5, MinY: -5, MaxY: 5})
	if v.Base.ClearanceM == nil || *v.Base.ClearanceM != -1 || !strings.HasPrefix(v.Base.Note, "OUTSIDE the geofence by up to 1.00 m; at the goal: -0.50 m") {
		t.Fatalf("clearance %v, note %q", v.Base.ClearanceM, v.Base.Note)
	}
	parseMap(t, v.Base.MapSVG)
}

func TestMapOfPosesFarApartIsStillDrawnAndBounded(t *testing.T) {
	for _, x := range []float64{1e4, 1e300, math.MaxFloat64} {
		m := newBaseMap(actuators.Pose2D{Frame: "odom", X: -x}, actuators.Pose2D{Frame: "odom", X: x}, [][2]float64{{-x, 0}, {x, 0}}, true,
			&fence{Frame: "odom", MinX: -5, MaxX: 5, MinY: -5, MaxY: 5})
		svg := m.svg()
		if n := strings.Count(svg, `class="grid"`); n > 34 || len(svg) > 16<<10 {
			t.Fatalf("x = %g: %d grid lines, %d bytes", x, n, len(svg))
		}
	}
}

func TestMapLeavesOutAFenceInAnotherFrame(t *testing.T) {
	f := &fence{Frame: "map", MinX: -1, MaxX: 1, MinY: -1, MaxY: 1}
	m := newBaseMap(actuators.Pose2D{Frame: "odom"}, actuators.Pose2D{Frame: "odom", X: 1}, [][2]float64{{0, 0}, {1, 0}}, true, f)
	if m.Fence != nil || strings.Contains(m.svg(), `class="fence"`) {
		t.Fatal("a fence in another frame was drawn as if it applied")
	}
}

func TestClearanceIsTheDistanceToTheNearestEdgeAndNegativeOutside(t *testing.T) {
	f := fence{MinX: -5, MaxX: 5, MinY: -2, MaxY: 2}
	for _, c := range []struct{ x, y, want float64 }{
		{0, 0, 2}, {4.5, 0, 0.5}, {0, -1.75, 0.25}, {5, 2, 0}, {6, 0, -1}, {8, 6, -5},
	} {
		if got := f.clearance(c.x, c.y); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("clearance(%g, %g) = %g, want %g", c.x, c.y, got, c.want)
		}
	}
}

func TestDriveArcIsTheUnicyclePath(t *testing.T) {
	// 1 m/s turning π/2 rad/s for 1 s: a quarter circle of radius 2/π.
	pts := arcPath(actuators.Pose2D{}, 1, math.Pi/2, 1)
	end, r := pts[len(pts)-1], 2/math.Pi
	if math.Abs(end[0]-r) > 1e-9 || math.Abs(end[1]-r) > 1e-9 {
		t.Fatalf("end %v, want (%g, %g)", end, r, r)
	}
	for _, p := range pts {
		if d := math.Hypot(p[0], p[1]-r); math.Abs(d-r) > 1e-9 {
			t.Fatalf("point %v is off the circle", p)
		}
	}
	if s := arcPath(actuators.Pose2D{Yaw: math.Pi / 2}, 0.5, 0, 2); math.Abs(s[len(s)-1][1]-1) > 1e-9 || math.Abs(s[len(s)-1][0]) > 1e-9 {
		t.Fatalf("straight drive north ends at %v", s[len(s)-1])
	}
}

func TestHistoryHoldsMotionsThatStartedAndEndedBetweenReads(t *testing.T) {
	r := newRig(t, withTokens())
	clk := &clock{t: time.Now()}
	r.console.now = clk.now
	r.do(t, "GET", "/console/api/state", operatorToken, nil) // the page is open
	id := r.plan(t, "gripper_move", `{"position":0.05}`)
	out, e := r.pipe.Call(context.Background(), "motion_confirm", json.RawMessage(`{"preview_id":"`+id+`"}`), bridge.Invocation{Role: bridge.RolePlanner, Session: "planner"})
	if e != nil {
		t.Fatal(e)
	}
	motion := out.(map[string]any)["motion_id"].(string)
	r.robot.Emit(actuators.GoalUpdate{Actuator: "gripper", GoalID: motion, State: actuators.GoalSucceeded})
	clk.tick()
	_, st := r.do(t, "GET", "/console/api/state", operatorToken, nil)
	recent, _ := st["recent"].([]any)
	if len(recent) != 1 {
		t.Fatalf("recent %v: the motion the page never saw in flight is missing", recent)
	}
	m := recent[0].(map[string]any)
	if m["motion_id"] != motion || m["state"] != "succeeded" || m["confirmed_by"] != "planner" || m["confirmed_via"] != bridge.ViaMCP {
		t.Fatalf("history row %v", m)
	}
}

func TestServicePreviewShowsTheServiceItsTypeAndRequest(t *testing.T) {
	sum, _ := json.Marshal(map[string]any{"preview_id": "p1", "service": "/simrobot/reset_odometry", "type": "std_srvs/Trigger",
		"request": map[string]any{"reason": "<b>dock</b>"}, "duration_s": 3, "confirmed_by": "planner", "warnings": []string{"the bridge cannot undo what this service does"}})
	now := time.Now()
	v := viewOf(inflight.Preview{ID: "p1", Tool: bridge.ServiceCallTool, Actuator: bridge.ServiceActuator("/simrobot/reset_odometry"),
		Summary: sum, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}, now, limits{})
	if v.Kind != "service" || v.Service == nil || v.Base != nil || len(v.Moves) != 0 {
		t.Fatalf("a service call shown as a motion: %+v", v)
	}
	if v.Service.Name != "/simrobot/reset_odometry" || v.Service.Type != "std_srvs/Trigger" || !strings.Contains(v.Service.Request, `"reason": "<b>dock</b>"`) {
		t.Fatalf("service view %+v", v.Service)
	}
}

func TestARecoveryPreviewIsMarkedAndNamesWhatIsOutOfRange(t *testing.T) {
	lo, hi := -2.0, 2.0
	lim := limits{Joints: []bridge.JointLimits{{Name: "j1", Type: "revolute", Lower: &lo, Upper: &hi}, {Name: "slide", Type: "prismatic"}}}
	for _, tc := range []struct {
		name, actuator, tool string
		summary              map[string]any
		want                 []outOfView // nil: not a recovery
	}{
		{"arm out of range", "arm", "arm_move_joints", map[string]any{"recovery": true,
			"joints":       []map[string]any{{"joint": "j1", "from": 2.3, "to": 1.9, "delta": -0.4}, {"joint": "slide", "from": 0.6, "to": 0.5, "delta": -0.1}},
			"out_of_range": []safety.OutOfRange{{Joint: "j1", Position: 2.3, Limit: 2, By: 0.3}, {Joint: "slide", Position: 0.6, Limit: 0.5, By: 0.1}}},
			[]outOfView{{"j1", "2.300 rad", "2.000 rad", "0.300 rad"}, {"slide", "0.600 m", "0.500 m", "0.100 m"}}},
		{"base outside the fence", "base", "base_drive", map[string]any{"recovery": true, "linear": 0.05, "duration_s": 10,
			"from": map[string]any{"x": 6.0, "y": 0.0}, "end_pose": map[string]any{"x": 5.5, "y": 0.0},
			"out_of_range": []safety.OutOfRange{{Joint: "x", Position: 6, Limit: 5, By: 1}}},
			[]outOfView{{"x", "6.000 m", "5.000 m", "1.000 m"}}},
		{"ordinary arm motion", "arm", "arm_move_joints", map[string]any{
			"joints": []map[string]any{{"joint": "j1", "from": 0.0, "to": 0.5, "delta": 0.5}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.summary["preview_id"], tc.summary["confirmed_by"] = "p1", "operator"
			sum, _ := json.Marshal(tc.summary)
			now := time.Now()
			v := viewOf(inflight.Preview{ID: "p1", Tool: tc.tool, Actuator: tc.actuator, Summary: sum, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}, now, lim)
			if v.Recovery != (tc.want != nil) || !slices.Equal(v.OutOfRange, tc.want) {
				t.Fatalf("recovery %v, out of range %+v; want %+v", v.Recovery, v.OutOfRange, tc.want)
			}
			b, _ := json.Marshal(v)
			if strings.Contains(string(b), `"recovery"`) != (tc.want != nil) {
				t.Fatalf("the page's JSON: %s", b)
			}
		})
	}
}

// A base preview of a map-fenced robot is drawn in map with the poses
// the bridge carried there, and the fence is measured there: odom's
// origin at map (2,0) turned π/2, a goal given in odom (1,0) is map
// (2,1) and one given in map (2,1.4) stays there (not carried twice); a
// drive's arc is carried by the same transform.
func TestABasePreviewIsDrawnInTheFencesFrameThroughItsTransform(t *testing.T) {
	f := &fence{Frame: "map", MinX: -3, MaxX: 3, MinY: -1.5, MaxY: 1.5}
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	frames := func(odomTo, mapTo map[string]float64, key string) map[string]json.RawMessage {
		return map[string]json.RawMessage{
			"odom":      raw(map[string]any{"from": map[string]float64{}, key: odomTo}),
			"map":       raw(map[string]any{"from": map[string]float64{"x": 2}, key: mapTo}),
			"transform": raw(map[string]float64{"x": 2, "y": 0, "yaw": math.Pi / 2, "age_s": 0.1}),
		}
	}
	for _, c := range []struct {
		name string
		sum  previewSummary
		want float64 // clearance, m
	}{
		{"goal given in odom", previewSummary{RawFrom: raw(actuators.Pose2D{Frame: "odom"}), RawTo: raw(actuators.Pose2D{Frame: "odom", X: 1}),
			Frames: frames(map[string]float64{"x": 1}, map[string]float64{"x": 2, "y": 1}, "to")}, 0.5},
		{"goal given in map", previewSummary{RawFrom: raw(actuators.Pose2D{Frame: "odom"}), RawTo: raw(actuators.Pose2D{Frame: "map", X: 2, Y: 1.4}),
			Frames: frames(map[string]float64{"x": 1.4}, map[string]float64{"x": 2, "y": 1.4}, "to")}, 0.1},
		{"drive", previewSummary{RawFrom: raw(actuators.Pose2D{Frame: "odom"}), EndPose: &actuators.Pose2D{Frame: "odom", X: 1}, Linear: 0.5, DurationS: 2,
			Frames: frames(map[string]float64{"x": 1}, map[string]float64{"x": 2, "y": 1}, "end_pose")}, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := previewView{Actuator: "base"}
			baseOf(&v, c.sum, f)
			if v.Base.ClearanceM == nil || math.Abs(*v.Base.ClearanceM-c.want) > 1e-9 {
				t.Fatalf("clearance %v, note %q; want %g m, measured in map", v.Base.ClearanceM, v.Base.Note, c.want)
			}
			if !strings.Contains(v.Base.MapSVG, `class="fence"`) {
				t.Fatal("the fence was not drawn")
			}
			parseMap(t, v.Base.MapSVG)
		})
	}
}
