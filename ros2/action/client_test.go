package action

import (
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the package's tests inside a network namespace it made.
func TestMain(m *testing.M) { netns.Main(m) }

const actionName = "/arm/follow_joint_trajectory"

type rig struct {
	set    *msgs.Set
	server *scriptedServer
	sp, cp *rtps.Participant
	client *Client
}

func newRig(t *testing.T, domain int) *rig {
	t.Helper()
	netns.Require(t)
	r := &rig{}
	var err error
	if r.set, err = msgs.Load(msgs.Jazzy); err != nil {
		t.Fatal(err)
	}
	r.sp, r.cp = servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	r.server = newScriptedServer(t, r.sp, r.set, actionName)
	r.client = r.newClient(t)
	return r
}

func (r *rig) newClient(t *testing.T) *Client {
	t.Helper()
	c, err := NewClient(r.cp, r.set, actionName, fjt, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func (r *rig) goal(t *testing.T, script string) *cdr.Message {
	t.Helper()
	g, err := r.set.Message(fjt + "_Goal")
	if err != nil {
		t.Fatal(err)
	}
	g.Get("trajectory").(*cdr.Message).Set("joint_names", []string{script})
	return g
}

func TestGoalRunsToItsResultWithFeedbackAndStatus(t *testing.T) {
	r := newRig(t, 70)
	r.checkSucceeds(t, r.client, GoalID{1, 2, 3})
}

// checkSucceeds sends a "succeed" goal through c and checks its feedback,
// its result and its final status; it returns the acceptance stamp.
func (r *rig) checkSucceeds(t *testing.T, c *Client, id GoalID) time.Time {
	t.Helper()
	stamp, err := c.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "succeed"))
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := c.Feedback(id)
	select {
	case m := <-fb:
		if names := m.Get("joint_names").([]string); names[0] != "succeed" {
			t.Fatalf("feedback %v", names)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no feedback")
	}
	res, err := c.Result(servicetest.Timeout(t, 10*time.Second), id)
	if err != nil || res.Status.Name != "SUCCEEDED" || res.Status.Code != 4 || res.Message.Get("error_string") != "done" {
		t.Fatalf("result %+v, %v", res, err)
	}
	st, err := c.WaitStatus(servicetest.Timeout(t, 5*time.Second), id, Status.Terminal)
	if err != nil || st.Name != "SUCCEEDED" {
		t.Fatalf("status %v, %v", st, err)
	}
	return stamp
}

func TestSecondSendOfAUUIDIsRefusedAndNeverReachesTheServer(t *testing.T) {
	r := newRig(t, 71)
	id := GoalID{9}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "hold")); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"hold", "succeed"} {
		if _, err := r.client.SendGoal(servicetest.Timeout(t, 2*time.Second), id, r.goal(t, script)); !errors.Is(err, ErrDuplicateGoal) {
			t.Fatalf("second send: %v, want ErrDuplicateGoal", err)
		}
	}
	rejected := GoalID{10}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), rejected, r.goal(t, "reject")); !errors.Is(err, ErrRejected) {
		t.Fatalf("rejected goal: %v", err)
	}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 2*time.Second), rejected, r.goal(t, "succeed")); !errors.Is(err, ErrDuplicateGoal) {
		t.Fatalf("resend of a rejected UUID: %v, want ErrDuplicateGoal", err)
	}
	if st, err := r.client.WaitStatus(servicetest.Timeout(t, time.Second), rejected, Status.Terminal); err != nil || st.Name != "REJECTED" {
		t.Fatalf("a rejected goal's wait for its end: %v %v", st, err)
	}
	if _, err := r.client.Attach(servicetest.Timeout(t, 2*time.Second), id); !errors.Is(err, ErrDuplicateGoal) {
		t.Fatalf("attach of a sent UUID: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := r.server.timesSeen(id); n != 1 {
		t.Fatalf("server saw the UUID %d times", n)
	}
}

func TestUUIDWhoseSendFoundNoServerCanBeSentLater(t *testing.T) {
	netns.Require(t)
	set, _ := msgs.Load(msgs.Jazzy)
	cp := servicetest.Participant(t, 72)
	c, err := NewClient(cp, set, actionName, fjt, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := &rig{set: set}
	id := GoalID{7}
	if _, err := c.SendGoal(servicetest.Timeout(t, 300*time.Millisecond), id, r.goal(t, "succeed")); !errors.Is(err, service.ErrNoServer) {
		t.Fatalf("%v, want ErrNoServer", err)
	}
	srv := newScriptedServer(t, servicetest.Participant(t, 72), set, actionName)
	if _, err := c.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "succeed")); err != nil {
		t.Fatalf("nothing was sent before, yet: %v", err)
	}
	if n := srv.timesSeen(id); n != 1 {
		t.Fatalf("server saw it %d times", n)
	}
}

