package bridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/inflight"
)

func preview(t *testing.T, r *rig, tool, args string) string {
	t.Helper()
	out, e := r.call(t, RolePlanner, tool, args)
	if e != nil {
		t.Fatalf("%s preview: %+v", tool, e)
	}
	id, _ := out["preview_id"].(string)
	if id == "" {
		t.Fatalf("no preview_id in %v", out)
	}
	return id
}

func TestPreviewMovesNothingAndConfirmSendsExactlyOnce(t *testing.T) {
	r := newRig(t)
	out, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":1}}`)
	if e != nil {
		t.Fatal(e)
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("a preview reached the robot")
	}
	joints := out["joints"].([]any)
	j1 := joints[0].(map[string]any)
	if j1["joint"] != "j1" || j1["from"] != 0.0 || j1["to"] != 1.0 || j1["delta"] != 1.0 {
		t.Fatalf("preview joint line: %v", j1)
	}
	if out["duration_s"].(float64) < 1.87 || out["impact"].(map[string]any)["joints_moved"] != 1.0 {
		t.Fatalf("preview: %v", out)
	}
	id := out["preview_id"].(string)
	c1, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	if c1["state"] != "sent" || r.robot.GoalsSent() != 1 {
		t.Fatalf("confirm: %v sent %d", c1, r.robot.GoalsSent())
	}
	fresh := r.robot.FreshReads()
	if fresh != 2 {
		t.Errorf("%d fresh joint reads, want 2: the preview and the check before the send start from the wire, not the cache", fresh)
	}
	c2, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	if c2["motion_id"] != c1["motion_id"] || c2["replay"] != true || r.robot.GoalsSent() != 1 {
		t.Fatalf("second confirm resent: %v, sent %d", c2, r.robot.GoalsSent())
	}
}

func TestConcurrentIdenticalConfirmsPublishOneGoal(t *testing.T) {
	r := newRig(t)
	r.p.LockWait = 20 * time.Second
	id := preview(t, r, "arm_move_joints", `{"positions":{"j2":-0.5}}`)
	var wg sync.WaitGroup
	ids := make(chan string, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
			if e != nil {
				t.Error(e)
				return
			}
			ids <- out["motion_id"].(string)
		}()
	}
	wg.Wait()
	close(ids)
	first := ""
	for m := range ids {
		if first == "" {
			first = m
		}
		if m != first {
			t.Fatalf("two motion ids: %s %s", first, m)
		}
	}
	if r.robot.GoalsSent() != 1 {
		t.Fatalf("%d goals on the wire", r.robot.GoalsSent())
	}
}

func TestRefusalsReachNothing(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, r *rig) (tool, args string)
		code  Code
	}{
		{"over position limit (schema range)", func(*testing.T, *rig) (string, string) {
			return "arm_move_joints", `{"positions":{"j1":2.5}}`
		}, CodeInvalidArgument},
		{"unknown joint", func(*testing.T, *rig) (string, string) {
			return "arm_move_joints", `{"positions":{"elbow":1}}`
		}, CodeInvalidArgument},
		{"over velocity limit", func(*testing.T, *rig) (string, string) {
			return "arm_move_joints", `{"positions":{"j1":1.5},"duration_s":0.5}`
		}, CodeLimitViolation},
		{"trajectory through a position limit", func(*testing.T, *rig) (string, string) {
			return "arm_follow_trajectory", `{"joints":["j1"],"points":[{"positions":[1.9],"time_from_start":3},{"positions":[2.6],"time_from_start":6}]}`
		}, CodeLimitViolation},
		{"duplicate joint", func(*testing.T, *rig) (string, string) {
			return "arm_follow_trajectory", `{"joints":["j1","j1"],"points":[{"positions":[1,1],"time_from_start":3}]}`
		}, CodeInvalidArgument},
		{"geofence", func(*testing.T, *rig) (string, string) { return "base_navigate", `{"x":9,"y":0}` }, CodeLimitViolation},
		{"speed cap", func(*testing.T, *rig) (string, string) {
			return "base_drive", `{"linear":0.9,"duration_s":1}`
		}, CodeLimitViolation},
		{"stale preview", func(t *testing.T, r *rig) (string, string) {
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			r.robot.SetJoint("j1", 0.2)
			return "motion_confirm", `{"preview_id":"` + id + `"}`
		}, CodeStalePreview},
		{"expired", func(t *testing.T, r *rig) (string, string) {
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			r.advance(2 * time.Minute)
			return "motion_confirm", `{"preview_id":"` + id + `"}`
		}, CodePreviewExpired},
		{"forged", func(*testing.T, *rig) (string, string) {
			return "motion_confirm", `{"preview_id":"pv2.8a1c2f4e-1111-4222-8333-944455556666.9999999999.YXJt.AAAAAAAAAAAAAAAAAAAAAAAA"}`
		}, CodeInvalidArgument},
		{"altered", func(t *testing.T, r *rig) (string, string) {
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			b := []byte(id)
			b[len(b)-2] ^= 1
			return "motion_confirm", `{"preview_id":"` + string(b) + `"}`
		}, CodeInvalidArgument},
		{"expiry altered", func(t *testing.T, r *rig) (string, string) {
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			parts := strings.Split(id, ".")
			parts[2] = "9999999999"
			return "motion_confirm", `{"preview_id":"` + strings.Join(parts, ".") + `"}`
		}, CodeInvalidArgument},
		{"e-stop latched at confirm", func(t *testing.T, r *rig) (string, string) {
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			r.estop.Latch("test")
			return "motion_confirm", `{"preview_id":"` + id + `"}`
		}, CodeEstopLatched},
		{"e-stop latched at preview", func(t *testing.T, r *rig) (string, string) {
			r.estop.Latch("test")
			return "gripper_move", `{"position":0.05}`
		}, CodeEstopLatched},
		{"operator-only with planner", func(t *testing.T, r *rig) (string, string) {
			r.operator = true
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			return "motion_confirm", `{"preview_id":"` + id + `"}`
		}, CodePermissionDenied},
		{"actuator offline", func(t *testing.T, r *rig) (string, string) {
			id := preview(t, r, "gripper_move", `{"position":0.05}`)
			r.robot.SetConnected(false)
			return "motion_confirm", `{"preview_id":"` + id + `"}`
		}, CodeUnavailable},
		{"estop_reset by planner", func(t *testing.T, r *rig) (string, string) {
			r.estop.Latch("x")
			return "estop_reset", `{"event":1}`
		}, CodePermissionDenied},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			tool, args := c.setup(t, r)
			_, e := r.call(t, RolePlanner, tool, args)
			if e == nil || e.Code != c.code {
				t.Fatalf("got %+v, want %s", e, c.code)
			}
			if e.Message == "" {
				t.Fatal("empty message")
			}
			if r.robot.GoalsSent() != 0 {
				t.Fatalf("%d goals reached the robot", r.robot.GoalsSent())
			}
		})
	}
}

