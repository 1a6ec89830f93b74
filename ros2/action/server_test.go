package action

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// robot is the owner of a Server in these tests, scripted by the goal's
// first joint name as scriptedServer is: "succeed" sends three feedbacks
// then succeeds, "hold" runs until canceled, "reject" is refused.
type robot struct {
	t      *testing.T
	set    *msgs.Set
	mu     sync.Mutex
	runs   map[GoalID]int
	refuse bool // refuse cancels
	wg     sync.WaitGroup
	stop   chan struct{}
}

func newRobot(t *testing.T, set *msgs.Set) *robot {
	r := &robot{t: t, set: set, runs: map[GoalID]int{}, stop: make(chan struct{})}
	t.Cleanup(func() { close(r.stop); r.wg.Wait() })
	return r
}

func script(goal *cdr.Message) string {
	joints, _ := goal.Get("trajectory").(*cdr.Message).Get("joint_names").([]string)
	if len(joints) == 0 {
		return ""
	}
	return joints[0]
}

func (r *robot) handlers() Handlers {
	return Handlers{
		Goal: func(id GoalID, goal *cdr.Message) GoalResponse {
			if script(goal) == "reject" {
				return Reject
			}
			return AcceptAndExecute
		},
		Accepted: func(g *ServerGoal) {
			r.mu.Lock()
			r.runs[g.ID()]++
			r.mu.Unlock()
			r.wg.Go(func() { r.run(g) })
		},
		Cancel: func(*ServerGoal) bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return !r.refuse
		},
	}
}

func (r *robot) result(code int32, msg string) *cdr.Message {
	res, _ := r.set.Message(fjt + "_Result")
	res.Set("error_code", code)
	res.Set("error_string", msg)
	return res
}

func (r *robot) run(g *ServerGoal) {
	s := script(g.Goal())
	for i := range 3 {
		fb, _ := r.set.Message(fjt + "_Feedback")
		fb.Set("joint_names", []string{s, string(rune('a' + i))})
		if err := g.Feedback(fb); err != nil && !errors.Is(err, ErrClosed) {
			r.t.Errorf("feedback: %v", err)
		}
		select {
		case <-time.After(30 * time.Millisecond):
		case <-g.Canceling():
			g.Canceled(r.result(0, "canceled"))
			return
		case <-r.stop:
			return
		}
	}
	if s == "succeed" {
		if err := g.Succeed(r.result(0, "done")); err != nil {
			r.t.Errorf("succeed: %v", err)
		}
		return
	}
	select {
	case <-g.Canceling():
		g.Canceled(r.result(0, "canceled"))
	case <-r.stop:
	}
}

func (r *robot) timesRun(id GoalID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs[id]
}

// serverRig is our Server and our Client of it on two participants.
type serverRig struct {
	rig
	robot  *robot
	served *Server
	dups   chan GoalID
}

// newServerRig serves h, or the robot's handlers when h has no Accepted.
func newServerRig(t *testing.T, domain int, d service.Dialect, o ServerOptions, h Handlers) *serverRig {
	t.Helper()
	netns.Require(t)
	r := &serverRig{dups: make(chan GoalID, 4)}
	var err error
	if r.set, err = msgs.Load(msgs.Jazzy); err != nil {
		t.Fatal(err)
	}
	r.sp, r.cp = servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	r.robot = newRobot(t, r.set)
	o.Service.Dialect = d
	o.OnDuplicate = func(id GoalID) { r.dups <- id }
	if h.Accepted == nil {
		h = r.robot.handlers()
	}
	if r.served, err = NewServer(r.sp, r.set, actionName, fjt, h, o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.served.Close() })
	r.client = r.newDialectClient(t, d)
	return r
}

