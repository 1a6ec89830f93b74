package names

import (
	"fmt"
	"strings"
)

// DDS topic name prefixes and suffixes rmw puts around a fully qualified
// name (rmw_dds_common and rmw_cyclonedds/rmw_fastrtps namespace_prefix).
const (
	TopicPrefix   = "rt"
	RequestPrefix = "rq"
	ReplyPrefix   = "rr"
	RequestSuffix = "Request"
	ReplySuffix   = "Reply"
)

// TopicDDS is the DDS topic of a ROS topic: "/a/b" → "rt/a/b".
func TopicDDS(fqn string) (string, error) {
	if err := ValidateFullName(fqn); err != nil {
		return "", err
	}
	return TopicPrefix + fqn, nil
}

// ServiceDDS are the DDS topics of a ROS service: "/s" → "rq/sRequest"
// and "rr/sReply".
func ServiceDDS(fqn string) (request, reply string, err error) {
	if err := ValidateFullName(fqn); err != nil {
		return "", "", err
	}
	return RequestPrefix + fqn + RequestSuffix, ReplyPrefix + fqn + ReplySuffix, nil
}

// Action holds the ROS names of the five entities an action is made of
// (rcl_action names.c): three services and two topics under
// "<action>/_action/".
type Action struct {
	SendGoal, CancelGoal, GetResult string // services
	Feedback, Status                string // topics
}

// ActionNames returns the entity names of the action fqn ("/x" →
// "/x/_action/send_goal", …).
func ActionNames(fqn string) (Action, error) {
	if err := ValidateFullName(fqn); err != nil {
		return Action{}, err
	}
	p := fqn + "/_action/"
	return Action{
		SendGoal: p + "send_goal", CancelGoal: p + "cancel_goal", GetResult: p + "get_result",
		Feedback: p + "feedback", Status: p + "status",
	}, nil
}

// Kind says what a DDS topic carries for ROS.
type Kind int

// The kinds of ROS entity behind a DDS topic.
const (
	KindTopic   Kind = iota // "rt/…"
	KindRequest             // "rq/…Request"
	KindReply               // "rr/…Reply"
)

