package ros1

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros1"
)

// These tests drive the actionlib client with a fake wire and a fake clock:
// the protocol properties, without ROS.

type fakeWire struct {
	mu       sync.Mutex
	subs     int
	asked    int      // goalSubscribers calls
	log      []string // "goal <id>" / "cancel <id>", in write order
	onGoal   func(id string)
	onCancel func() // a publisher slow to take the message
}

func (w *fakeWire) writeGoal(m any) {
	id := goalIDOf(m)
	if w.onGoal != nil {
		w.onGoal(id)
	}
	w.mu.Lock()
	w.log = append(w.log, "goal "+id)
	w.mu.Unlock()
}

func (w *fakeWire) writeCancel(id actionlib_msgs.GoalID) {
	if w.onCancel != nil {
		w.onCancel()
	}
	w.mu.Lock()
	w.log = append(w.log, "cancel "+id.Id)
	w.mu.Unlock()
}

func (w *fakeWire) goalSubscribers() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked++
	return w.subs, nil
}

func (w *fakeWire) askedCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked
}

func (w *fakeWire) setSubs(n int) {
	w.mu.Lock()
	w.subs = n
	w.mu.Unlock()
}

func (w *fakeWire) written() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log...)
}

func goalIDOf(m any) string {
	switch g := m.(type) {
	case *msgs.FollowJointTrajectoryActionGoal:
		return g.GoalId.Id
	case *msgs.GripperCommandActionGoal:
		return g.GoalId.Id
	case *msgs.MoveBaseActionGoal:
		return g.GoalId.Id
	}
	return fmt.Sprintf("%T", m)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type updates struct {
	mu  sync.Mutex
	all []actuators.GoalUpdate
}

func (u *updates) push(x actuators.GoalUpdate) {
	u.mu.Lock()
	u.all = append(u.all, x)
	u.mu.Unlock()
}

func (u *updates) snapshot() []actuators.GoalUpdate {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]actuators.GoalUpdate(nil), u.all...)
}

func (u *updates) states(id string) []actuators.GoalState {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []actuators.GoalState
	for _, x := range u.all {
		if x.GoalID == id {
			out = append(out, x.State)
		}
	}
	return out
}

func (u *updates) last(id string) actuators.GoalUpdate {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i := len(u.all) - 1; i >= 0; i-- {
		if u.all[i].GoalID == id {
			return u.all[i]
		}
	}
	return actuators.GoalUpdate{}
}

func newTestClient(t *testing.T, kind actuators.Kind) (*actionClient, *fakeWire, *fakeClock, *updates) {
	t.Helper()
	u := &updates{}
	clock := &fakeClock{t: time.Unix(1000, 0)}
	c := newActionClient(config.ActuatorConfig{Name: "arm", Kind: kind, Action: "/arm_controller/follow_joint_trajectory",
		Joints: []string{"j1"}, StatusGrace: config.Duration(2 * time.Second), GoalConnectTimeout: config.Duration(3 * time.Second)}, u.push)
	c.now = clock.now
	if kind == actuators.KindArm {
		c.holdGoal = holdGoal([]string{"j1"})
	}
	w := &fakeWire{subs: 1}
	c.setWire(w)
	c.onStatus(nil) // the server is alive
	return c, w, clock, u
}

func armBuild(id actionlib_msgs.GoalID) any {
	return armGoal(id, msgs.FollowJointTrajectoryGoal{})
}

func status(id string, st uint8) actionlib_msgs.GoalStatus {
	return actionlib_msgs.GoalStatus{GoalId: actionlib_msgs.GoalID{Id: id}, Status: st}
}

func equal(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestGoalIsPublishedOnlyOnceItsTopicHasASubscriber(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	w.setSubs(0)
	done := make(chan error, 1)
	go func() { done <- c.send(context.Background(), "m1", armBuild, nil) }()
	time.Sleep(300 * time.Millisecond)
	if got := w.written(); len(got) != 0 {
		t.Fatalf("written before any subscriber: %v", got)
	}
	w.setSubs(1)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := w.written(); !equal(got, []string{"goal m1"}) {
		t.Errorf("written = %v", got)
	}
}

// prepared begins a count for the next send and waits until it is done.
func prepared(c *actionClient) {
	c.prepare()
	c.mu.Lock()
	p := c.prepared
	c.mu.Unlock()
	<-p.done
}

func TestASendTakesAFreshPreparedCountThatSawASubscriber(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	prepared(c)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); !equal(got, []string{"goal m1"}) {
		t.Errorf("written = %v", got)
	}
	if n := w.askedCount(); n != 1 {
		t.Errorf("the wire was asked %d times, want once (the prepared count)", n)
	}
}