func (r *serverRig) newDialectClient(t *testing.T, d service.Dialect) *Client {
	t.Helper()
	c, err := NewClient(r.cp, r.set, actionName, fjt, service.Options{Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestServedGoalGetsFeedbackAndResultInBothDialects(t *testing.T) {
	for i, d := range []service.Dialect{service.Cyclone, service.FastDDS} {
		t.Run(d.String(), func(t *testing.T) {
			r := newServerRig(t, 90+i, d, ServerOptions{}, Handlers{})
			if stamp := r.checkSucceeds(t, r.client, GoalID{0xd, byte(i)}); time.Since(stamp) > 5*time.Second {
				t.Fatalf("accepted at %v", stamp)
			}
			if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), GoalID{0xe, byte(i)}, r.goal(t, "reject")); !errors.Is(err, ErrRejected) {
				t.Fatalf("a goal the owner refuses: %v", err)
			}
		})
	}
}

func TestDuplicateUUIDIsReportedAndNeverRunAgain(t *testing.T) {
	for i, reject := range []bool{false, true} {
		r := newServerRig(t, 92+i, service.Auto, ServerOptions{RejectDuplicates: reject}, Handlers{})
		id := GoalID{0xdd}
		if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "hold")); err != nil {
			t.Fatal(err)
		}
		// A second client knows nothing of the first one's UUIDs: the
		// fault the server must survive.
		other := r.newDialectClient(t, service.Auto)
		_, err := other.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "succeed"))
		if reject && !errors.Is(err, ErrRejected) || !reject && err != nil {
			t.Fatalf("RejectDuplicates %v: duplicate answered %v", reject, err)
		}
		select {
		case got := <-r.dups:
			if got != id {
				t.Fatalf("OnDuplicate told of %x", got)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("OnDuplicate not called")
		}
		if n, runs := r.served.Duplicates(), r.robot.timesRun(id); n != 1 || runs != 1 {
			t.Fatalf("duplicates %d, runs %d", n, runs)
		}
		if st := r.served.Goals()[0].Status(); st.Name != "EXECUTING" {
			t.Fatalf("the held goal is %v after its duplicate", st)
		}
	}
}

func TestGetResultWaitsForItsGoalOnlyAndForgottenGoalsAreUnknown(t *testing.T) {
	r := newServerRig(t, 94, service.Auto, ServerOptions{ResultTimeout: 400 * time.Millisecond}, Handlers{})
	held, quick := GoalID{1}, GoalID{2}
	for _, g := range []struct {
		id     GoalID
		script string
	}{{held, "hold"}, {quick, "succeed"}} {
		if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), g.id, r.goal(t, g.script)); err != nil {
			t.Fatal(err)
		}
	}
	heldResult := make(chan Result, 1)
	go func() {
		res, _ := r.client.Result(servicetest.Timeout(t, 20*time.Second), held)
		heldResult <- res
	}()
	// The held goal's pending get_result must not hold up another's.
	res, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), quick)
	if err != nil || res.Status.Name != "SUCCEEDED" {
		t.Fatalf("quick goal: %+v %v", res, err)
	}
	select {
	case res := <-heldResult:
		t.Fatalf("a live goal's result came: %+v", res)
	case <-time.After(200 * time.Millisecond):
	}
	if c, err := r.client.Cancel(servicetest.Timeout(t, 10*time.Second), held); err != nil || c.Code != 0 || len(c.Canceling) != 1 {
		t.Fatalf("cancel %+v %v", c, err)
	}
	select {
	case res := <-heldResult:
		if res.Status.Name != "CANCELED" || res.Message.Get("error_string") != "canceled" {
			t.Fatalf("held goal: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held goal's result never came")
	}
	time.Sleep(time.Second) // beyond the result timeout of both
	if res, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), quick); err != nil || res.Status.Name != "UNKNOWN" {
		t.Fatalf("forgotten goal: %+v %v", res, err)
	}
	if n := len(r.served.Goals()); n != 0 {
		t.Fatalf("%d goals still held", n)
	}
}