func (k Kind) String() string {
	switch k {
	case KindTopic:
		return "topic"
	case KindRequest:
		return "request"
	case KindReply:
		return "reply"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// IsHidden reports whether a fully qualified name is hidden, as ros2 CLI
// hides it without --include-hidden-topics: a token starts with _ (an
// action's "/x/_action/status", for one).
func IsHidden(fqn string) bool {
	return strings.HasPrefix(fqn, "_") || strings.Contains(fqn, "/_")
}

// FromDDSTopic maps a DDS topic name back to the ROS name and what it
// carries: "rt/a" → ("/a", KindTopic), "rq/sRequest" → ("/s",
// KindRequest). A topic outside these forms (ros_discovery_info, a plain
// DDS application's) is ErrNotROS.
func FromDDSTopic(topic string) (string, Kind, error) {
	forms := []struct {
		prefix, suffix string
		kind           Kind
	}{{TopicPrefix, "", KindTopic}, {RequestPrefix, RequestSuffix, KindRequest}, {ReplyPrefix, ReplySuffix, KindReply}}
	for _, f := range forms {
		rest, ok := strings.CutPrefix(topic, f.prefix+"/")
		if !ok {
			continue
		}
		if rest, ok = strings.CutSuffix(rest, f.suffix); !ok {
			break
		}
		fqn := "/" + rest
		if err := ValidateFullName(fqn); err != nil {
			return "", 0, fmt.Errorf("%w: DDS topic %q: %w", ErrNotROS, topic, err)
		}
		return fqn, f.kind, nil
	}
	return "", 0, fmt.Errorf("%w: DDS topic %q", ErrNotROS, topic)
}

// TypeDDS is the DDS type name of a ROS type as rosidl and rmw make it:
// "std_msgs/msg/String" → "std_msgs::msg::dds_::String_";
// "pkg/srv/S_Request" → "pkg::srv::dds_::S_Request_";
// "pkg/action/A_SendGoal_Request" → "pkg::action::dds_::A_SendGoal_Request_".
// "pkg/Type" is read as "pkg/msg/Type".
func TypeDDS(ros string) (string, error) {
	pkg, ns, name, err := splitType(ros)
	if err != nil {
		return "", err
	}
	return pkg + "::" + ns + "::dds_::" + name + "_", nil
}

// TypeFromDDS is the reverse of TypeDDS, the name `ros2 topic list -t`
// prints: "std_msgs::msg::dds_::String_" → "std_msgs/msg/String".
func TypeFromDDS(dds string) (string, error) {
	parts := strings.Split(dds, "::")
	if len(parts) != 4 || parts[2] != "dds_" || !strings.HasSuffix(parts[3], "_") {
		return "", fmt.Errorf("%w: DDS type %q is not pkg::ns::dds_::Type_", ErrNotROS, dds)
	}
	ros := parts[0] + "/" + parts[1] + "/" + strings.TrimSuffix(parts[3], "_")
	if _, _, _, err := splitType(ros); err != nil {
		return "", fmt.Errorf("%w: DDS type %q: %w", ErrNotROS, dds, err)
	}
	return ros, nil
}

// ServiceTypeFromDDS is the service type behind a request or reply type,
// as `ros2 service list -t` prints it:
// "std_srvs::srv::dds_::Trigger_Request_" → "std_srvs/srv/Trigger".
func ServiceTypeFromDDS(dds string) (string, error) {
	ros, err := TypeFromDDS(dds)
	if err != nil {
		return "", err
	}
	for _, suffix := range []string{"_Request", "_Response"} {
		if base, ok := strings.CutSuffix(ros, suffix); ok && base[strings.LastIndexByte(base, '/')+1:] != "" {
			return base, nil
		}
	}
	return "", fmt.Errorf("%w: DDS type %q is no service request or response", ErrNotROS, dds)
}

// ServiceTypesDDS are the DDS request and response types of a service
// type: "std_srvs/srv/Trigger" → "std_srvs::srv::dds_::Trigger_Request_",
// "…Trigger_Response_".
func ServiceTypesDDS(srv string) (request, response string, err error) {
	if request, err = TypeDDS(srv + "_Request"); err != nil {
		return "", "", err
	}
	response, _ = TypeDDS(srv + "_Response")
	return request, response, nil
}

// ActionTypes are the DDS types of an action's five entities.
type ActionTypes struct {
	SendGoalRequest, SendGoalResponse   string
	GetResultRequest, GetResultResponse string
	CancelRequest, CancelResponse       string
	Feedback, Status                    string
}

// ActionTypesDDS returns the DDS types of an action type
// ("control_msgs/action/FollowJointTrajectory"): its own SendGoal,
// GetResult and FeedbackMessage types, and action_msgs' CancelGoal and
// GoalStatusArray, which every action shares.
func ActionTypesDDS(action string) (ActionTypes, error) {
	_, ns, _, err := splitType(action)
	if err != nil {
		return ActionTypes{}, err
	}
	if ns != "action" {
		return ActionTypes{}, fmt.Errorf("%w %q: not pkg/action/Type", ErrInvalidType, action)
	}
	t := func(suffix string) string { s, _ := TypeDDS(action + suffix); return s }
	return ActionTypes{
		SendGoalRequest: t("_SendGoal_Request"), SendGoalResponse: t("_SendGoal_Response"),
		GetResultRequest: t("_GetResult_Request"), GetResultResponse: t("_GetResult_Response"),
		CancelRequest:  "action_msgs::srv::dds_::CancelGoal_Request_",
		CancelResponse: "action_msgs::srv::dds_::CancelGoal_Response_",
		Feedback:       t("_FeedbackMessage"),
		Status:         "action_msgs::msg::dds_::GoalStatusArray_",
	}, nil
}

// splitType splits "pkg/ns/Type" (or "pkg/Type", a message) and checks
// the parts as rosidl names them: a lower-case package, msg/srv/action,
// and a type name starting with a capital.
func splitType(ros string) (pkg, ns, name string, err error) {
	parts := strings.Split(ros, "/")
	if len(parts) == 2 {
		parts = []string{parts[0], "msg", parts[1]}
	}
	if len(parts) != 3 {
		return "", "", "", fmt.Errorf("%w %q: not pkg/ns/Type", ErrInvalidType, ros)
	}
	pkg, ns, name = parts[0], parts[1], parts[2]
	if !validPackage(pkg) {
		return "", "", "", fmt.Errorf("%w %q: package %q", ErrInvalidType, ros, pkg)
	}
	if ns != "msg" && ns != "srv" && ns != "action" {
		return "", "", "", fmt.Errorf("%w %q: %q is not msg, srv or action", ErrInvalidType, ros, ns)
	}
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return "", "", "", fmt.Errorf("%w %q: type name must start with a capital", ErrInvalidType, ros)
	}
	for i := 0; i < len(name); i++ {
		if !isAlnum(name[i]) && name[i] != '_' {
			return "", "", "", fmt.Errorf("%w %q: only letters, digits and _ in a type name", ErrInvalidType, ros)
		}
	}
	return pkg, ns, name, nil
}

// validPackage: lower-case letters, digits and _, starting with a letter.
func validPackage(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('a' <= s[i] && s[i] <= 'z') && !isDigit(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}
