package action

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
)

// TestGoalToTwoServersIsRefusedNamingBothAndReachesNeither: two
// participants serve one action name (two robots on one domain without
// namespaces): a send naming none is refused, both named, and neither
// server sees the goal; a send naming one reaches that one alone.
func TestGoalToTwoServersIsRefusedNamingBothAndReachesNeither(t *testing.T) {
	r := newRig(t, 74)
	sp2 := servicetest.Participant(t, 74)
	second := newScriptedServer(t, sp2, r.set, actionName)
	ctx := servicetest.Timeout(t, 10*time.Second)
	if _, err := r.cp.WaitParticipants(ctx, func([]rtps.ParticipantData) bool { return len(r.client.Servers()) == 2 }); err != nil {
		t.Fatalf("servers %v: %v", r.client.Servers(), err)
	}
	id := GoalID{7, 4}
	_, err := r.client.SendGoal(ctx, id, r.goal(t, "succeed"))
	var amb *service.AmbiguousError
	if !errors.Is(err, service.ErrAmbiguousServer) || !errors.As(err, &amb) {
		t.Fatalf("%v, want ErrAmbiguousServer", err)
	}
	if !slices.Contains(amb.Servers, r.sp.GUID().Prefix) || !slices.Contains(amb.Servers, sp2.GUID().Prefix) {
		t.Fatalf("refusal names %v, want %v and %v", amb.Servers, r.sp.GUID().Prefix, sp2.GUID().Prefix)
	}
	// Nothing was sent: the id is free, and the one named gets it alone.
	if _, err := r.client.SendGoalTo(ctx, sp2.GUID().Prefix, id, r.goal(t, "succeed")); err != nil {
		t.Fatal(err)
	}
	res, err := r.client.Result(ctx, id)
	if err != nil || res.Status.Name != "SUCCEEDED" {
		t.Fatalf("result %+v, %v", res, err)
	}
	if got := r.client.Server(id); got != sp2.GUID().Prefix {
		t.Fatalf("goal pinned to %v, want %v", got, sp2.GUID().Prefix)
	}
	time.Sleep(200 * time.Millisecond) // a goal to the other would have arrived by now
	if a, b := r.server.timesSeen(id), second.timesSeen(id); a != 0 || b != 1 {
		t.Fatalf("servers saw the goal %d and %d times, want 0 and 1", a, b)
	}
}

// TestForgedStatusFromAnotherParticipantNeverEndsARunningGoal: a rogue
// participant publishes SUCCEEDED (and feedback) for a goal the server
// is still executing: the goal stays live, and the forgery is counted.
func TestForgedStatusFromAnotherParticipantNeverEndsARunningGoal(t *testing.T) {
	r := newRig(t, 75)
	ctx := servicetest.Timeout(t, 10*time.Second)
	id := GoalID{7, 5}
	if _, err := r.client.SendGoal(ctx, id, r.goal(t, "hold")); err != nil {
		t.Fatal(err)
	}
	forgeStatus(ctx, t, r, 75, id, 4) // SUCCEEDED
	for {
		s, err := r.client.Status(id)
		if err != nil || s.Terminal() || s.Lost {
			t.Fatalf("a forged status ended the goal: %+v, %v", s, err)
		}
		if r.client.Foreign() > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the forged status was not counted")
		case <-time.After(10 * time.Millisecond):
		}
	}
	wctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if s, err := r.client.WaitStatus(wctx, id, Status.Terminal); err == nil {
		t.Fatalf("the running goal ended: %+v", s)
	}
}

// TestAttachToAGoalTwoServersListIsRefusedNamingBoth: after a restart, a
// goal UUID that two participants' status arrays list is pinned to
// neither, and Attach names both: nothing either says of it counts.
func TestAttachToAGoalTwoServersListIsRefusedNamingBoth(t *testing.T) {
	r := newRig(t, 76)
	sp2 := servicetest.Participant(t, 76)
	newScriptedServer(t, sp2, r.set, actionName)
	ctx := servicetest.Timeout(t, 10*time.Second)
	if _, err := r.cp.WaitParticipants(ctx, func([]rtps.ParticipantData) bool { return len(r.client.Servers()) == 2 }); err != nil {
		t.Fatal(err)
	}
	id := GoalID{7, 6}
	for _, p := range []*rtps.Participant{r.sp, sp2} { // two earlier runs, one goal UUID each on another server
		if _, err := r.newClient(t).SendGoalTo(ctx, p.GUID().Prefix, id, r.goal(t, "hold")); err != nil {
			t.Fatal(err)
		}
	}
	fresh := r.newClient(t)
	_, err := fresh.Attach(ctx, id)
	var amb *service.AmbiguousError
	if !errors.As(err, &amb) || len(amb.Servers) != 2 {
		t.Fatalf("attach: %v, want ErrAmbiguousServer naming both", err)
	}
	if got := fresh.Server(id); got != ([12]byte{}) {
		t.Fatalf("goal pinned to %x", got)
	}
}

// forgeStatus publishes, from a participant of its own on domain that
// serves nothing, a status array listing id with code.
func forgeStatus(ctx context.Context, t *testing.T, r *rig, domain int, id GoalID, code int8) {
	t.Helper()
	rogue := servicetest.Participant(t, domain)
	an, _ := names.ActionNames(actionName)
	dds, _ := names.ActionTypesDDS(fjt)
	stTopic, _ := names.TopicDDS(an.Status)
	st, err := rogue.NewWriter(rtps.EndpointData{Topic: stTopic, Type: dds.Status, QoS: qos.ActionStatus.QoS})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.WaitReady(ctx, 1); err != nil {
		t.Fatal(err)
	}
	stT, _ := r.set.Struct("action_msgs/msg/GoalStatusArray")
	arr := cdr.Zero(stT)
	list := cdr.MakeSlice(arr.Type.Field(0).Type, 1).([]*cdr.Message)
	info := list[0].Get("goal_info").(*cdr.Message)
	info.Set("goal_id", uuidMessage(info.Type, id))
	list[0].Set("status", code)
	arr.Set("status_list", list)
	b, err := cdr.Encode(arr, cdr.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(b, nil); err != nil {
		t.Fatal(err)
	}
}

// TestAttachIsNotPinnedByAStatusWriterThatServesNoGoals: after a restart,
// a participant that only publishes a status array listing the goal (it
// serves no send_goal) pins nothing: the goal the real server does not
// list is UNKNOWN, not the forger's EXECUTING.
func TestAttachIsNotPinnedByAStatusWriterThatServesNoGoals(t *testing.T) {
	r := newRig(t, 77)
	ctx := servicetest.Timeout(t, 10*time.Second)
	id := GoalID{7, 7}
	forgeStatus(ctx, t, r, 77, id, 2) // EXECUTING
	fresh := r.newClient(t)
	actx, cancel := context.WithTimeout(ctx, 2*time.Second) // the real server, with no goals, publishes no array
	defer cancel()
	st, err := fresh.Attach(actx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "UNKNOWN" || fresh.Server(id) != ([12]byte{}) {
		t.Fatalf("attach: %+v pinned to %x; want UNKNOWN pinned to nobody", st, fresh.Server(id))
	}
}