// TestForgottenGoalStaysInTheLastStatusUnlessStatusOnExpiry: rclcpp
// publishes no status when it forgets a goal, so its last status still
// lists the goal ended.
func TestForgottenGoalStaysInTheLastStatusUnlessStatusOnExpiry(t *testing.T) {
	for i, tc := range []struct {
		onExpiry bool
		want     string
	}{{false, "SUCCEEDED"}, {true, "UNKNOWN"}} {
		r := newServerRig(t, 86+i, service.Auto, ServerOptions{ResultTimeout: 200 * time.Millisecond, StatusOnExpiry: tc.onExpiry}, Handlers{})
		id := GoalID{3}
		r.checkSucceeds(t, r.client, id)
		time.Sleep(500 * time.Millisecond)
		if res, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), id); err != nil || res.Status.Name != "UNKNOWN" {
			t.Fatalf("result of a forgotten goal: %+v %v", res, err)
		}
		again := r.newDialectClient(t, service.Auto)
		if st, err := again.Attach(servicetest.Timeout(t, 10*time.Second), id); err != nil || st.Name != tc.want {
			t.Fatalf("StatusOnExpiry %v: status of a forgotten goal %v %v, want %s", tc.onExpiry, st, err, tc.want)
		}
	}
}

func TestServerHoldsAtMostMaxGoalsForgettingEndedOnesFirst(t *testing.T) {
	r := newServerRig(t, 95, service.Auto, ServerOptions{MaxGoals: 2, ResultTimeout: -1}, Handlers{})
	ctx := servicetest.Timeout(t, 20*time.Second)
	for i, s := range []string{"succeed", "hold"} {
		if _, err := r.client.SendGoal(ctx, GoalID{byte(i + 1)}, r.goal(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.client.WaitStatus(ctx, GoalID{1}, Status.Terminal); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.SendGoal(ctx, GoalID{3}, r.goal(t, "hold")); err != nil {
		t.Fatalf("a goal in place of an ended one: %v", err)
	}
	if _, err := r.client.SendGoal(ctx, GoalID{4}, r.goal(t, "hold")); !errors.Is(err, ErrRejected) {
		t.Fatalf("a goal beyond two live ones: %v", err)
	}
	var held []GoalID
	for _, g := range r.served.Goals() {
		held = append(held, g.ID())
	}
	if len(held) != 2 || held[0] != (GoalID{2}) || held[1] != (GoalID{3}) {
		t.Fatalf("held %x", held)
	}
}

// cancelRequest is a CancelGoal request for id and stamp.
func cancelRequest(t *testing.T, set *msgs.Set, id GoalID, stamp time.Time) *cdr.Message {
	t.Helper()
	ty, err := service.ResolveTypes(set, "action_msgs/srv/CancelGoal")
	if err != nil {
		t.Fatal(err)
	}
	req := cdr.Zero(ty.Request)
	info := req.Get("goal_info").(*cdr.Message)
	info.Set("goal_id", uuidMessage(info.Type, id))
	if !stamp.IsZero() {
		info.Set("stamp", timeMessage(info.Type, "stamp", stamp))
	}
	return req
}

// cancel runs a cancel request through the server's handler.
func cancel(t *testing.T, s *Server, req *cdr.Message) (int8, []GoalID) {
	t.Helper()
	var rep *cdr.Message
	s.handleCancel(context.Background(), req, func(m *cdr.Message) error { rep = m; return nil })
	code := rep.Get("return_code").(int8)
	var ids []GoalID
	for _, gi := range rep.Get("goals_canceling").([]*cdr.Message) {
		ids = append(ids, goalIDOf(gi))
	}
	return code, ids
}

func TestCancelAnswersAsRclAction(t *testing.T) {
	r := newServerRig(t, 96, service.Auto, ServerOptions{}, Handlers{})
	ctx := servicetest.Timeout(t, 20*time.Second)
	send := func(id GoalID, s string) time.Time {
		t.Helper()
		if _, err := r.client.SendGoal(ctx, id, r.goal(t, s)); err != nil {
			t.Fatal(err)
		}
		// The server lists a goal once its accept reply is out, which may
		// be just after the client read that reply.
		for {
			for _, g := range r.served.Goals() {
				if g.ID() == id {
					return g.Stamp()
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("goal %x never listed by the server", id[:])
			}
			time.Sleep(time.Millisecond)
		}
	}
	first := send(GoalID{1}, "hold")
	send(GoalID{2}, "hold")
	send(GoalID{3}, "succeed")
	if _, err := r.client.WaitStatus(ctx, GoalID{3}, Status.Terminal); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		id     GoalID
		stamp  time.Time
		refuse bool
		code   int8
		want   []GoalID
	}{
		{"unknown goal", GoalID{9}, time.Time{}, false, cancelUnknownID, nil},
		{"ended goal", GoalID{3}, time.Time{}, false, cancelTerminated, nil},
		{"owner refuses", GoalID{1}, time.Time{}, true, cancelRejected, nil},
		{"by time", GoalID{}, first, false, cancelNone, []GoalID{{1}}},
		{"already canceling", GoalID{1}, time.Time{}, false, cancelTerminated, nil},
		{"all", GoalID{}, time.Time{}, false, cancelNone, []GoalID{{2}}},
		{"nothing left", GoalID{}, time.Time{}, false, cancelNone, nil},
	} {
		r.robot.mu.Lock()
		r.robot.refuse = tc.refuse
		r.robot.mu.Unlock()
		code, ids := cancel(t, r.served, cancelRequest(t, r.set, tc.id, tc.stamp))
		if code != tc.code || len(ids) != len(tc.want) || len(ids) > 0 && ids[0] != tc.want[0] {
			t.Errorf("%s: code %d canceling %x, want %d %x", tc.name, code, ids, tc.code, tc.want)
		}
	}
	for _, id := range []GoalID{{1}, {2}} {
		if res, err := r.client.Result(ctx, id); err != nil || res.Status.Name != "CANCELED" {
			t.Errorf("goal %x: %+v %v", id[:1], res, err)
		}
	}
}

func TestGoalStatesMoveOnlyAsRclActionAllows(t *testing.T) {
	got := make(chan *ServerGoal, 1)
	r := newServerRig(t, 97, service.Auto, ServerOptions{}, Handlers{
		Goal:     func(GoalID, *cdr.Message) GoalResponse { return AcceptAndDefer },
		Accepted: func(g *ServerGoal) { got <- g },
	})
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), GoalID{1}, r.goal(t, "x")); err != nil {
		t.Fatal(err)
	}
	deferred := <-got
	steps := []struct {
		name string
		do   func() error
		ok   bool
		want string
	}{
		{"succeed before execute", func() error { return deferred.Succeed(nil) }, false, "ACCEPTED"},
		{"canceled without a cancel", func() error { return deferred.Canceled(nil) }, false, "ACCEPTED"},
		{"execute", deferred.Execute, true, "EXECUTING"},
		{"execute twice", deferred.Execute, false, "EXECUTING"},
		{"abort", func() error { return deferred.Abort(nil) }, true, "ABORTED"},
		{"succeed after the end", func() error { return deferred.Succeed(nil) }, false, "ABORTED"},
		{"feedback after the end", func() error { fb, _ := r.set.Message(fjt + "_Feedback"); return deferred.Feedback(fb) }, false, "ABORTED"},
	}
	for _, s := range steps {
		err := s.do()
		if (err == nil) != s.ok || !s.ok && !errors.Is(err, ErrTransition) {
			t.Errorf("%s: %v", s.name, err)
		}
		if st := deferred.Status(); st.Name != s.want {
			t.Errorf("%s: now %v, want %s", s.name, st, s.want)
		}
	}
	if err := deferred.Feedback(r.robot.result(0, "")); err == nil || errors.Is(err, ErrTransition) {
		t.Errorf("a Result published as feedback: %v", err)
	}
	if err := deferred.Abandon(); !errors.Is(err, ErrTransition) {
		t.Errorf("abandon after the end: %v", err)
	}
}

func TestAbandonedGoalEndsCanceledWithAZeroResultAsRclcpp(t *testing.T) {
	got := make(chan *ServerGoal, 1)
	r := newServerRig(t, 89, service.Auto, ServerOptions{}, Handlers{Accepted: func(g *ServerGoal) { got <- g }})
	id := GoalID{0xab}
	if _, err := r.client.SendGoal(servicetest.Timeout(t, 10*time.Second), id, r.goal(t, "x")); err != nil {
		t.Fatal(err)
	}
	g := <-got
	if err := g.Abandon(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.Canceling():
	default:
		t.Error("an abandoned goal's Canceling is open")
	}
	res, err := r.client.Result(servicetest.Timeout(t, 10*time.Second), id)
	if err != nil || res.Status.Name != "CANCELED" || res.Message.Get("error_code") != int32(0) || res.Message.Get("error_string") != "" {
		t.Fatalf("result %+v %v", res, err)
	}
}

// lockedBuffer is a log sink tests can read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestAcceptedGoalWhoseReplyCannotBeSentNeverRuns(t *testing.T) {
	var logs lockedBuffer
	r := newServerRig(t, 98, service.Auto, ServerOptions{Service: service.Options{
		ReplyWait: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))}}, Handlers{})
	ctx := servicetest.Timeout(t, 20*time.Second)
	// A send_goal whose reply reader does not exist, as from a client
	// gone before its reply: rmw drops such a reply after its wait.
	ty, err := service.ResolveTypes(r.set, fjt+"_SendGoal")
	if err != nil {
		t.Fatal(err)
	}
	rq, _, _ := names.ServiceDDS(actionName + "/_action/send_goal")
	w, err := r.cp.NewWriter(rtps.EndpointData{Topic: rq, Type: ty.RequestDDS, QoS: qos.Services.QoS})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	id := GoalID{0x77}
	req := cdr.Zero(ty.Request)
	req.Set("goal_id", uuidMessage(ty.Request, id))
	req.Set("goal", r.goal(t, "succeed"))
	b, err := cdr.Encode(req, cdr.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	ghost := wire.GUID{Prefix: r.cp.GUID().Prefix, Entity: 0x00ff0004}
	if err := w.Write(cdr.Pad(b), service.SampleIdentity{Writer: ghost}.InlineQoS()); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(logs.String(), "goal dropped") {
		select {
		case <-ctx.Done():
			t.Fatalf("the request was never refused: %s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n, held := r.robot.timesRun(id), len(r.served.Goals()); n != 0 || held != 0 {
		t.Fatalf("a goal whose acceptance never left ran %d times, %d goals held", n, held)
	}
	// Not held, so the same UUID later is a new goal, not a duplicate.
	r.checkSucceeds(t, r.client, id)
	if n := r.served.Duplicates(); n != 0 {
		t.Fatalf("%d duplicates", n)
	}
}

func TestServerAnnouncesItsEightEndpointsAndWithdrawsThemOnClose(t *testing.T) {
	netns.Require(t)
	set, _ := msgs.Load(msgs.Jazzy)
	live := map[wire.GUID]string{}
	hook := func(e rtps.EndpointData, added bool) error {
		if added {
			live[e.GUID] = e.Topic
		} else {
			delete(live, e.GUID)
		}
		return nil
	}
	s, err := NewServer(servicetest.Participant(t, 88), set, actionName, fjt, Handlers{Accepted: func(*ServerGoal) {}},
		ServerOptions{Service: service.Options{Endpoints: hook}})
	if err != nil {
		t.Fatal(err)
	}
	topics := map[string]bool{}
	for _, topic := range live {
		topics[topic] = true
	}
	for _, want := range []string{"rq/arm/follow_joint_trajectory/_action/send_goalRequest", "rr/arm/follow_joint_trajectory/_action/get_resultReply",
		"rt/arm/follow_joint_trajectory/_action/status", "rt/arm/follow_joint_trajectory/_action/feedback"} {
		if !topics[want] {
			t.Errorf("%s not announced: %v", want, topics)
		}
	}
	if len(live) != 8 {
		t.Errorf("%d endpoints announced, want 8", len(live))
	}
	if err := s.Close(); err != nil || len(live) != 0 {
		t.Fatalf("close: %v, %d endpoints left", err, len(live))
	}
}