func TestLimitViolationListsEveryViolationWithJointTimeValueLimit(t *testing.T) {
	r := newRig(t)
	_, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":1.5,"j2":-1.5},"duration_s":0.5}`)
	if e == nil || e.Code != CodeLimitViolation || e.Retryable {
		t.Fatalf("%+v", e)
	}
	vs := e.Details.(map[string]any)["violations"].([]violationJSON)
	if len(vs) != 2 || vs[0].Joint == vs[1].Joint || vs[0].Kind != "velocity" || vs[0].Limit != 1 || vs[0].Value <= 1 || vs[0].TimeS <= 0 {
		t.Fatalf("%+v", vs)
	}
}

func TestBusyActuatorRefusesSecondMotionUntilTheFirstEnds(t *testing.T) {
	r := newRig(t)
	a := preview(t, r, "gripper_move", `{"position":0.05}`)
	b := preview(t, r, "gripper_move", `{"position":0.06}`)
	m1, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+a+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	_, e = r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+b+`"}`)
	if e == nil || e.Code != CodeBusy || !strings.Contains(e.State, m1["motion_id"].(string)) || e.Release == "" {
		t.Fatalf("%+v", e)
	}
	r.robot.Emit(actuators.GoalUpdate{Actuator: "gripper", GoalID: m1["motion_id"].(string), State: actuators.GoalSucceeded})
	if _, e = r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+b+`"}`); e != nil {
		t.Fatal(e)
	}
	if r.robot.GoalsSent() != 2 {
		t.Fatalf("sent %d", r.robot.GoalsSent())
	}
}

func TestMotionStatusWaitsForTheNextStateAndReportsTerminal(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "base_navigate", `{"x":1,"y":1}`)
	c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	mid := c["motion_id"].(string)
	go func() {
		time.Sleep(50 * time.Millisecond)
		r.robot.Emit(actuators.GoalUpdate{Actuator: "base", GoalID: mid, State: actuators.GoalActive})
		time.Sleep(50 * time.Millisecond)
		r.robot.Emit(actuators.GoalUpdate{Actuator: "base", GoalID: mid, State: actuators.GoalSucceeded, Result: map[string]any{}})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, e := r.call(t, RolePlanner, "motion_status", `{"motion_id":"`+mid+`","wait_s":5}`)
		if e != nil {
			t.Fatal(e)
		}
		if s["state"] == "succeeded" {
			if s["terminal"] != true || s["progress"] != 1.0 {
				t.Fatalf("%v", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never succeeded: %v", s)
		}
	}
}

// TestOnlyAFailedMotionCarriesAnError: the text a robot sends on the way
// ("driving …") is a note, not an error; a motion that succeeds has no
// error, and one that aborts says why.
func TestOnlyAFailedMotionCarriesAnError(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		args  string
		end   actuators.GoalState
		state string
		err   any
	}{
		{`{"linear":0.1,"angular":0,"duration_s":1}`, actuators.GoalSucceeded, "succeeded", nil},
		{`{"linear":0.2,"angular":0,"duration_s":1}`, actuators.GoalAborted, "aborted", "controller fault"},
	} {
		c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+preview(t, r, "base_drive", tc.args)+`"}`)
		if e != nil {
			t.Fatal(e)
		}
		mid := c["motion_id"].(string)
		r.robot.Emit(actuators.GoalUpdate{Actuator: "base", GoalID: mid, State: actuators.GoalActive, Text: "driving linear=0.1 m/s"})
		text := ""
		if tc.end == actuators.GoalAborted {
			text = "controller fault"
		}
		r.robot.Emit(actuators.GoalUpdate{Actuator: "base", GoalID: mid, State: tc.end, Text: text})
		s, e := r.call(t, RolePlanner, "motion_status", `{"motion_id":"`+mid+`","wait_s":5}`)
		if e != nil {
			t.Fatal(e)
		}
		if s["state"] != tc.state || s["error"] != tc.err {
			t.Fatalf("%s: state %v error %v, want %s and %v", tc.args, s["state"], s["error"], tc.state, tc.err)
		}
	}
}

