package ros2rpc

import (
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// controller is our FollowJointTrajectory server as the vendors' action
// clients meet it: each goal gets three feedbacks naming its joints, then
// succeeds, or with hold runs until canceled.
type controller struct {
	t      *testing.T
	set    *msgs.Set
	server *action.Server
	hold   bool

	mu     sync.Mutex
	joints map[action.GoalID][]string // each goal's joints, as we decoded them
	runs   int
	wg     sync.WaitGroup
	stop   chan struct{}
}

func startController(t *testing.T, set *msgs.Set, domain int, hold bool) *controller {
	t.Helper()
	c := &controller{t: t, set: set, hold: hold, joints: map[action.GoalID][]string{}, stop: make(chan struct{})}
	var err error
	c.server, err = action.NewServer(servicetest.Participant(t, domain), set, actionName, fjt, action.Handlers{
		Accepted: func(g *action.ServerGoal) {
			joints, _ := g.Goal().Get("trajectory").(*cdr.Message).Get("joint_names").([]string)
			c.mu.Lock()
			c.joints[g.ID()] = joints
			c.runs++
			c.mu.Unlock()
			c.wg.Go(func() { c.run(g, joints) })
		},
	}, action.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(c.stop)
		c.wg.Wait()
		c.server.Close()
	})
	return c
}

func (c *controller) result(code int32, msg string) *cdr.Message {
	r, _ := c.set.Message(fjt + "_Result")
	r.Set("error_code", code)
	r.Set("error_string", msg)
	return r
}

func (c *controller) run(g *action.ServerGoal, joints []string) {
	for range 3 {
		fb, _ := c.set.Message(fjt + "_Feedback")
		fb.Set("joint_names", joints)
		if err := g.Feedback(fb); err != nil {
			c.t.Errorf("feedback: %v", err)
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-g.Canceling():
			g.Canceled(c.result(0, "canceled"))
			return
		case <-c.stop:
			return
		}
	}
	if !c.hold {
		g.Succeed(c.result(0, "reached"))
		return
	}
	select {
	case <-g.Canceling():
		g.Canceled(c.result(0, "canceled"))
	case <-c.stop:
	}
}

// eachVendor runs f against each vendor's node peers, on domains from
// base on.
func eachVendor(t *testing.T, base int, f func(t *testing.T, ns string, set *msgs.Set, v vendor, domain int)) {
	ns, set, vendors := setup(t)
	for i, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			f(t, ns, set, v, base+i)
		})
	}
}

// runClient runs v's action-client against our server on domain until
// it is done, and returns its events.
func runClient(t *testing.T, ns string, v vendor, domain int, goals []string, args ...string) []ddspeers.ActionEvent {
	t.Helper()
	cli := ddspeers.StartActionClient(t, ns, v.bin, actionName, goals, append([]string{"--timeout", "20", "--domain", strconv.Itoa(domain)}, args...)...)
	if err := cli.Wait(servicetest.Timeout(t, 60*time.Second)); err != nil {
		t.Fatalf("%s's client: %v: %s", v.name, err, cli.Stderr())
	}
	checkNotMalformed(t, cli)
	evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](cli.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// clientEvent is the first event of kind for goal (any goal when empty).
func clientEvent(t *testing.T, evs []ddspeers.ActionEvent, kind, goal string) ddspeers.ActionEvent {
	t.Helper()
	for _, e := range evs {
		if e.Event == kind && (goal == "" || e.GoalID == goal) {
			return e
		}
	}
	t.Fatalf("no %s event for %q in %+v", kind, goal, evs)
	return ddspeers.ActionEvent{}
}

// statuses are the codes the client saw for goal, in order, repeats
// dropped.
func statuses(evs []ddspeers.ActionEvent, goal string) []int {
	var out []int
	for _, e := range evs {
		for _, g := range e.Goals {
			if e.Event == "status" && g.GoalID == goal && (len(out) == 0 || out[len(out)-1] != g.Status) {
				out = append(out, g.Status)
			}
		}
	}
	return out
}

// TestVendorActionClientGetsFeedbackAndResultFromOurServer runs on each
// distro's definitions: Kilted's and Lyrical's feedback has two more
// fields, which a server on another set would not send.
func TestVendorActionClientGetsFeedbackAndResultFromOurServer(t *testing.T) {
	ns := netns.Require(t)
	for j, d := range msgs.Distros() {
		p := ddspeers.BuildNodes(t, d)
		set, err := msgs.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range actionServers(t, p) { // the node peers, here as clients
			t.Run(string(d)+"/"+v.name, func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				testVendorGoalSucceeds(t, ns, set, v, 170+3*j+i)
			})
		}
	}
}

