package ros2rpc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

const (
	fjt        = "control_msgs/action/FollowJointTrajectory"
	actionName = "/arm/follow_joint_trajectory"
)

// actionRig is one vendor's scripted action server and our client of it.
type actionRig struct {
	set    *msgs.Set
	server *ddspeers.Proc
	part   *rtps.Participant
	client *action.Client
}

// actionServers are the node peers, each of which runs action-server
// (Fast DDS 3's empty, and skipped, without its root).
func actionServers(t testing.TB, p *ddspeers.NodePeers) []vendor {
	return []vendor{{"cyclonedds", p.Cyclone, wire.VendorCyclone, nil}, {"fastdds", p.Fast, wire.VendorEProsima, nil}, {"fastdds3", p.Fast3(t), wire.VendorEProsima, nil}}
}

// startAction starts v's action server with the script args on domain
// and our client of it.
func startAction(t *testing.T, ns string, p *ddspeers.NodePeers, v vendor, domain int, args ...string) *actionRig {
	t.Helper()
	set, err := msgs.Load(p.Distro)
	if err != nil {
		t.Fatal(err)
	}
	r := &actionRig{set: set}
	args = append(args, "--domain", strconv.Itoa(domain))
	if v.env != nil {
		// StartActionServer's script, with the environment v needs.
		r.server = ddspeers.StartPeerEnv(t, ns, v.bin, v.env, nil, append([]string{"action-server", "--action", actionName, "--preempt", "aborted"}, args...)...)
	} else {
		r.server = p.StartActionServer(t, ns, v.bin, actionName, args...)
	}
	if err := r.server.WaitStderr(servicetest.Timeout(t, 30*time.Second), "ready"); err != nil {
		t.Fatalf("%v: %s", err, r.server.Stderr())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stdout:\n%s\nstderr:\n%s", r.server.Stdout(), r.server.Stderr())
		}
	})
	r.part = servicetest.Participant(t, domain)
	r.client = r.newClient(t)
	return r
}