func TestAPreparedCountOlderThanItsBoundNeverLetsAGoalOut(t *testing.T) {
	c, w, clock, _ := newTestClient(t, actuators.KindArm)
	c.connectTimeout = 200 * time.Millisecond
	prepared(c) // sees the subscriber
	clock.advance(preparedFresh + time.Millisecond)
	c.onStatus(nil) // the server's status is fresh: only the count is stale
	w.setSubs(0)    // the server left meanwhile
	err := c.send(context.Background(), "m1", armBuild, nil)
	if !errors.Is(err, actuators.ErrNotConnected) {
		t.Fatalf("send = %v, want actuators.ErrNotConnected", err)
	}
	if got := w.written(); len(got) != 0 {
		t.Errorf("written on a stale count: %v", got)
	}
}

func TestAPreparedCountOfAReplacedWireNeverLetsAGoalOut(t *testing.T) {
	c, _, _, _ := newTestClient(t, actuators.KindArm)
	c.connectTimeout = 200 * time.Millisecond
	prepared(c) // on the old wire, which had a subscriber
	w2 := &fakeWire{}
	c.setWire(w2) // a new node incarnation, nobody subscribed yet
	err := c.send(context.Background(), "m1", armBuild, nil)
	if !errors.Is(err, actuators.ErrNotConnected) {
		t.Fatalf("send = %v, want actuators.ErrNotConnected", err)
	}
	if got := w2.written(); len(got) != 0 {
		t.Errorf("written on the old wire's count: %v", got)
	}
}

func TestAPreparedCountThatSawNoSubscriberIsAskedAgain(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	w.setSubs(0)
	prepared(c)
	w.setSubs(1)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); !equal(got, []string{"goal m1"}) {
		t.Errorf("written = %v", got)
	}
}

func TestSendWithoutSubscriberFailsAndLeavesTheIdUnused(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	c.connectTimeout = 200 * time.Millisecond
	w.setSubs(0)
	err := c.send(context.Background(), "m1", armBuild, nil)
	if !errors.Is(err, actuators.ErrNotConnected) {
		t.Fatalf("send = %v, want actuators.ErrNotConnected", err)
	}
	w.setSubs(1)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Errorf("second send of a never-published id: %v", err)
	}
}

func TestGoalIdIsNeverSentTwice(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.send(context.Background(), "m1", armBuild, nil); !errors.Is(err, actuators.ErrDuplicateGoal) {
		t.Errorf("second send = %v, want actuators.ErrDuplicateGoal", err)
	}
	if got := w.written(); !equal(got, []string{"goal m1"}) {
		t.Errorf("written = %v", got)
	}
}

func TestCancelWhileWaitingForConnectionPublishesNothing(t *testing.T) {
	c, w, _, u := newTestClient(t, actuators.KindArm)
	w.setSubs(0)
	done := make(chan error, 1)
	go func() { done <- c.send(context.Background(), "m1", armBuild, nil) }()
	time.Sleep(100 * time.Millisecond)
	if err := c.cancel("m1"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, actuators.ErrCanceledBeforeSend) {
		t.Fatalf("send = %v, want actuators.ErrCanceledBeforeSend", err)
	}
	w.setSubs(1)
	time.Sleep(100 * time.Millisecond)
	if got := w.written(); len(got) != 0 {
		t.Errorf("written = %v, want nothing (neither goal nor cancel)", got)
	}
	if got := u.states("m1"); !equal(got, []actuators.GoalState{actuators.GoalRecalled}) {
		t.Errorf("updates = %v, want [recalled]", got)
	}
}

func TestCancelDuringPublishIsSentRightAfterTheGoal(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	w.onGoal = func(id string) {
		if id == "m1" {
			if err := c.cancel("m1"); err != nil { // arrives while the goal is being written
				t.Error(err)
			}
		}
	}
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); !equal(got, []string{"goal m1", "cancel m1"}) {
		t.Errorf("written = %v, want the goal then its cancel", got)
	}
}