func testVendorGoalSucceeds(t *testing.T, ns string, set *msgs.Set, v vendor, domain int) {
	c := startController(t, set, domain, false)
	id := uuidOf(0x60)
	evs := runClient(t, ns, v, domain, []string{canonical(id)}, "--joints", "shoulder,elbow")
	if e := clientEvent(t, evs, "sent", canonical(id)); !e.Accepted {
		t.Fatalf("goal not accepted: %+v", e)
	}
	if e := clientEvent(t, evs, "feedback", canonical(id)); !reflect.DeepEqual(e.Joints, []string{"shoulder", "elbow"}) {
		t.Fatalf("feedback joints %v", e.Joints)
	}
	if e := clientEvent(t, evs, "result", canonical(id)); e.Status != 4 || e.ErrorString != "reached" {
		t.Fatalf("result %+v", e)
	}
	if st := statuses(evs, canonical(id)); len(st) == 0 || st[len(st)-1] != 4 || slices.Index(st, 2) < 0 {
		t.Fatalf("statuses seen %v, want EXECUTING (2) then SUCCEEDED (4)", st)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if got := c.joints[id]; !reflect.DeepEqual(got, []string{"shoulder", "elbow"}) || c.runs != 1 {
		t.Fatalf("we decoded joints %v over %d runs", got, c.runs)
	}
}

func TestVendorActionClientCancelsGoalsOnOurServer(t *testing.T) {
	eachVendor(t, 160, func(t *testing.T, ns string, set *msgs.Set, v vendor, domain int) {
		startController(t, set, domain, true)
		one, two := canonical(uuidOf(0x61)), canonical(uuidOf(0x62))
		evs := runClient(t, ns, v, domain, []string{one}, "--cancel-goal", one, "--cancel-after", "1")
		if e := clientEvent(t, evs, "cancel", ""); e.ReturnCode != 0 || !reflect.DeepEqual(e.Canceling, []string{one}) {
			t.Fatalf("cancel one: %+v", e)
		}
		if e := clientEvent(t, evs, "result", one); e.Status != 5 || e.ErrorString != "canceled" {
			t.Fatalf("result %+v", e)
		}
		evs = runClient(t, ns, v, domain, []string{two}, "--cancel-goal", one, "--cancel-after", "1", "--no-result")
		if e := clientEvent(t, evs, "cancel", ""); e.ReturnCode != 3 || len(e.Canceling) != 0 {
			t.Fatalf("cancel of an ended goal: %+v, want GOAL_TERMINATED (3)", e)
		}
		evs = runClient(t, ns, v, domain, []string{canonical(uuidOf(0x63))}, "--cancel-goal", "all", "--cancel-after", "1")
		if e := clientEvent(t, evs, "cancel", ""); e.ReturnCode != 0 || len(e.Canceling) != 2 || !slices.Contains(e.Canceling, two) {
			t.Fatalf("cancel all: %+v, want both live goals", e)
		}
	})
}

func TestVendorClientsDuplicateUUIDIsCountedAndNotRunAgain(t *testing.T) {
	eachVendor(t, 163, func(t *testing.T, ns string, set *msgs.Set, v vendor, domain int) {
		c := startController(t, set, domain, false)
		id := canonical(uuidOf(0x64))
		runClient(t, ns, v, domain, []string{id})
		// A second client that knows nothing of the first one's UUID:
		// rclcpp answers accepted and then dies; we answer accepted
		// and carry on.
		evs := runClient(t, ns, v, domain, []string{id}, "--no-result")
		if e := clientEvent(t, evs, "sent", id); !e.Accepted {
			t.Fatalf("duplicate answered %+v, want accepted as rclcpp answers", e)
		}
		c.mu.Lock()
		runs := c.runs
		c.mu.Unlock()
		if n := c.server.Duplicates(); n != 1 || runs != 1 {
			t.Fatalf("duplicates %d, runs %d; want 1 and 1", n, runs)
		}
		// Still serving: a fresh goal runs to its end.
		evs = runClient(t, ns, v, domain, []string{canonical(uuidOf(0x65))})
		if e := clientEvent(t, evs, "result", ""); e.Status != 4 {
			t.Fatalf("goal after the duplicate: %+v", e)
		}
	})
}

func TestVendorParamClientListsGetsAndSetsOurParameters(t *testing.T) {
	eachVendor(t, 166, func(t *testing.T, ns string, set *msgs.Set, v vendor, domain int) {
		srv, err := param.NewServer(servicetest.Participant(t, domain), set, "/arm/controller", []param.Declaration{
			{Name: "speed", Value: param.Value{V: 0.5}},
			{Name: "frame", Value: param.Value{V: "base"}},
			{Name: "count", Value: param.Value{V: int64(3)}, ReadOnly: true},
			{Name: "limits.max", Value: param.Value{V: true}},
		}, param.ServerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		cli := ddspeers.StartParamClient(t, ns, v.bin, "controller", []string{
			"list", "get:speed,frame,count", "set:speed=double:0.75", "set:count=int:4",
			"set:speed=string:fast", "get:speed,missing", "describe:speed,count",
		}, "--namespace", "/arm", "--timeout", "20", "--domain", strconv.Itoa(domain))
		if err := cli.Wait(servicetest.Timeout(t, 60*time.Second)); err != nil {
			t.Fatalf("%v: %s", err, cli.Stderr())
		}
		checkNotMalformed(t, cli)
		rs, err := ddspeers.JSONLines[ddspeers.ParamReply](cli.Stdout())
		if err != nil || len(rs) != 7 {
			t.Fatalf("%d replies %v: %s", len(rs), err, cli.Stdout())
		}
		if want := []string{"count", "frame", "limits.max", "speed"}; !reflect.DeepEqual(rs[0].Names, want) || !reflect.DeepEqual(rs[0].Prefixes, []string{"limits"}) {
			t.Errorf("list %v %v", rs[0].Names, rs[0].Prefixes)
		}
		if vs := rs[1].Values; len(vs) != 3 || vs[0].Value != 0.5 || vs[1].Value != "base" || vs[2].Type != 2 || vs[2].Value != 3.0 {
			t.Errorf("get %+v", vs)
		}
		for j, want := range []string{"", "parameter 'count' cannot be set because it is read-only",
			"Wrong parameter type, parameter {speed} is of type {double}, setting it to {string} is not allowed."} {
			r := rs[2+j].Results
			if len(r) != 1 || r[0].Successful != (want == "") || r[0].Reason != want {
				t.Errorf("set %d: %+v, want reason %q", j, r, want)
			}
		}
		if len(rs[5].Values) != 0 {
			t.Errorf("get naming an undeclared parameter answered %+v", rs[5].Values)
		}
		if d := rs[6].Descriptors; len(d) != 2 || d[0].Name != "speed" || d[0].Type != 3 || d[0].ReadOnly || !d[1].ReadOnly {
			t.Errorf("describe %+v", d)
		}
		if v, _ := srv.Get("speed"); v.V != 0.75 {
			t.Errorf("speed is %v after the vendor's set", v.V)
		}
	})
}