func TestRobotStopLatchesAndOnlyTheOperatorResetsTheCurrentEvent(t *testing.T) {
	r := newRig(t)
	s, e := r.call(t, RolePlanner, "robot_stop", `{"reason":"person nearby"}`)
	if e != nil || s["estop_event"] != 1.0 || r.robot.Stops() != 1 {
		t.Fatalf("%v %+v", s, e)
	}
	if s, e := r.call(t, RolePlanner, "robot_stop", `{"reason":"person nearby"}`); e != nil || s["estop_event"] != 1.0 {
		t.Fatalf("a retried stop: %v %+v", s, e)
	}
	if _, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":0.5}}`); e == nil || e.Code != CodeEstopLatched {
		t.Fatalf("%+v", e)
	}
	if _, e := r.call(t, RoleOperator, "estop_reset", `{"event":7}`); e == nil || e.Code != CodeInvalidArgument {
		t.Fatalf("reset of another event: %+v", e)
	}
	if out, e := r.call(t, RoleOperator, "estop_reset", `{"event":1}`); e != nil || out["latched"] != false {
		t.Fatalf("%v %+v", out, e)
	}
	preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
}

func TestOperatorApprovalRunsTheExactPreview(t *testing.T) {
	r := newRig(t)
	r.operator = true
	a := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	if out, e := r.call(t, RoleOperator, "motion_confirm", `{"preview_id":"`+a+`"}`); e != nil || out["state"] != "sent" {
		t.Fatalf("%v %+v", out, e)
	}
}

func TestMotionRecordNamesWhoConfirmedAndHow(t *testing.T) {
	for _, c := range []struct {
		name      string
		inv       Invocation
		role, via string
	}{
		{"planner over MCP", Invocation{Role: RolePlanner, Session: "s"}, "planner", ViaMCP},
		{"operator over MCP", Invocation{Role: RoleOperator, Session: "s"}, "operator", ViaMCP},
		{"operator at the console", Invocation{Role: RoleOperator, Session: "console", Via: ViaConsole}, "operator", ViaConsole},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.operator = c.role == "operator" // policy: the arm is confirmed by whoever this case names
			id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
			out, e := r.p.Call(context.Background(), "motion_confirm", json.RawMessage(`{"preview_id":"`+id+`"}`), c.inv)
			if e != nil {
				t.Fatal(e)
			}
			res := out.(map[string]any)
			mo, err := r.store.Get(res["motion_id"].(string))
			if err != nil || mo.Role != c.role || mo.Via != c.via || res["confirmed_by"] != c.role || res["confirmed_via"] != c.via {
				t.Fatalf("record %q via %q (%v), answer %v via %v; want %s via %s", mo.Role, mo.Via, err, res["confirmed_by"], res["confirmed_via"], c.role, c.via)
			}
		})
	}
}

func TestDriveStopsWhenThePlannerSessionEnds(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "base_drive", `{"linear":0.2,"duration_s":5}`)
	c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	r.m.SessionEnded("s")
	if cs := r.robot.Cancels(); len(cs) != 1 || cs[0] != c["motion_id"] {
		t.Fatalf("cancels %v", cs)
	}
}

// A drive confirmed in a session that has already ended (a confirm racing
// the session's end) has no deadman left: it is not started.
func TestDriveOfAnEndedSessionIsNotStarted(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "base_drive", `{"linear":0.2,"duration_s":5}`)
	r.m.SessionEnded("s")
	c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e == nil || e.Code != CodeUnavailable || r.robot.GoalsSent() != 0 {
		t.Fatalf("confirm after the session ended: %v %v, drives started %d", c, e, r.robot.GoalsSent())
	}
}

func TestRestartReattachesToInFlightMotionsWithoutResending(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	c, _ := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	robot2 := newFakeRobot()
	m2 := &Motions{Robot: robot2, Store: r.store, Signer: r.m.Signer, Now: r.clock, Confirmer: r.m.Confirmer, EStop: r.estop.State, StaleAfter: r.m.StaleAfter, StartTolerance: r.m.StartTolerance, PoseTolerance: r.m.PoseTolerance}
	if err := m2.Start(); err != nil {
		t.Fatal(err)
	}
	if len(robot2.Tracked()) != 1 || robot2.Tracked()[0] != c["motion_id"] || robot2.GoalsSent() != 0 {
		t.Fatalf("tracked %v sent %d", robot2.Tracked(), robot2.GoalsSent())
	}
	robot2.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: c["motion_id"].(string), State: actuators.GoalLost})
	mo, _ := r.store.Get(c["motion_id"].(string))
	if mo.State != "unknown" {
		t.Fatalf("state %s", mo.State)
	}
}

