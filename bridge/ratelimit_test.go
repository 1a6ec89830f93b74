package bridge

import (
	"slices"
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestToolBucketRefusesWithTheWaitAndRefillsEvenly(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	l := NewRateLimiter(RateLimits{Tools: map[string]float64{"camera_snapshot": 2}}, clk.now)
	for i := range 2 {
		if ok, _, _, _ := l.Take("camera_snapshot"); !ok {
			t.Fatalf("call %d refused", i)
		}
	}
	ok, wait, which, per := l.Take("camera_snapshot")
	if ok || which != "tool" || per != 2 || wait != 30*time.Second {
		t.Fatalf("third call: ok=%v wait=%v bucket=%s per=%g", ok, wait, which, per)
	}
	clk.add(20 * time.Second)
	if ok, wait, _, _ := l.Take("camera_snapshot"); ok || wait != 10*time.Second {
		t.Fatalf("after 20 s: ok=%v wait=%v", ok, wait)
	}
	clk.add(10 * time.Second)
	if ok, _, _, _ := l.Take("camera_snapshot"); !ok {
		t.Fatal("refused after the wait it announced")
	}
	if ok, _, _, _ := l.Take("joints_read"); !ok {
		t.Fatal("a tool without a limit was refused")
	}
}

func TestGlobalBucketCountsEveryToolAndARefusalTakesNoToken(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	l := NewRateLimiter(RateLimits{Global: 3, Default: 2}, clk.now)
	for _, tool := range []string{"a", "b", "c"} {
		if ok, _, _, _ := l.Take(tool); !ok {
			t.Fatalf("%s refused", tool)
		}
	}
	if ok, wait, which, _ := l.Take("a"); ok || which != "global" || wait != 20*time.Second {
		t.Fatalf("fourth call: ok=%v bucket=%s wait=%v", ok, which, wait)
	}
	clk.add(20 * time.Second) // one global token back
	if ok, _, _, _ := l.Take("a"); !ok {
		t.Fatal("the refused call took a token: a is still refused")
	}
	if ok, _, which, _ := l.Take("a"); ok || which != "global" {
		t.Fatalf("a again: ok=%v bucket=%s", ok, which)
	}
	clk.add(60 * time.Second) // both buckets full again: a 2, global 3
	l.Take("a")
	l.Take("a")
	if ok, _, which, _ := l.Take("a"); ok || which != "tool" {
		t.Fatalf("a's own bucket (2 per minute) should be empty: ok=%v bucket=%s", ok, which)
	}
}

func TestStopToolsAndTheOperatorAreNeverLimited(t *testing.T) {
	r := newRig(t)
	clk := &fakeClock{t: time.Unix(1000, 0)}
	r.p.Limiter = NewRateLimiter(RateLimits{Global: 1, Default: 1}, clk.now)
	mustPass := func(role Role, tool, args string) {
		t.Helper()
		if _, err := r.call(t, role, tool, args); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	mustPass(RolePlanner, "joints_read", `{}`) // the one global token
	for range 5 {
		mustPass(RolePlanner, "robot_stop", `{"reason":"x"}`)
		mustPass(RoleOperator, "joints_read", `{}`)
	}
	_, err := r.call(t, RolePlanner, "motion_cancel", `{"motion_id":"00000000-0000-0000-0000-000000000000"}`)
	if err == nil || err.Code != CodeNotFound {
		t.Fatalf("motion_cancel was limited: %v", err)
	}
	_, err = r.call(t, RolePlanner, "topics_list", `{}`)
	if err == nil || err.Code != CodeBusy {
		t.Fatalf("planner over the limit: %v", err)
	}
}

func TestRateLimitRefusalIsBusyRetryableWithTheWaitAndSendsNothing(t *testing.T) {
	r := newROSRig(t)
	clk := &fakeClock{t: time.Unix(1000, 0)}
	r.p.Limiter = NewRateLimiter(RateLimits{Tools: map[string]float64{"service_call": 1, "arm_move_joints": 1}}, clk.now)
	if _, err := r.call(t, RolePlanner, "service_call", `{"service":"/sim/status"}`); err != nil {
		t.Fatal(err)
	}
	_, err := r.call(t, RolePlanner, "service_call", `{"service":"/sim/status"}`)
	if err == nil || err.Code != CodeBusy || !err.Retryable || err.Rule != "rate_limit" || err.Layer() != LayerResource {
		t.Fatalf("%+v", err)
	}
	d := err.Details.(map[string]any)
	if d["retry_after_s"] != 60.0 || d["bucket"] != "tool" {
		t.Fatalf("details %v", d)
	}
	if r.ros.calls["/sim/status"] != 1 {
		t.Fatalf("the refused call reached the service: %d calls", r.ros.calls["/sim/status"])
	}
	tl, _ := r.p.Registry.Lookup("service_call")
	if !contains(tl.ErrorCodes(), CodeBusy) {
		t.Fatal("a limited tool does not declare busy")
	}
	pv, err := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":0.2}}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":0.3}}`); err == nil || err.Code != CodeBusy {
		t.Fatalf("second preview: %v", err)
	}
	if _, err := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`); err != nil {
		t.Fatal(err)
	}
	if r.robot.GoalsSent() != 1 {
		t.Fatalf("goals %d", r.robot.GoalsSent())
	}
}

// A rate limit is the pipeline's, not a wrapper put on the tool: the
// registered tool stays the value it was declared, limit or not.
func TestARateLimitLeavesTheRegisteredToolAsDeclared(t *testing.T) {
	r := newRig(t)
	clk := &fakeClock{t: time.Unix(1000, 0)}
	r.p.Limiter = NewRateLimiter(RateLimits{Default: 1}, clk.now)
	before := *mustLookup(t, r.p.Registry, "joints_read")
	if _, err := r.call(t, RolePlanner, "joints_read", `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.call(t, RolePlanner, "joints_read", `{}`); err == nil || err.Code != CodeBusy {
		t.Fatalf("second call over the limit: %v", err)
	}
	after := mustLookup(t, r.p.Registry, "joints_read")
	if (after.Semantic == nil) != (before.Semantic == nil) || !slices.Equal(after.Errors, before.Errors) {
		t.Fatalf("the limit changed the tool: Semantic %v→%v, Errors %v→%v", before.Semantic != nil, after.Semantic != nil, before.Errors, after.Errors)
	}
	if !contains(after.ErrorCodes(), CodeBusy) {
		t.Fatal("a limited tool does not say it can be refused busy")
	}
}
