package doctor_test

import (
	"os"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/doctor"
)

// What a ROS 1 robot whose arm controller is not running reports: the
// failure, what was seen and the fix.
func ExampleJudge() {
	cfg, _ := config.Parse([]byte(`transport: ros1
actuators:
  - name: arm
    kind: arm
    action: /arm_controller/follow_joint_trajectory
    joints: [j1]
    joint_states_topic: /joint_states
    policy: planner
`))
	r := doctor.Judge(cfg, doctor.Facts{Where: "ROS 1 master http://robot:11311", Reachable: true,
		Actuators:  []actuators.ActuatorStatus{{Name: "arm", Detail: "no action server for /arm_controller/follow_joint_trajectory"}},
		Topics:     []actuators.TopicInfo{{Name: "/joint_states", Type: "sensor_msgs/JointState"}},
		Publishers: map[string][]string{"/joint_states": {"/joint_state_publisher"}},
		URDF:       `<robot name="r"><link name="a"/><link name="b"/><joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint></robot>`})
	r.WriteText(os.Stdout)
	// Output:
	// actbridge doctor: ROS 1 master http://robot:11311
	// pass  robot graph reachable
	// fail  arm: /arm_controller/follow_joint_trajectory served
	//       no action server for /arm_controller/follow_joint_trajectory
	//       fix: start the controller that serves /arm_controller/follow_joint_trajectory, or correct actuator arm's action in the config
	// pass  arm: one server and one state publisher
	// pass  /joint_states published (arm)
	// pass  /joint_states type sensor_msgs/JointState
	// pass  robot description read
	// pass  URDF covers the configured joints
	// skip  clock
	//       not read over ROS 1
	// 8 checks, 1 failed
}