func TestRobotAnswerBeforeSentIsRecordedNotDropped(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "gripper_move", `{"position":0.021}`)
	// The fake robot reports success from inside the send, before Confirm
	// has recorded "sent", as a fast real robot can.
	r.robot.OnSend(func(goalID string) {
		r.robot.Emit(actuators.GoalUpdate{Actuator: "gripper", GoalID: goalID, State: actuators.GoalActive})
		r.robot.Emit(actuators.GoalUpdate{Actuator: "gripper", GoalID: goalID, State: actuators.GoalSucceeded})
	})
	c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	s, _ := r.call(t, RolePlanner, "motion_status", `{"motion_id":"`+c["motion_id"].(string)+`"}`)
	if s["state"] != "succeeded" {
		t.Fatalf("terminal update lost: %v (confirm said %v)", s, c)
	}
}

// countingGets counts the previews the motion tools read from the store.
type countingGets struct {
	MotionStore
	mu   sync.Mutex
	gets int
}

func (c *countingGets) GetPreview(id string) (inflight.Preview, error) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.MotionStore.GetPreview(id)
}

// TestConfirmLocksByThePreviewsActuatorWithoutReadingItTwice: the lock of
// a confirm is chosen from the actuator its preview id names, so the store
// is read once, by Confirm, under the lock; the id's actuator is bound by
// its MAC, so an id naming another actuator is refused.
func TestConfirmLocksByThePreviewsActuatorWithoutReadingItTwice(t *testing.T) {
	r := newRig(t)
	counted := &countingGets{MotionStore: r.store}
	r.m.Store = counted
	confirm, _ := r.p.Registry.Lookup("motion_confirm")
	for _, c := range []struct{ tool, args, actuator string }{
		{"arm_move_joints", `{"positions":{"j1":1}}`, "arm"},
		{"gripper_move", `{"position":0.04}`, "gripper"},
	} {
		id := preview(t, r, c.tool, c.args)
		call := &Call{Values: map[string]any{"preview_id": id}}
		call.Bound = confirm.Bind(call)
		if got := confirm.ResourceOf(call); got != c.actuator {
			t.Errorf("%s: confirm locks %q, want %q", c.tool, got, c.actuator)
		}
		counted.gets = 0
		if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e != nil {
			t.Fatal(e)
		}
		if counted.gets != 1 {
			t.Errorf("%s: a confirm read its preview %d times, want 1", c.tool, counted.gets)
		}
	}
	// The same id with another actuator put in: the MAC no longer holds.
	id := preview(t, r, "base_navigate", `{"x":1,"y":0,"yaw":0}`)
	parts := strings.Split(id, ".")
	parts[3] = base64.RawURLEncoding.EncodeToString([]byte("gripper"))
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+strings.Join(parts, ".")+`"}`); e == nil || e.Code != CodeInvalidArgument {
		t.Fatalf("an id naming another actuator: %+v, want invalid_argument", e)
	}
	if r.robot.GoalsSent() != 2 {
		t.Fatalf("%d goals sent, want 2", r.robot.GoalsSent())
	}
}

type changeAfterRead struct {
	MotionStore
	armed  atomic.Bool
	change func()
}

func (c *changeAfterRead) Get(id string) (inflight.Motion, error) {
	mo, err := c.MotionStore.Get(id)
	if c.armed.CompareAndSwap(true, false) {
		c.change()
	}
	return mo, err
}

// TestStatusWaitSeesAChangeRightAfterItsRead: a motion that ends between
// motion_status's read and its wait wakes the wait at once. It used to be
// missed, and the call waited out its whole wait_s (a navigate round trip
// of the bench once took 5 s).
func TestStatusWaitSeesAChangeRightAfterItsRead(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "gripper_move", `{"position":0.04}`)
	c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	mid := c["motion_id"].(string)
	store := &changeAfterRead{MotionStore: r.m.Store}
	store.change = func() {
		r.m.onUpdate(actuators.GoalUpdate{Actuator: "gripper", GoalID: mid, State: actuators.GoalSucceeded})
	}
	r.m.Store = store
	store.armed.Store(true)
	start := time.Now()
	s, e := r.call(t, RolePlanner, "motion_status", `{"motion_id":"`+mid+`","wait_s":30}`)
	if e != nil {
		t.Fatal(e)
	}
	// The old code answered "sent" after the full 30 s; anything near that
	// is the bug, not a slow machine.
	if took := time.Since(start); took > 15*time.Second {
		t.Fatalf("status waited %s for a change that came right after its read", took)
	}
	if s["state"] != "succeeded" {
		t.Fatalf("status after the change: %v", s)
	}
	r.m.mu.Lock()
	left := len(r.m.waiters)
	r.m.mu.Unlock()
	if left != 0 {
		t.Errorf("%d motions still have waiters after the status call returned", left)
	}
}