func (r *actionRig) newClient(t *testing.T) *action.Client {
	t.Helper()
	c, err := action.NewClient(r.part, r.set, actionName, fjt, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// goal is ddspeers.RestGoal: joints j1, j2 at zero, at rest.
func (r *actionRig) goal(t *testing.T) *cdr.Message {
	t.Helper()
	g, err := ddspeers.RestGoal(r.set)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// events are the server's ActionEvent lines so far.
func (r *actionRig) events(t *testing.T) []ddspeers.ActionEvent {
	t.Helper()
	evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](r.server.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// checkSentOnce fails t if the server saw a goal UUID twice or any of ids
// other than once.
func (r *actionRig) checkSentOnce(t *testing.T, ids ...action.GoalID) {
	t.Helper()
	if line, ok := r.server.Malformed(); ok {
		t.Fatalf("server refused our frame: %s", line)
	}
	// The server prints a goal's events around its reply: wait for
	// them, then for anything a resend would have added.
	for _, id := range ids {
		if err := r.server.WaitStdout(servicetest.Timeout(t, 5*time.Second), canonical(id)); err != nil {
			t.Fatalf("server never printed goal %s: %v", canonical(id), err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	seen := map[string]int{}
	for _, e := range r.events(t) {
		if e.Event == "goal" {
			seen[e.GoalID]++
		}
	}
	for _, id := range ids {
		if n := seen[canonical(id)]; n != 1 {
			t.Errorf("server saw goal %s %d times: %s", canonical(id), n, r.server.Stdout())
		}
	}
}

func canonical(id action.GoalID) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
}

func uuidOf(n byte) action.GoalID {
	return action.GoalID{0x5e, 0x1f, 0, n, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n}
}

// TestGoalGetsFeedbackAndSucceedsOnEachVendorAndDistro runs on each
// distro's definitions: Kilted's and Lyrical's feedback has two more
// fields, so a client on the wrong set would not decode it.
func TestGoalGetsFeedbackAndSucceedsOnEachVendorAndDistro(t *testing.T) {
	ns := netns.Require(t)
	for j, d := range msgs.Distros() {
		p := ddspeers.BuildNodes(t, d)
		for i, v := range actionServers(t, p) {
			t.Run(string(d)+"/"+v.name, func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				testGoalSucceeds(t, startAction(t, ns, p, v, 130+3*j+i, "--outcome", "succeed", "--feedback", "3"))
			})
		}
	}
}

func testGoalSucceeds(t *testing.T, r *actionRig) {
	id := uuidOf(1)
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 20*time.Second), id, r.goal(t)); err != nil {
		t.Fatalf("%v: %s", err, r.server.Stderr())
	}
	fb, _ := r.client.Feedback(id)
	select {
	case m := <-fb:
		if names := m.Get("joint_names").([]string); len(names) != 2 || names[0] != "j1" {
			t.Fatalf("feedback joints %v", names)
		}
		if hasIndex := m.Type.FieldIndex("index") >= 0; hasIndex != (r.set.Distro == msgs.Kilted || r.set.Distro == msgs.Lyrical) {
			t.Fatalf("%s feedback decoded with an index field: %v", r.set.Distro, hasIndex)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no feedback")
	}
	res, err := r.client.Result(servicetest.Timeout(t, 20*time.Second), id)
	if err != nil || res.Status.Name != "SUCCEEDED" || res.Message.Get("error_code") != int32(0) {
		t.Fatalf("result %+v, %v", res, err)
	}
	if st, err := r.client.Status(id); err != nil || st.Name != "SUCCEEDED" {
		t.Fatalf("status %v %v", st, err)
	}
	r.checkSentOnce(t, id)
}

func TestCancelAndPreemptEndGoalsAsTheDistroSays(t *testing.T) {
	ns := netns.Require(t)
	for j, d := range []struct {
		distro    msgs.Distro
		preempted string // how joint_trajectory_controller ends a preempted goal
	}{{msgs.Jazzy, "ABORTED"}, {msgs.Humble, "CANCELED"}} {
		p := ddspeers.BuildNodes(t, d.distro)
		for i, v := range actionServers(t, p) {
			t.Run(string(d.distro)+"/"+v.name, func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				testCancelAndPreempt(t, startAction(t, ns, p, v, 120+3*j+i, "--outcome", "hold"), d.preempted)
			})
		}
	}
}

func testCancelAndPreempt(t *testing.T, r *actionRig, preempted string) {
	ctx := servicetest.Timeout(t, 30*time.Second)
	first, second := uuidOf(2), uuidOf(3)
	if _, err := r.client.SendGoal(ctx, first, r.goal(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.WaitStatus(ctx, first, func(s action.Status) bool { return s.Name == "EXECUTING" }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.SendGoal(ctx, second, r.goal(t)); err != nil {
		t.Fatal(err)
	}
	res, err := r.client.Result(ctx, first)
	if err != nil || res.Status.Name != preempted || res.Message.Get("error_code") != int32(-1) {
		t.Fatalf("preempted goal: %+v %v", res, err)
	}
	cr, err := r.client.Cancel(ctx, second)
	if err != nil || cr.Code != 0 || len(cr.Canceling) != 1 || cr.Canceling[0] != second {
		t.Fatalf("cancel: %+v %v", cr, err)
	}
	if res, err := r.client.Result(ctx, second); err != nil || res.Status.Name != "CANCELED" {
		t.Fatalf("canceled goal: %+v %v", res, err)
	}
	r.checkSentOnce(t, first, second)
}

func TestOurClientNeverSendsAUUIDTwice(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range actionServers(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			r := startAction(t, ns, p, v, 100+i, "--outcome", "hold")
			ctx := servicetest.Timeout(t, 30*time.Second)
			id := uuidOf(4)
			if _, err := r.client.SendGoal(ctx, id, r.goal(t)); err != nil {
				t.Fatal(err)
			}
			if _, err := r.client.SendGoal(ctx, id, r.goal(t)); !errors.Is(err, action.ErrDuplicateGoal) {
				t.Fatalf("second send: %v, want ErrDuplicateGoal", err)
			}
			// A restarted bridge re-attaches: status and result, no send.
			again := r.newClient(t)
			st, err := again.Attach(ctx, id)
			if err != nil || st.Name != "EXECUTING" {
				t.Fatalf("attach: %v %v", st, err)
			}
			if _, err := again.SendGoal(ctx, id, r.goal(t)); !errors.Is(err, action.ErrDuplicateGoal) {
				t.Fatalf("send after attach: %v", err)
			}
			if _, err := again.CancelAll(ctx); err != nil {
				t.Fatal(err)
			}
			if res, err := again.Result(ctx, id); err != nil || res.Status.Name != "CANCELED" {
				t.Fatalf("result after attach: %+v %v", res, err)
			}
			if err := r.server.Wait(servicetest.Timeout(t, 200*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("server exited (%v): %s", err, r.server.Stderr())
			}
			r.checkSentOnce(t, id)
			// The control: the same UUID sent again below the action
			// client, as a careless bridge would, brings the server down
			// as it does rclcpp's. So the checks above could fail.
			resendBelowTheClient(t, r, id)
			err = r.server.Wait(ctx)
			if code := exitCode(err); code != ddspeers.DuplicateGoalExit {
				t.Fatalf("server took a resent UUID (exit %v, %v): %s", code, err, r.server.Stderr())
			}
		})
	}
}

// resendBelowTheClient sends goal id on send_goal with a bare service
// client, which keeps no record of UUIDs.
func resendBelowTheClient(t *testing.T, r *actionRig, id action.GoalID) {
	t.Helper()
	ty, err := service.ResolveTypes(r.set, fjt+"_SendGoal")
	if err != nil {
		t.Fatal(err)
	}
	c, err := service.NewClient(r.part, ty, actionName+"/_action/send_goal", service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := cdr.Zero(ty.Request)
	req.Get("goal_id").(*cdr.Message).Set("uuid", id[:])
	req.Set("goal", r.goal(t))
	c.Call(servicetest.Timeout(t, time.Second), req) // the server dies instead of answering
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func TestRejectedGoalIsReportedAndItsUUIDStaysSpent(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range actionServers(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			r := startAction(t, ns, p, v, 109+i, "--goal", "reject")
			ctx := servicetest.Timeout(t, 30*time.Second)
			id := uuidOf(10)
			if _, err := r.client.SendGoal(ctx, id, r.goal(t)); !errors.Is(err, action.ErrRejected) {
				t.Fatalf("%v, want ErrRejected", err)
			}
			if _, err := r.client.SendGoal(ctx, id, r.goal(t)); !errors.Is(err, action.ErrDuplicateGoal) {
				t.Fatalf("resend of a rejected UUID: %v, want ErrDuplicateGoal", err)
			}
			r.checkSentOnce(t, id)
		})
	}
}

func TestServerKilledMidGoalIsReportedLostWithinItsLease(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range actionServers(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			// A short lease keeps the test short: Cyclone's default is 10 s.
			// Fast DDS 2.9 keeps its default 20 s, so that the default is
			// checked once; Fast DDS 3 takes 2 s (--lease).
			script := []string{"--outcome", "hold"}
			if v.id == wire.VendorCyclone {
				v.env = []string{"CYCLONEDDS_URI=<Domain><Discovery><LeaseDuration>2 s</LeaseDuration></Discovery></Domain>"}
			}
			if v.name == "fastdds3" {
				script = append(script, "--lease", "2")
			}
			r := startAction(t, ns, p, v, 103+i, script...)
			ctx := servicetest.Timeout(t, 60*time.Second)
			id := uuidOf(6)
			if _, err := r.client.SendGoal(ctx, id, r.goal(t)); err != nil {
				t.Fatal(err)
			}
			if _, err := r.client.WaitStatus(ctx, id, func(s action.Status) bool { return s.Name == "EXECUTING" }); err != nil {
				t.Fatal(err)
			}
			var lease time.Duration
			for _, d := range r.part.Participants() {
				if d.Vendor == v.id {
					lease = d.LeaseDuration
				}
			}
			results := make(chan error, 1)
			go func() {
				_, err := r.client.Result(ctx, id)
				results <- err
			}()
			time.Sleep(100 * time.Millisecond)
			killed := time.Now()
			r.server.Kill() // no goodbye: only the lease tells
			st, err := r.client.WaitStatus(ctx, id, action.Status.Terminal)
			took := time.Since(killed)
			if !errors.Is(err, action.ErrLost) || !st.Lost {
				t.Fatalf("status %v, %v; want lost", st, err)
			}
			if lease <= 0 || took > lease+time.Second {
				t.Fatalf("lost after %v, the server's lease is %v", took, lease)
			}
			if err := <-results; !errors.Is(err, action.ErrLost) {
				t.Fatalf("get_result in flight: %v, want ErrLost", err)
			}
			t.Logf("lost %v after the kill (lease %v)", took.Round(time.Millisecond), lease)
		})
	}
}

func TestForgottenResultIsUnknownAndNeverAReasonToResend(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range actionServers(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			r := startAction(t, ns, p, v, 106+i, "--outcome", "succeed", "--feedback", "1", "--result-timeout", "1")
			ctx := servicetest.Timeout(t, 30*time.Second)
			id := uuidOf(8)
			if _, err := r.client.SendGoal(ctx, id, r.goal(t)); err != nil {
				t.Fatal(err)
			}
			if res, err := r.client.Result(ctx, id); err != nil || res.Status.Name != "SUCCEEDED" {
				t.Fatalf("result %+v %v", res, err)
			}
			if err := r.server.WaitStdout(ctx, `"forgotten"`); err != nil {
				t.Fatal(err)
			}
			again := r.newClient(t) // restarted after the result expired
			if st, err := again.Attach(ctx, id); err != nil || st.Name != "UNKNOWN" {
				t.Fatalf("attach: %v %v, want UNKNOWN", st, err)
			}
			res, err := again.Result(ctx, id)
			if err != nil || res.Status.Name != "UNKNOWN" || res.Status.Code != 0 {
				t.Fatalf("result of a forgotten goal: %+v %v, want UNKNOWN", res, err)
			}
			if _, err := again.SendGoal(ctx, id, r.goal(t)); !errors.Is(err, action.ErrDuplicateGoal) {
				t.Fatalf("send of a forgotten goal: %v, want ErrDuplicateGoal", err)
			}
			r.checkSentOnce(t, id)
		})
	}
}

// TestEachVendorsActionServerRefusesTheOtherDialectLoudly is the control
// for the action tests: send_goal framed in the wrong dialect ends the
// server MALFORMED, so the tests above, where no server complained,
// framed every request right.
func TestEachVendorsActionServerRefusesTheOtherDialectLoudly(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range actionServers(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			r := startAction(t, ns, p, v, 145+i, "--outcome", "hold")
			wrong := service.Cyclone
			if service.DialectOf(v.id) == service.Cyclone {
				wrong = service.FastDDS
			}
			c, err := action.NewClient(r.part, r.set, actionName, fjt, service.Options{Dialect: wrong})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.SendGoal(servicetest.Timeout(t, 3*time.Second), uuidOf(12), r.goal(t)); err == nil {
				t.Fatal("a goal in the wrong dialect was answered")
			}
			r.server.Wait(servicetest.Timeout(t, 10*time.Second))
			if _, ok := r.server.Malformed(); !ok {
				t.Fatalf("server took a %v send_goal without complaint: %s", wrong, r.server.Stderr())
			}
		})
	}
}
