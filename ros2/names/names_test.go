package names

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateNameFollowsRcl(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
		at   string // expected position text in the error
	}{
		{"chatter", true, ""},
		{"/chatter", true, ""},
		{"~", true, ""},
		{"~/joint_trajectory", true, ""},
		{"{node}/cmd", true, ""},
		{"a/b_2/c", true, ""},
		{"", false, "at 0"},
		{"2fast", false, "at 0"},
		{"a/", false, "at 1"},
		{"a//b", true, ""}, // rcl lets it through; expansion then refuses it
		{"a/2b", false, "at 2"},
		{"a~b", false, "at 1"},
		{"~a", false, "at 1"}, // rcl misses this one
		{"a b", false, "at 1"},
		{"{nod", false, "at 0"},
		{"a}", false, "at 1"},
		{"{2x}", false, "at 1"},
		{"{a/b}", false, "at 2"},
		{"{a{b}}", false, "at 2"},
	} {
		err := ValidateName(c.name)
		if c.ok != (err == nil) {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", c.name, err, c.ok)
			continue
		}
		if err != nil && (!errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), c.at)) {
			t.Errorf("ValidateName(%q) = %v, want ErrInvalidName %s", c.name, err, c.at)
		}
	}
}

func TestValidateFullNameNamespaceAndNodeFollowRmw(t *testing.T) {
	long := "/" + strings.Repeat("a", MaxNameLength)
	for _, c := range []struct {
		name          string
		full, ns, nod bool
	}{
		{"/", false, true, false},
		{"/a", true, true, false},
		{"/a/b_c/D9", true, true, false},
		{"a", false, false, true},
		{"node_1", false, false, true},
		{"", false, false, false},
		{"/a/", false, false, false},
		{"//a", false, false, false},
		{"/a/1", false, false, false},
		{"/a-b", false, false, false},
		{"/~", false, false, false},
		{"1node", false, false, false},
		{long[:MaxNameLength], true, false, false},
		{long[:MaxNamespaceLength], true, true, false},
		{long, false, false, false},
		{strings.Repeat("n", MaxNodeNameLength), false, false, true},
		{strings.Repeat("n", MaxNodeNameLength+1), false, false, false},
	} {
		if err := ValidateFullName(c.name); (err == nil) != c.full || (err != nil && !errors.Is(err, ErrInvalidName)) {
			t.Errorf("ValidateFullName(%.20q) = %v, want ok=%v", c.name, err, c.full)
		}
		if err := ValidateNamespace(c.name); (err == nil) != c.ns || (err != nil && !errors.Is(err, ErrInvalidNamespace)) {
			t.Errorf("ValidateNamespace(%.20q) = %v, want ok=%v", c.name, err, c.ns)
		}
		if err := ValidateNodeName(c.name); (err == nil) != c.nod || (err != nil && !errors.Is(err, ErrInvalidNodeName)) {
			t.Errorf("ValidateNodeName(%.20q) = %v, want ok=%v", c.name, err, c.nod)
		}
	}
}

func TestExpandFollowsRcl(t *testing.T) {
	for _, c := range []struct {
		name, node, ns, want string
		err                  error
	}{
		{"chatter", "talker", "/", "/chatter", nil},
		{"chatter", "talker", "/robot", "/robot/chatter", nil},
		{"/chatter", "talker", "/robot", "/chatter", nil},
		{"~", "arm_controller", "/", "/arm_controller", nil},
		{"~/joint_trajectory", "arm_controller", "/", "/arm_controller/joint_trajectory", nil},
		{"~/follow_joint_trajectory", "arm_controller", "/ur5", "/ur5/arm_controller/follow_joint_trajectory", nil},
		{"{node}/status", "nav", "/r1", "/r1/nav/status", nil},
		{"{ns}/status", "nav", "/r1", "/r1/status", nil},
		{"{namespace}/x/{node}", "nav", "/r1", "/r1/x/nav", nil},
		{"{ns}/x", "nav", "/", "", ErrInvalidName}, // "//x", as rcl makes it
		{"{robot}/x", "nav", "/", "", ErrUnknownSubstitution},
		{"a//b", "n", "/", "", ErrInvalidName},
		{"a/", "n", "/", "", ErrInvalidName},
		{"x", "bad-node", "/", "", ErrInvalidNodeName},
		{"x", "n", "ns", "", ErrInvalidNamespace},
		{"x", "n", "/ns/", "", ErrInvalidNamespace},
	} {
		got, err := Expand(c.name, c.node, c.ns)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("Expand(%q, %q, %q) = %q, %v; want %q, %v", c.name, c.node, c.ns, got, err, c.want, c.err)
		}
	}
	if got, err := NodeFullName("talker", "/demo"); got != "/demo/talker" || err != nil {
		t.Errorf("NodeFullName = %q, %v", got, err)
	}
}

func TestDDSTopicNamesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		fqn, topic, request, reply string
	}{
		{"/chatter", "rt/chatter", "rq/chatterRequest", "rr/chatterReply"},
		{"/arm/_action/send_goal", "rt/arm/_action/send_goal", "rq/arm/_action/send_goalRequest", "rr/arm/_action/send_goalReply"},
	} {
		topic, err := TopicDDS(c.fqn)
		if err != nil || topic != c.topic {
			t.Errorf("TopicDDS(%q) = %q, %v", c.fqn, topic, err)
		}
		rq, rr, err := ServiceDDS(c.fqn)
		if err != nil || rq != c.request || rr != c.reply {
			t.Errorf("ServiceDDS(%q) = %q, %q, %v", c.fqn, rq, rr, err)
		}
		for _, back := range []struct {
			dds  string
			kind Kind
		}{{topic, KindTopic}, {rq, KindRequest}, {rr, KindReply}} {
			if fqn, kind, err := FromDDSTopic(back.dds); err != nil || fqn != c.fqn || kind != back.kind {
				t.Errorf("FromDDSTopic(%q) = %q, %d, %v", back.dds, fqn, kind, err)
			}
		}
	}
	if _, err := TopicDDS("chatter"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("TopicDDS(relative) = %v", err)
	}
	for _, dds := range []string{"ros_discovery_info", "rt", "rt/", "rq/sReply", "rr/s", "rt//a", "rt/a/", "DCPSParticipant", "rq/Request"} {
		if _, _, err := FromDDSTopic(dds); !errors.Is(err, ErrNotROS) {
			t.Errorf("FromDDSTopic(%q) = %v, want ErrNotROS", dds, err)
		}
	}
}

