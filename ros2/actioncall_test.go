package ros2

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/test/netns"
)

// franka_hardware's error recovery (/action_server/error_recovery, an
// empty goal) is a service to the service tools: its type, one goal per
// call under a fresh UUID, the final status as the response. A motion
// action (the arm's FollowJointTrajectory) is not: it stays behind its
// actuator, and nothing is sent to it.
func TestErrorRecoveryIsCallableAsAServiceAndMotionActionsAreNot(t *testing.T) {
	netns.Require(t)
	const domain = 224
	arm := newArmServer(t, domain, "joint_trajectory_controller", "", nil)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	var goals atomic.Int32
	srv, err := action.NewServer(arm.ctx.Participant(), set, "/action_server/error_recovery", frankaErrorRecovery, action.Handlers{
		Accepted: func(g *action.ServerGoal) {
			goals.Add(1)
			g.Succeed(nil)
		},
	}, action.ServerOptions{Service: service.Options{Endpoints: arm.node.Announce}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r, _ := openArmOn(t, domain, nil)
	waitServers(t, r, 1)

	if !slices.ContainsFunc(r.ServiceTypes(), func(s actuators.ServiceType) bool { return s.Name == frankaErrorRecovery }) {
		t.Fatalf("ServiceTypes lacks %s", frankaErrorRecovery)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var typ string
	for ctx.Err() == nil { // until discovery lists the action's send_goal
		if typ, err = r.ServiceType(ctx, "/action_server/error_recovery"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if typ != frankaErrorRecovery {
		t.Fatalf("ServiceType: %q, %v; want %s", typ, err, frankaErrorRecovery)
	}
	for i, req := range []map[string]any{{}, nil} {
		resp, err := r.CallService(ctx, "/action_server/error_recovery", frankaErrorRecovery, req, 5*time.Second)
		if err != nil || resp["status"] != "SUCCEEDED" {
			t.Fatalf("call %d: %v, %v; want status SUCCEEDED", i, resp, err)
		}
		if n := goals.Load(); n != int32(i+1) {
			t.Fatalf("after call %d the server got %d goals", i, n)
		}
	}

	if _, err := r.ServiceType(ctx, armAction); err == nil {
		t.Fatalf("the arm's action has a service type")
	}
	_, err = r.CallService(ctx, armAction, fjtType, map[string]any{}, time.Second)
	if !errors.Is(err, actuators.ErrServiceNotSent) {
		t.Fatalf("calling the arm's action: %v, want ErrServiceNotSent", err)
	}
	if n := arm.seen.Load(); n != 0 {
		t.Fatalf("the arm's server got %d goals", n)
	}
}