func TestStopAllDoesNotWaitForASendWaitingForItsConnection(t *testing.T) {
	c, w, _, _ := newTestClient(t, actuators.KindArm)
	c.connectTimeout = 30 * time.Second
	w.setSubs(0)
	done := make(chan error, 1)
	go func() { done <- c.send(context.Background(), "m1", armBuild, nil) }()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if err := c.cancelAll(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancelAll took %s", d)
	}
	select {
	case err := <-done:
		if !errors.Is(err, actuators.ErrCanceledBeforeSend) {
			t.Errorf("send = %v, want actuators.ErrCanceledBeforeSend", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the send kept waiting after StopAll")
	}
	if got := w.written(); !equal(got, []string{"cancel "}) {
		t.Errorf("written = %v, want only the cancel-all", got)
	}
}

func TestUpdatesOnlyOnStateChange(t *testing.T) {
	c, _, _, u := newTestClient(t, actuators.KindGripper)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	for _, st := range []uint8{0, 0, 1, 1, 1} {
		c.onStatus([]actionlib_msgs.GoalStatus{status("m1", st), status("other", 1)})
	}
	c.onResult(status("m1", 3), map[string]any{"ok": true})
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 3)})
	c.onResult(status("m1", 3), nil)
	if got := u.states("m1"); !equal(got, []actuators.GoalState{"pending", "active", "succeeded"}) {
		t.Errorf("states = %v", got)
	}
	if last := u.last("m1"); last.Result == nil || last.Progress != 1 {
		t.Errorf("final update = %+v, want the result and progress 1", last)
	}
	if got := u.states("other"); len(got) != 0 {
		t.Errorf("a goal we did not send was reported: %v", got)
	}
}

func TestTrackedGoalUnknownToTheServerIsLostAfterGrace(t *testing.T) {
	c, _, clock, u := newTestClient(t, actuators.KindArm)
	c.track("old")
	for range 9 { // 1.8 s of status lists without it
		clock.advance(200 * time.Millisecond)
		c.onStatus(nil)
	}
	if got := u.states("old"); len(got) != 0 {
		t.Fatalf("reported before the grace ran out: %v", got)
	}
	clock.advance(300 * time.Millisecond)
	c.onStatus(nil)
	if got := u.states("old"); !equal(got, []actuators.GoalState{actuators.GoalLost}) {
		t.Errorf("states = %v, want [lost]", got)
	}
	// If the server reports it after all, its real state follows.
	c.onStatus([]actionlib_msgs.GoalStatus{status("old", 1)})
	if got := u.states("old"); !equal(got, []actuators.GoalState{actuators.GoalLost, actuators.GoalActive}) {
		t.Errorf("states = %v, want lost then active", got)
	}
}

func TestGoalThatVanishesWithoutResultIsLost(t *testing.T) {
	c, _, clock, u := newTestClient(t, actuators.KindGripper)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 1)})
	for range 15 {
		clock.advance(200 * time.Millisecond)
		c.onStatus(nil)
	}
	if got := u.states("m1"); !equal(got, []actuators.GoalState{actuators.GoalActive, actuators.GoalLost}) {
		t.Errorf("states = %v, want active then lost", got)
	}
}

func TestNoStatusAtAllIsNotLostBeforeSilenceTimeout(t *testing.T) {
	c, _, clock, u := newTestClient(t, actuators.KindGripper)
	c.track("m1")
	clock.advance(c.silence - time.Second) // master restart: nothing arrives
	c.tick()
	if got := u.states("m1"); len(got) != 0 {
		t.Fatalf("reported during a silence shorter than %s: %v", c.silence, got)
	}
	clock.advance(2 * time.Second)
	c.tick()
	if got := u.states("m1"); !equal(got, []actuators.GoalState{actuators.GoalLost}) {
		t.Errorf("states = %v, want [lost] after %s of silence", got, c.silence)
	}
}

func TestFinalStateFromStatusWithoutResultIsReportedAfterAWait(t *testing.T) {
	c, _, clock, u := newTestClient(t, actuators.KindGripper)
	c.track("m1")
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 3)})
	c.tick()
	if got := u.states("m1"); len(got) != 0 {
		t.Fatalf("reported before its result could arrive: %v", got)
	}
	clock.advance(resultWait)
	c.tick()
	if got := u.states("m1"); !equal(got, []actuators.GoalState{actuators.GoalSucceeded}) {
		t.Errorf("states = %v", got)
	}
}