// TestStatusUntilEndFollowsAMotionToItsOutcome: with until "end" one call
// waits through active to the outcome; by default it returns at active;
// anything else is refused by the schema.
func TestStatusUntilEndFollowsAMotionToItsOutcome(t *testing.T) {
	r := newRig(t)
	run := func(args string) (map[string]any, *Error) {
		id := preview(t, r, "gripper_move", `{"position":0.04}`)
		c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
		if e != nil {
			t.Fatal(e)
		}
		mid := c["motion_id"].(string)
		type answer struct {
			out map[string]any
			err *Error
		}
		got := make(chan answer, 1)
		go func() {
			out, e := r.p.Call(context.Background(), "motion_status", json.RawMessage(`{"motion_id":"`+mid+`","wait_s":20`+args+`}`), Invocation{Role: RolePlanner, Session: "s"})
			var m map[string]any
			b, _ := json.Marshal(out)
			_ = json.Unmarshal(b, &m)
			got <- answer{m, e}
		}()
		// The call is waiting once it watches the motion.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			r.m.mu.Lock()
			n := len(r.m.waiters[mid])
			r.m.mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the status call never waited")
			}
		}
		r.m.onUpdate(actuators.GoalUpdate{Actuator: "gripper", GoalID: mid, State: actuators.GoalActive})
		r.m.onUpdate(actuators.GoalUpdate{Actuator: "gripper", GoalID: mid, State: actuators.GoalSucceeded})
		select {
		case a := <-got:
			return a.out, a.err
		case <-time.After(15 * time.Second):
			t.Fatal("motion_status did not return after the motion ended")
			return nil, nil
		}
	}
	if out, e := run(`,"until":"end"`); e != nil || out["state"] != "succeeded" || out["terminal"] != true {
		t.Fatalf("until end: %v, %+v", out, e)
	}
	if out, e := run(``); e != nil || out["state"] == "sent" {
		t.Fatalf("default (until change): %v, %+v", out, e)
	}
	if _, e := r.call(t, RolePlanner, "motion_status", `{"motion_id":"`+strings.Repeat("0", 36)+`","until":"forever"}`); e == nil || e.Code != CodeInvalidArgument || e.Field != "until" {
		t.Fatalf("until forever: %+v", e)
	}
}

// downStore is cmd/actbridge's brokenStore: the store failed to open,
// so serve never calls Motions.Start ("reads keep working").
type downStore struct{ err error }

func (b downStore) PutPreview(context.Context, inflight.Preview) error { return b.err }
func (b downStore) GetPreview(string) (inflight.Preview, error) {
	return inflight.Preview{}, b.err
}
func (b downStore) ConfirmPreview(context.Context, inflight.Preview, inflight.Motion) (inflight.Motion, bool, error) {
	return inflight.Motion{}, false, b.err
}
func (b downStore) Transition(context.Context, string, inflight.State, func(*inflight.Motion)) (inflight.Motion, error) {
	return inflight.Motion{}, b.err
}
func (b downStore) Get(string) (inflight.Motion, error)     { return inflight.Motion{}, b.err }
func (b downStore) NonTerminal() ([]inflight.Motion, error) { return nil, b.err }
func (b downStore) List(inflight.Filter, string, int) ([]inflight.Motion, int, string, error) {
	return nil, 0, "", b.err
}
func (b downStore) Healthy() error { return b.err }

// TestStatusWithTheStoreDownIsNotFound (found by review): with the store
// down Start never runs; motion_status answers not_found, as it did before
// it watched the motion ahead of reading it (a nil map then panicked).
func TestStatusWithTheStoreDownIsNotFound(t *testing.T) {
	r := newFakeRobot()
	store := downStore{err: errors.New("store down")}
	es, _ := RestoreEStop(nil, time.Now)
	m := &Motions{Robot: r, Store: store, Signer: PreviewSigner{Key: []byte("k")}, Now: time.Now,
		Confirmer: func(string) Role { return RolePlanner }, EStop: es.State}
	reg := NewRegistry()
	reg.MustAdd(MotionTools(m, es, func() any { return nil }, NewSpeedScale(1))...)
	p := NewPipeline(reg, PipelineDeps{})
	_, e := p.Call(context.Background(), "motion_status",
		json.RawMessage(`{"motion_id":"0123abcd-0000-0000-0000-000000000000"}`), Invocation{Role: RolePlanner, Session: "s"})
	if e == nil || e.Code != CodeNotFound {
		t.Fatalf("motion_status with the store down: %+v, want not_found as before", e)
	}
}

