package names_test

import (
	"fmt"

	"github.com/actbridge/actbridge/ros2/names"
)

func ExampleExpand() {
	for _, n := range []string{"cmd_vel", "/joint_states", "~/joint_trajectory", "{node}/status"} {
		fqn, err := names.Expand(n, "arm_controller", "/ur5")
		fmt.Println(fqn, err)
	}
	// Output:
	// /ur5/cmd_vel <nil>
	// /joint_states <nil>
	// /ur5/arm_controller/joint_trajectory <nil>
	// /ur5/arm_controller/status <nil>
}

func ExampleTopicDDS() {
	topic, _ := names.TopicDDS("/joint_states")
	fmt.Println(topic)
	// Output: rt/joint_states
}

func ExampleServiceDDS() {
	rq, rr, _ := names.ServiceDDS("/arm_controller/get_parameters")
	fmt.Println(rq)
	fmt.Println(rr)
	// Output:
	// rq/arm_controller/get_parametersRequest
	// rr/arm_controller/get_parametersReply
}

func ExampleActionNames() {
	a, _ := names.ActionNames("/navigate_to_pose")
	status, _ := names.TopicDDS(a.Status)
	rq, _, _ := names.ServiceDDS(a.SendGoal)
	fmt.Println(a.SendGoal)
	fmt.Println(status)
	fmt.Println(rq)
	// Output:
	// /navigate_to_pose/_action/send_goal
	// rt/navigate_to_pose/_action/status
	// rq/navigate_to_pose/_action/send_goalRequest
}

func ExampleFromDDSTopic() {
	for _, t := range []string{"rt/joint_states", "rr/set_boolReply", "ros_discovery_info"} {
		fqn, kind, err := names.FromDDSTopic(t)
		fmt.Println(fqn, kind, err)
	}
	// Output:
	// /joint_states topic <nil>
	// /set_bool reply <nil>
	//  topic names: not a ROS 2 DDS name: DDS topic "ros_discovery_info"
}

func ExampleTypeDDS() {
	t, _ := names.TypeDDS("sensor_msgs/msg/JointState")
	fmt.Println(t)
	back, _ := names.TypeFromDDS("geometry_msgs::msg::dds_::TwistStamped_")
	fmt.Println(back)
	srv, _ := names.ServiceTypeFromDDS("std_srvs::srv::dds_::Trigger_Response_")
	fmt.Println(srv)
	// Output:
	// sensor_msgs::msg::dds_::JointState_
	// geometry_msgs/msg/TwistStamped
	// std_srvs/srv/Trigger
}

func ExampleActionTypesDDS() {
	a, _ := names.ActionTypesDDS("nav2_msgs/action/NavigateToPose")
	fmt.Println(a.SendGoalRequest)
	fmt.Println(a.Feedback)
	fmt.Println(a.Status)
	// Output:
	// nav2_msgs::action::dds_::NavigateToPose_SendGoal_Request_
	// nav2_msgs::action::dds_::NavigateToPose_FeedbackMessage_
	// action_msgs::msg::dds_::GoalStatusArray_
}

func ExampleRemap_Resolve() {
	// ros2 run … --ros-args -r cmd_vel:=/base/cmd_vel -r __ns:=/ur5
	var m names.Remap
	for _, s := range []string{"cmd_vel:=/base/cmd_vel", "__ns:=/ur5"} {
		r, err := names.ParseRule(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		m = append(m, r)
	}
	node, ns := m.Node("teleop", "/")
	topic, _ := m.Resolve("cmd_vel", node, ns, false)
	odom, _ := m.Resolve("odom", node, ns, false)
	fmt.Println(node, ns, topic, odom)
	// Output: teleop /ur5 /base/cmd_vel /ur5/odom
}
