package kinematics_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/actbridge/actbridge/kinematics"
)

// Forward kinematics of the sim arm: the pose of its gripper in base_link
// with every joint at zero (the arm points straight up) and with the
// shoulder lifted a quarter turn (it points along x).
func ExampleChain_FK() {
	data, err := os.ReadFile("../launch/simrobot.urdf")
	if err != nil {
		panic(err)
	}
	model, err := kinematics.Parse(data)
	if err != nil {
		panic(err)
	}
	arm, err := model.Chain("base_link", "gripper_base_link")
	if err != nil {
		panic(err)
	}
	fmt.Println(arm.Joints())
	d := arm.NewData() // one per goroutine; reuse it
	for _, q := range [][]float64{{0, 0, 0, 0, 0, 0}, {0, 1.5707963267948966, 0, 0, 0, 0}} {
		if err := arm.FK(d, q); err != nil {
			panic(err)
		}
		p := d.ToolPose()
		fmt.Printf("position %.3f  orientation (x y z w) %.3f\n", p.Position, p.Orientation)
	}
	// Output:
	// [shoulder_pan_joint shoulder_lift_joint elbow_joint wrist_1_joint wrist_2_joint wrist_3_joint]
	// position [0.100 0.000 1.250]  orientation (x y z w) [0.000 0.000 0.000 1.000]
	// position [1.150 0.000 0.200]  orientation (x y z w) [0.000 0.707 0.000 0.707]
}

// Inverse kinematics: joint positions that put the gripper 0.6 m ahead and
// 0.5 m up, pointing down, starting from the current state; and the answer
// for a place out of reach.
func ExampleChain_IK() {
	data, err := os.ReadFile("../launch/simrobot.urdf")
	if err != nil {
		panic(err)
	}
	model, err := kinematics.Parse(data)
	if err != nil {
		panic(err)
	}
	arm, err := model.Chain("base_link", "gripper_base_link")
	if err != nil {
		panic(err)
	}
	d := arm.NewData()
	current := []float64{0, 0.5, 1, 0.5, 0, 0}
	down := kinematics.Quat{0, 1, 0, 0} // tool z along base −z
	sol, err := arm.IK(d, kinematics.Goal{Pose: kinematics.Pose{Position: kinematics.Vec3{0.6, 0, 0.5}, Orientation: down}}, current)
	if err != nil {
		panic(err)
	}
	fmt.Printf("joints %.3f\n", sol.Joints)
	fmt.Printf("reached %.6f, within 1e-8 m and rad: %v\n", sol.Pose.Position,
		sol.PositionError <= kinematics.DefaultPositionTolerance && sol.OrientationError <= kinematics.DefaultOrientationTolerance)

	_, err = arm.IK(d, kinematics.Goal{Pose: kinematics.Pose{Position: kinematics.Vec3{2, 0, 0.2}}, PositionOnly: true}, current)
	var u *kinematics.UnreachableError
	if errors.As(err, &u) {
		fmt.Printf("unreachable: closest %.3f, %.3f m away\n", u.Closest.Pose.Position, u.Closest.PositionError)
	}
	// Output:
	// joints [0.000 -0.013 1.306 1.202 0.000 0.646]
	// reached [0.600000 0.000000 0.500000], within 1e-8 m and rad: true
	// unreachable: closest [1.150 0.000 0.200], 0.850 m away
}