func TestHiddenNamesAreThoseWithATokenStartingWithUnderscore(t *testing.T) {
	for name, hidden := range map[string]bool{
		"/x/_action/status": true, "/_private": true, "/a/b": false, "/a_b/c_": false, "/a/b_/_c": true,
	} {
		if IsHidden(name) != hidden {
			t.Errorf("IsHidden(%q) = %v", name, !hidden)
		}
	}
	if KindReply.String() != "reply" || Kind(7).String() != "Kind(7)" {
		t.Errorf("Kind strings: %s, %s", KindReply, Kind(7))
	}
}

func TestActionEntityNamesFollowRclAction(t *testing.T) {
	a, err := ActionNames("/arm_controller/follow_joint_trajectory")
	if err != nil {
		t.Fatal(err)
	}
	p := "/arm_controller/follow_joint_trajectory/_action/"
	want := Action{SendGoal: p + "send_goal", CancelGoal: p + "cancel_goal", GetResult: p + "get_result", Feedback: p + "feedback", Status: p + "status"}
	if a != want {
		t.Errorf("got %+v, want %+v", a, want)
	}
	if _, err := ActionNames("/x/"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("ActionNames(/x/) = %v", err)
	}
}

func TestDDSTypeNamesRoundTrip(t *testing.T) {
	for _, c := range []struct{ ros, dds string }{
		{"std_msgs/msg/String", "std_msgs::msg::dds_::String_"},
		{"rmw_dds_common/msg/ParticipantEntitiesInfo", "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"},
		{"std_srvs/srv/Trigger_Request", "std_srvs::srv::dds_::Trigger_Request_"},
		{"control_msgs/action/FollowJointTrajectory_FeedbackMessage", "control_msgs::action::dds_::FollowJointTrajectory_FeedbackMessage_"},
	} {
		if got, err := TypeDDS(c.ros); err != nil || got != c.dds {
			t.Errorf("TypeDDS(%q) = %q, %v", c.ros, got, err)
		}
		if got, err := TypeFromDDS(c.dds); err != nil || got != c.ros {
			t.Errorf("TypeFromDDS(%q) = %q, %v", c.dds, got, err)
		}
	}
	if got, _ := TypeDDS("std_msgs/Header"); got != "std_msgs::msg::dds_::Header_" {
		t.Errorf("short form: %q", got)
	}
	for _, bad := range []string{"std_msgs", "Std/msg/X", "std_msgs/idl/X", "std_msgs/msg/lower", "a/msg/X-Y", "a/b/c/D"} {
		if _, err := TypeDDS(bad); !errors.Is(err, ErrInvalidType) {
			t.Errorf("TypeDDS(%q) = %v, want ErrInvalidType", bad, err)
		}
	}
	for _, bad := range []string{"String", "std_msgs::msg::String_", "std_msgs::msg::dds_::String", "std_msgs::msg::dds::String_", "a::b::dds_::C_"} {
		if _, err := TypeFromDDS(bad); !errors.Is(err, ErrNotROS) {
			t.Errorf("TypeFromDDS(%q) = %v, want ErrNotROS", bad, err)
		}
	}
}

func TestServiceAndActionTypesFollowRmw(t *testing.T) {
	rq, rs, err := ServiceTypesDDS("std_srvs/srv/SetBool")
	if err != nil || rq != "std_srvs::srv::dds_::SetBool_Request_" || rs != "std_srvs::srv::dds_::SetBool_Response_" {
		t.Errorf("ServiceTypesDDS = %q, %q, %v", rq, rs, err)
	}
	for _, dds := range []string{rq, rs} {
		if got, err := ServiceTypeFromDDS(dds); err != nil || got != "std_srvs/srv/SetBool" {
			t.Errorf("ServiceTypeFromDDS(%q) = %q, %v", dds, got, err)
		}
	}
	if _, err := ServiceTypeFromDDS("std_msgs::msg::dds_::String_"); !errors.Is(err, ErrNotROS) {
		t.Errorf("ServiceTypeFromDDS(message) = %v", err)
	}
	a, err := ActionTypesDDS("control_msgs/action/FollowJointTrajectory")
	if err != nil {
		t.Fatal(err)
	}
	p := "control_msgs::action::dds_::FollowJointTrajectory_"
	want := ActionTypes{
		SendGoalRequest: p + "SendGoal_Request_", SendGoalResponse: p + "SendGoal_Response_",
		GetResultRequest: p + "GetResult_Request_", GetResultResponse: p + "GetResult_Response_",
		CancelRequest: "action_msgs::srv::dds_::CancelGoal_Request_", CancelResponse: "action_msgs::srv::dds_::CancelGoal_Response_",
		Feedback: p + "FeedbackMessage_", Status: "action_msgs::msg::dds_::GoalStatusArray_",
	}
	if a != want {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
	if _, err := ActionTypesDDS("std_msgs/msg/String"); !errors.Is(err, ErrInvalidType) {
		t.Errorf("ActionTypesDDS(message) = %v", err)
	}
}