// TestMotionRecordIsInTheFileBeforeItsGoalIsSent checks the write-ahead
// order where the goal leaves: at the moment the robot is handed the goal,
// a copy of the store file (what a crash would leave) already holds the
// motion, dispatching, with its preview used.
func TestMotionRecordIsInTheFileBeforeItsGoalIsSent(t *testing.T) {
	r := newRig(t)
	var checked bool
	r.robot.OnSend(func(goalID string) {
		b, err := os.ReadFile(r.storePath)
		if err != nil {
			t.Error(err)
			return
		}
		snap := filepath.Join(t.TempDir(), "at-send.db")
		if err := os.WriteFile(snap, b, 0o600); err != nil {
			t.Error(err)
			return
		}
		ro, err := inflight.Open(snap, inflight.Options{ReadOnly: true})
		if err != nil {
			t.Error(err)
			return
		}
		defer ro.Close()
		mo, err := ro.Get(goalID)
		if err != nil || mo.State != inflight.StateDispatching {
			t.Errorf("when the goal is sent the file holds %v, %v; want the motion, dispatching", mo.State, err)
			return
		}
		if pv, err := ro.GetPreview(mo.PreviewID); err != nil || pv.UsedBy != goalID {
			t.Errorf("when the goal is sent the file's preview is used by %q, %v; want %s", pv.UsedBy, err, goalID)
			return
		}
		checked = true
	})
	for _, c := range []struct{ tool, args string }{
		{"arm_move_joints", `{"positions":{"j1":0.5}}`},
		{"gripper_move", `{"position":0.02}`},
	} {
		out, e := r.call(t, RolePlanner, c.tool, c.args)
		if e != nil {
			t.Fatal(e)
		}
		checked = false
		if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+out["preview_id"].(string)+`"}`); e != nil {
			t.Fatal(e)
		}
		if !checked {
			t.Fatalf("%s: the goal was never sent, or the file did not hold its record", c.tool)
		}
	}
}

// latchOnCommit runs a robot_stop right after a confirm's record is
// committed, before its goal is sent.
type latchOnCommit struct {
	MotionStore
	stop func()
}

func (l *latchOnCommit) ConfirmPreview(ctx context.Context, p inflight.Preview, mo inflight.Motion) (inflight.Motion, bool, error) {
	out, created, err := l.MotionStore.ConfirmPreview(ctx, p, mo)
	l.stop()
	return out, created, err
}

// TestRobotStopRacingAConfirmNeverLetsItsGoalRun: a robot_stop that
// latches after a confirm's e-stop check but before its goal leaves
// refuses the send (nothing reaches the robot, the record ends rejected);
// one that latches while the goal is being sent, when the transport may
// not know it yet, has that goal cancelled as soon as the send returns,
// and names it among the cancelled motions.
func TestRobotStopRacingAConfirmNeverLetsItsGoalRun(t *testing.T) {
	t.Run("after commit, before send", func(t *testing.T) {
		r := newRig(t)
		r.m.Store = &latchOnCommit{MotionStore: r.store, stop: func() {
			if _, e := r.call(t, RolePlanner, "robot_stop", `{"reason":"race"}`); e != nil {
				t.Error(e)
			}
		}}
		id := preview(t, r, "gripper_move", `{"position":0.04}`)
		_, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
		if e == nil || e.Code != CodeEstopLatched {
			t.Fatalf("confirm: %+v, want estop_latched", e)
		}
		if n := r.robot.GoalsSent(); n != 0 {
			t.Fatalf("%d goals reached the robot after the stop, want 0", n)
		}
		d, _ := e.Details.(map[string]any)
		mid, _ := d["motion_id"].(string)
		if mo, err := r.store.Get(mid); err != nil || mo.State != inflight.StateRejected {
			t.Fatalf("record %s: %+v %v, want rejected", mid, mo, err)
		}
	})
	t.Run("during the send", func(t *testing.T) {
		r := newRig(t)
		var stop map[string]any
		r.robot.OnSend(func(string) {
			var e *Error
			if stop, e = r.call(t, RolePlanner, "robot_stop", `{"reason":"race"}`); e != nil {
				t.Error(e)
			}
		})
		id := preview(t, r, "gripper_move", `{"position":0.04}`)
		out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
		if e != nil {
			t.Fatal(e)
		}
		mid := out["motion_id"].(string)
		if !slices.Contains(r.robot.Cancels(), mid) {
			t.Fatalf("cancels %v: the goal sent during the stop was not cancelled", r.robot.Cancels())
		}
		if got, _ := stop["cancelled_motions"].([]any); len(got) != 1 || got[0] != mid {
			t.Fatalf("robot_stop named %v, want [%s]", stop["cancelled_motions"], mid)
		}
		if mo, _ := r.store.Get(mid); len(mo.History) == 0 || !strings.Contains(mo.History[len(mo.History)-1].Note, "cancel sent") {
			t.Fatalf("record %+v: its note does not say the cancel went out", mo)
		}
	})
}