func TestAbortedArmGoalIsFollowedByAHoldGoal(t *testing.T) {
	c, w, _, u := newTestClient(t, actuators.KindArm)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 1)})
	c.onResult(status("m1", 4), nil)
	if got := w.written(); !equal(got, []string{"goal m1", "goal m1/hold"}) {
		t.Errorf("written = %v", got)
	}
	last := u.last("m1")
	if last.State != actuators.GoalAborted || !strings.Contains(last.Text, `"m1/hold"`) {
		t.Errorf("final update = %+v, want aborted naming the hold goal", last)
	}
	// The hold is not the bridge's goal: nothing is reported about it.
	c.onResult(status("m1/hold", 3), nil)
	if got := u.states("m1/hold"); len(got) != 0 {
		t.Errorf("hold goal reported: %v", got)
	}
}

func TestCancelIsResentUntilTheServerAcknowledgesIt(t *testing.T) {
	c, w, clock, _ := newTestClient(t, actuators.KindGripper)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 1)})
	if err := c.cancel("m1"); err != nil {
		t.Fatal(err)
	}
	clock.advance(cancelRetry)
	c.tick()
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 6)}) // preempting
	clock.advance(cancelRetry)
	c.tick()
	if got := w.written(); !equal(got, []string{"goal m1", "cancel m1", "cancel m1"}) {
		t.Errorf("written = %v, want one resend before the server showed preempting", got)
	}
}

func TestProgressFromFeedbackIsQuantizedAndMonotonic(t *testing.T) {
	c, _, _, u := newTestClient(t, actuators.KindArm)
	prog := func(fb any) (float64, bool) { return fb.(float64), true }
	if err := c.send(context.Background(), "m1", armBuild, prog); err != nil {
		t.Fatal(err)
	}
	c.onFeedback(status("m1", 1), 0.5) // before the status said active: ignored
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 1)})
	for _, p := range []float64{0.1, 0.101, 0.105, 0.09, 0.5} {
		c.onFeedback(status("m1", 1), p)
	}
	var got []float64
	u.mu.Lock()
	for _, x := range u.all {
		got = append(got, x.Progress)
	}
	u.mu.Unlock()
	if fmt.Sprintf("%.2f", got) != "[0.00 0.10 0.50]" {
		t.Errorf("progress updates = %.3f, want [0 0.1 0.5]", got)
	}
}

func TestHoldIsNotSentOverAnotherRunningGoal(t *testing.T) {
	c, w, _, u := newTestClient(t, actuators.KindArm)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 1), status("someone-else", 1)})
	c.onResult(status("m1", 4), nil)
	if got := w.written(); !equal(got, []string{"goal m1"}) {
		t.Errorf("written = %v, want no hold", got)
	}
	if last := u.last("m1"); last.State != actuators.GoalAborted || !strings.Contains(last.Text, `"someone-else"`) {
		t.Errorf("final update = %+v, want aborted explaining the hold was skipped", last)
	}
}

func TestTrackOfAKnownGoalRepeatsWhereItStands(t *testing.T) {
	c, _, _, u := newTestClient(t, actuators.KindGripper)
	if err := c.send(context.Background(), "m1", armBuild, nil); err != nil {
		t.Fatal(err)
	}
	c.onStatus([]actionlib_msgs.GoalStatus{status("m1", 1)})
	c.onResult(status("m1", 3), "r")
	c.track("m1")
	if got := u.states("m1"); !equal(got, []actuators.GoalState{actuators.GoalActive, actuators.GoalSucceeded, actuators.GoalSucceeded}) {
		t.Errorf("states = %v", got)
	}
	if last := u.last("m1"); last.Result != "r" {
		t.Errorf("repeated update %+v lacks the result", last)
	}
}

// One action's cancel-all that its publisher is slow to take does not hold
// back another's: StopAll sends them side by side.
func TestStopAllSendsEachActionsCancelWithoutWaitingForAnother(t *testing.T) {
	slow, slowWire, _, _ := newTestClient(t, actuators.KindArm)
	other, otherWire, _, _ := newTestClient(t, actuators.KindGripper)
	held, release := make(chan struct{}), make(chan struct{})
	slowWire.onCancel = func() { close(held); <-release }
	r := &Robot{clients: []*actionClient{slow, other}}
	done := make(chan error, 1)
	go func() { done <- r.StopAll(t.Context()) }()
	<-held
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(otherWire.written(), "cancel ") {
		if time.Now().After(deadline) {
			t.Fatal("the second action's cancel waited for the first's")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