func TestCancelOneAndCancelAllEndGoalsCanceled(t *testing.T) {
	r := newRig(t, 73)
	ids := []GoalID{{1}, {2}, {3}}
	for _, id := range ids {
		if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "hold")); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.client.Cancel(servicetest.Timeout(t, 10*time.Second), ids[0])
	if err != nil || res.Code != 0 || len(res.Canceling) != 1 || res.Canceling[0] != ids[0] {
		t.Fatalf("cancel one: %+v %v", res, err)
	}
	if res, err := r.client.CancelAll(servicetest.Timeout(t, 10*time.Second)); err != nil || len(res.Canceling) != 2 {
		t.Fatalf("cancel all: %+v %v", res, err)
	}
	for _, id := range ids {
		res, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), id)
		if err != nil || res.Status.Name != "CANCELED" {
			t.Fatalf("goal %x: %+v %v", id[:1], res.Status, err)
		}
	}
}

func TestServerLeavingMidGoalReportsTheGoalLost(t *testing.T) {
	r := newRig(t, 74)
	id := GoalID{4}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "hold")); err != nil {
		t.Fatal(err)
	}
	results := make(chan error, 1)
	go func() {
		_, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), id)
		results <- err
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	r.server.close()
	r.sp.Close() // goodbye, as a killed process's lease end would after 2 s
	st, err := r.client.WaitStatus(servicetest.Timeout(t, 5*time.Second), id, Status.Terminal)
	if !errors.Is(err, ErrLost) || !st.Lost {
		t.Fatalf("status %v, %v; want lost", st, err)
	}
	if err := <-results; !errors.Is(err, ErrLost) {
		t.Fatalf("result: %v, want ErrLost", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("loss took %v", d)
	}
}

func TestAttachAfterRestartFollowsTheGoalWithoutSendingIt(t *testing.T) {
	r := newRig(t, 75)
	id := GoalID{5}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "succeed")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.WaitStatus(servicetest.Timeout(t, 10*time.Second), id, Status.Terminal); err != nil {
		t.Fatal(err)
	}
	r.client.Close()
	again := r.newClient(t) // the bridge restarted
	st, err := again.Attach(servicetest.Timeout(t, 10*time.Second), id)
	if err != nil || st.Name != "SUCCEEDED" {
		t.Fatalf("attach: %v %v", st, err)
	}
	res, err := again.Result(servicetest.Timeout(t, 10*time.Second), id)
	if err != nil || res.Status.Name != "SUCCEEDED" {
		t.Fatalf("result: %+v %v", res, err)
	}
	forgotten := GoalID{6}
	if st, err := again.Attach(servicetest.Timeout(t, 10*time.Second), forgotten); err != nil || st.Name != "UNKNOWN" {
		t.Fatalf("attach of a goal the server never had: %v %v", st, err)
	}
	if res, err := again.Result(servicetest.Timeout(t, 10*time.Second), forgotten); err != nil || res.Status.Name != "UNKNOWN" {
		t.Fatalf("result of a goal the server never had: %+v %v", res, err)
	}
	if _, err := again.SendGoal(servicetest.Timeout(t, time.Second), id, r.goal(t, "succeed")); !errors.Is(err, ErrDuplicateGoal) {
		t.Fatalf("send after attach: %v", err)
	}
	if n := r.server.timesSeen(id); n != 1 {
		t.Fatalf("server saw the UUID %d times", n)
	}
}

func TestPreemptedGoalEndsAsTheServerReportsIt(t *testing.T) {
	r := newRig(t, 76)
	first, second := GoalID{0xa}, GoalID{0xb}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), first, r.goal(t, "hold")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), second, r.goal(t, "preempt")); err != nil {
		t.Fatal(err)
	}
	st, err := r.client.WaitStatus(servicetest.Timeout(t, 10*time.Second), first, Status.Terminal)
	if err != nil || st.Name != "ABORTED" || st.Code != 6 {
		t.Fatalf("preempted goal: %v %v, want ABORTED", st, err)
	}
	res, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), first)
	if err != nil || res.Status.Name != "ABORTED" || res.Message.Get("error_code") != int32(-1) {
		t.Fatalf("result %+v %v", res, err)
	}
	if st, _ := r.client.Status(second); st.Terminal() || st.Lost {
		t.Fatalf("the preempting goal is %v", st)
	}
}
