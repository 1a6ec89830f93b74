package action

import (
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
)

// entities are an action's five entities as a distro's set defines them,
// resolved alike for a client and a server.
type entities struct {
	// services are send_goal, get_result and cancel_goal, in that order.
	services     [3]service.Types
	serviceNames [3]string
	// topics are feedback and status, as their endpoints announce them.
	topics                       [2]rtps.EndpointData
	goalT, feedbackMsgT, statusT *cdr.Struct
	names                        statusNames
}

func resolveEntities(set *msgs.Set, action, actionType string) (entities, error) {
	var e entities
	an, err := names.ActionNames(action)
	if err != nil {
		return e, err
	}
	dds, err := names.ActionTypesDDS(actionType)
	if err != nil {
		return e, err
	}
	if e.names, err = loadStatusNames(set); err != nil {
		return e, err
	}
	for _, s := range []struct {
		dst  **cdr.Struct
		name string
	}{{&e.goalT, actionType + "_Goal"}, {&e.feedbackMsgT, actionType + "_FeedbackMessage"}, {&e.statusT, "action_msgs/msg/GoalStatusArray"}} {
		if *s.dst, err = set.Struct(s.name); err != nil {
			return e, err
		}
	}
	e.serviceNames = [3]string{an.SendGoal, an.GetResult, an.CancelGoal}
	for i, srv := range []string{actionType + "_SendGoal", actionType + "_GetResult", "action_msgs/srv/CancelGoal"} {
		if e.services[i], err = service.ResolveTypes(set, srv); err != nil {
			return e, err
		}
	}
	for i, t := range []struct {
		name, typ, htype string
		q                qos.Profile
	}{{an.Feedback, dds.Feedback, actionType + "_FeedbackMessage", qos.Default}, {an.Status, dds.Status, "action_msgs/msg/GoalStatusArray", qos.ActionStatus}} {
		topic, err := names.TopicDDS(t.name)
		if err != nil {
			return e, err
		}
		e.topics[i] = rtps.EndpointData{Topic: topic, Type: t.typ, QoS: t.q.QoS, UserData: service.TypeHashUserData(set, t.htype)}
	}
	return e, nil
}