// TestRobotStopDuringAWaitingSendAnswersEstopAndSendsNothing: a send
// still waiting for its server when robot_stop latches gives up before
// the wire; the confirm says the e-stop stopped it, the record ends
// rejected and the stop names the motion among those it cancelled.
func TestRobotStopDuringAWaitingSendAnswersEstopAndSendsNothing(t *testing.T) {
	r := newRig(t)
	r.robot.SetSendDelay(time.Minute)
	id := preview(t, r, "gripper_move", `{"position":0.04}`)
	done := confirmAsync(t, r, id)
	var held string
	deadline := time.Now().Add(10 * time.Second)
	for held == "" {
		if time.Now().After(deadline) {
			t.Fatal("the confirm never reached the robot's send")
		}
		if h, busy := r.m.ActiveOn("gripper"); busy {
			held = h
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop, e := r.call(t, RolePlanner, "robot_stop", `{}`)
	if e != nil {
		t.Fatal(e)
	}
	var a callAnswer
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the confirm still waits after robot_stop")
	}
	if a.e == nil || a.e.Code != CodeEstopLatched {
		t.Fatalf("confirm: %v %+v, want estop_latched", a.out, a.e)
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals reached the robot, want 0", n)
	}
	if got, _ := stop["cancelled_motions"].([]any); len(got) != 1 || got[0] != held {
		t.Fatalf("robot_stop named %v, want [%s]", stop["cancelled_motions"], held)
	}
	if mo, err := r.store.Get(held); err != nil || mo.State != inflight.StateRejected {
		t.Fatalf("record %s: %v %v, want rejected", held, mo.State, err)
	}
}

// pausedStore holds a confirm right after its record is committed, before
// its dispatch begins, until release is closed.
type pausedStore struct {
	MotionStore
	committed, release chan struct{}
}

func (p *pausedStore) ConfirmPreview(ctx context.Context, pv inflight.Preview, mo inflight.Motion) (inflight.Motion, bool, error) {
	out, created, err := p.MotionStore.ConfirmPreview(ctx, pv, mo)
	close(p.committed)
	<-p.release
	return out, created, err
}

// motion_cancel between the commit and the send used to answer
// cancel_sent: true, send nothing, and let the goal go out after it. The
// cancel is now honoured on sight: the goal never leaves.
func TestCancelBetweenCommitAndSendNeverSendsTheGoal(t *testing.T) {
	r := newRig(t)
	ps := &pausedStore{MotionStore: r.store, committed: make(chan struct{}), release: make(chan struct{})}
	r.m.Store = ps
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	done := confirmAsync(t, r, id)
	<-ps.committed
	list, _, _, _ := r.store.List(inflight.Filter{}, "", 10)
	if len(list) != 1 || list[0].State != inflight.StateDispatching {
		t.Fatalf("motions after the commit: %+v", list)
	}
	c, e := r.call(t, RolePlanner, "motion_cancel", `{"motion_id":"`+list[0].ID+`"}`)
	if e != nil {
		t.Fatalf("motion_cancel: %+v", e)
	}
	if c["cancel_sent"] != false || c["note"] == nil {
		t.Fatalf("motion_cancel before the send answered %v; want cancel_sent false and a note", c)
	}
	close(ps.release)
	a := <-done
	if a.e != nil || a.out["state"] != "rejected" {
		t.Fatalf("confirm after an early cancel: %v %+v; want the motion, rejected", a.out, a.e)
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals on the wire after motion_cancel came first", n)
	}
	if mo, _ := r.store.Get(list[0].ID); len(mo.History) == 0 || !strings.Contains(mo.History[len(mo.History)-1].Note, "motion_cancel") {
		t.Fatalf("record history %+v does not say why nothing was sent", mo.History)
	}
}

// A motion_cancel while the send waits for its server: the send gives up
// before the wire, the confirm answers with the motion, rejected, and
// motion_cancel does not claim a cancel went out.
func TestCancelDuringAWaitingSendRecordsNothingSent(t *testing.T) {
	r := newRig(t)
	r.robot.SetSendDelay(time.Minute)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	done := confirmAsync(t, r, id)
	var motion string
	for motion == "" {
		r.m.mu.Lock()
		for k := range r.m.dispatching {
			motion = k
		}
		r.m.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	c, e := r.call(t, RolePlanner, "motion_cancel", `{"motion_id":"`+motion+`"}`)
	if e != nil || c["cancel_sent"] != false {
		t.Fatalf("motion_cancel during the send: %v %+v", c, e)
	}
	if a := <-done; a.e != nil || a.out["state"] != "rejected" {
		t.Fatalf("confirm: %v %+v", a.out, a.e)
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals on the wire", n)
	}
}

// callAnswer is one tool call's answer.
type callAnswer struct {
	out map[string]any
	e   *Error
}

// confirmAsync confirms preview id on another goroutine; its answer
// arrives on the channel.
func confirmAsync(t *testing.T, r *rig, id string) <-chan callAnswer {
	done := make(chan callAnswer, 1)
	go func() {
		out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
		done <- callAnswer{out, e}
	}()
	return done
}

// A send that fails after its goal may have left (the transport closed
// after writing it) used to be recorded rejected, "nothing was sent", and
// free its actuator. It is unknown now and holds the actuator until the
// robot says it no longer holds the goal; a restart keeps that hold.
func TestMaybeSentGoalIsUnknownAndKeepsItsActuatorBusy(t *testing.T) {
	r := newRig(t)
	r.robot.SetSendError(actuators.ErrMaybeSent)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil || out["state"] != "unknown" {
		t.Fatalf("confirm whose send may have left: %v %+v; want the motion, unknown", out, e)
	}
	motion := out["motion_id"].(string)
	r.robot.SetSendError(nil)
	second := preview(t, r, "arm_move_joints", `{"positions":{"j2":0.5}}`)
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+second+`"}`); e == nil || e.Code != CodeBusy || !strings.Contains(e.State, "may still run") {
		t.Fatalf("a second motion on the arm while the first may run: %+v, want busy naming the unknown motion", e)
	}

	// A restart: the new Motions holds the arm for the unknown motion too.
	m2 := &Motions{Robot: r.robot, Store: r.store, Signer: r.m.Signer, Now: r.clock, Confirmer: r.m.Confirmer, EStop: r.estop.State, StaleAfter: r.m.StaleAfter, StartTolerance: r.m.StartTolerance, PoseTolerance: r.m.PoseTolerance}
	if err := m2.Start(); err != nil {
		t.Fatal(err)
	}
	if holder, busy := m2.ActiveOn("arm"); !busy || holder != motion {
		t.Fatalf("after a restart the arm is held by %q (%v), want %s", holder, busy, motion)
	}
	r.robot.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: motion, State: actuators.GoalLost, Text: "the server does not know it"})
	if holder, busy := m2.ActiveOn("arm"); busy { // m2 is the fake's observer now
		t.Fatalf("the arm is still held by %s after the robot reported the goal lost", holder)
	}
}

