package ros2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/msgdef"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/service"
)

// frankaErrorRecovery is franka_hardware's error recovery, served at
// /action_server/error_recovery: an empty goal.
const frankaErrorRecovery = "franka_msgs/action/ErrorRecovery"

// callableActions are the action types the service tools may call as a
// service (one goal, its result as the response): a robot's recovery
// steps that have no actuator and move nothing the bridge guards. Motion
// actions stay behind their actuators' safety checks.
func callableActions() []string { return []string{frankaErrorRecovery} }

// actionServiceType is an action of callableActions as the service tools
// see it: the goal's fields as the request, and the response status (the
// goal's final status, "SUCCEEDED") with the result's fields.
func actionServiceType(set *msgs.Set, typ string) (actuators.ServiceType, error) {
	goalT, err := set.Struct(typ + "_Goal")
	if err != nil {
		return actuators.ServiceType{}, err
	}
	resT, err := set.Struct(typ + "_Result")
	if err != nil {
		return actuators.ServiceType{}, err
	}
	resp := append([]actuators.ServiceField{{Name: "status", Type: "string"}}, fields(resT)...)
	return actuators.ServiceType{Name: typ, Request: fields(goalT), Response: resp, Messages: nested(goalT, resT)}, nil
}

// actionOf is the callable action type the graph lists a server of at
// name (its send_goal service's type), if any; it does not wait.
func (r *Robot) actionOf(name string) (string, bool) {
	an, err := names.ActionNames(name)
	if err != nil {
		return "", false
	}
	for _, s := range r.rctx.Graph().Services {
		if s.Name != an.SendGoal || len(s.Servers) == 0 || len(s.Types) != 1 {
			continue
		}
		typ := strings.TrimSuffix(s.Types[0], "_SendGoal")
		return typ, slices.Contains(callableActions(), typ)
	}
	return "", false
}

// callAction sends one goal of a callable action, under a fresh UUID, to
// its one server and waits for the result: the response is the final
// status and the result's fields. Failures before the goal left wrap
// actuators.ErrServiceNotSent.
func (r *Robot) callAction(ctx context.Context, name, typ string, request map[string]any) (map[string]any, error) {
	notSent := func(err error) error { return fmt.Errorf("%w: %s: %w", actuators.ErrServiceNotSent, name, err) }
	an, err := names.ActionNames(name)
	if err != nil {
		return nil, notSent(err)
	}
	set, err := msgs.Load(r.Distro())
	if err != nil {
		return nil, notSent(err)
	}
	goalT, err := set.Struct(typ + "_Goal")
	if err != nil {
		return nil, notSent(err)
	}
	request = maps.Clone(request) // the caller's map stays as it was
	if request == nil {
		request = map[string]any{}
	}
	delete(request, msgdef.DummyField)
	goal, err := messageFromJSON(goalT, request)
	if err != nil {
		return nil, notSent(fmt.Errorf("%w: %v", actuators.ErrInvalidArgument, err))
	}
	g := r.rctx.Graph()
	server, found, err := pick("servers of "+name, serversOf(g, an.SendGoal), "")
	switch {
	case err != nil:
		return nil, notSent(err)
	case !found:
		return nil, notSent(fmt.Errorf("%w: no server of the action", actuators.ErrUnknownService))
	}
	cl, err := action.NewClient(r.rctx.Participant(), set, name, typ, service.Options{Endpoints: r.node.Announce, Logger: r.log})
	if err != nil {
		return nil, notSent(err)
	}
	defer cl.Close()
	id := action.GoalID(uuid.New())
	if _, err := cl.SendGoalTo(ctx, server, id, goal); err != nil {
		if errors.Is(err, service.ErrNoServer) || errors.Is(err, service.ErrMixedDialects) {
			return nil, notSent(err)
		}
		if errors.Is(err, action.ErrRejected) {
			return map[string]any{"status": "REJECTED"}, nil
		}
		return nil, fmt.Errorf("%s: send_goal: %w", name, err)
	}
	res, err := cl.Result(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("%s: no result: %w", name, err)
	}
	out, _ := messageJSON(res.Message).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	delete(out, msgdef.DummyField)
	out["status"] = res.Status.Name
	return out, nil
}

// messageFromJSON is a message of t from JSON-ready values.
func messageFromJSON(t *cdr.Struct, v map[string]any) (*cdr.Message, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return cdr.FromJSON(t, body)
}