// An unknown motion stops holding its actuator once the actuator's server
// is gone: nothing of it can still run there.
func TestUnknownMotionIsReleasedWhenItsServerIsGone(t *testing.T) {
	r := newRig(t)
	r.robot.SetSendError(actuators.ErrMaybeSent)
	id := preview(t, r, "gripper_move", `{"position":0.04}`)
	if out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e != nil || out["state"] != "unknown" {
		t.Fatalf("confirm: %v %+v", out, e)
	}
	if _, busy := r.m.ActiveOn("gripper"); !busy {
		t.Fatal("the gripper is free while its motion may run")
	}
	r.robot.SetActuator("gripper", false, "server gone")
	if holder, busy := r.m.ActiveOn("gripper"); busy {
		t.Fatalf("the gripper is held by %s after its server went", holder)
	}
}

// A robot_stop that latches while a send fails in a way that may have put
// the goal on the wire: the motion is unknown (never "nothing was sent")
// and the goal is cancelled after the send, since the stop's own cancels
// may have come before the transport knew it.
func TestStopDuringASendThatMayHaveLeftCancelsItAndRecordsUnknown(t *testing.T) {
	r := newRig(t)
	r.robot.SetSendError(actuators.ErrMaybeSent)
	r.robot.OnSend(func(string) {
		if _, e := r.call(t, RoleOperator, "robot_stop", `{"reason":"mid-send"}`); e != nil {
			t.Errorf("robot_stop: %+v", e)
		}
	})
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil || out["state"] != "unknown" {
		t.Fatalf("confirm whose send may have left while robot_stop latched: %v %+v; want the motion, unknown", out, e)
	}
	motion := out["motion_id"].(string)
	if !slices.Contains(r.robot.Cancels(), motion) {
		t.Fatalf("no cancel of %s after its send: cancels %v", motion, r.robot.Cancels())
	}
	if _, busy := r.m.ActiveOn("arm"); !busy {
		t.Fatal("the arm is free while the goal may run")
	}
}

// preparingRobot is the fake robot with a SendPreparer that notes, when
// asked, whether any motion was already committed or any goal sent.
type preparingRobot struct {
	*actuatorsfake.Robot
	store *inflight.Store
	notes []string
}

func (p *preparingRobot) PrepareSend(actuator string) {
	active, _ := p.store.NonTerminal()
	p.notes = append(p.notes, fmt.Sprintf("%s committed=%d sent=%d", actuator, len(active), p.GoalsSent()))
}

func TestConfirmBeginsTheSendsWireCheckOnlyOnceItsChecksPassAndBeforeItsCommit(t *testing.T) {
	prep := func(r *rig) *preparingRobot {
		pr := &preparingRobot{Robot: r.robot, store: r.store}
		r.m.Robot = pr
		return pr
	}
	r := newRig(t)
	pr := prep(r)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":1}}`)
	r.estop.Latch("test")
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e == nil || e.Code != CodeEstopLatched {
		t.Fatalf("confirm under a latched e-stop: %v", e)
	}
	if len(pr.notes) != 0 {
		t.Fatalf("a refused confirm began the send's check: %v", pr.notes)
	}
	r = newRig(t)
	pr = prep(r)
	id = preview(t, r, "arm_move_joints", `{"positions":{"j1":1}}`)
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e != nil {
		t.Fatal(e)
	}
	if want := []string{"arm committed=0 sent=0"}; !slices.Equal(pr.notes, want) {
		t.Fatalf("PrepareSend calls: %v, want %v (once, before the commit)", pr.notes, want)
	}
	if r.robot.GoalsSent() != 1 {
		t.Fatalf("%d goals sent, want 1", r.robot.GoalsSent())
	}
}
