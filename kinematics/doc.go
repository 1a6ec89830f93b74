// Package kinematics computes forward and inverse kinematics of a URDF's
// serial chains. It is pure: no IO, no ROS, nothing of the bridge.
//
// The shape follows Pinocchio and KDL: a Model is built once from the URDF
// and is immutable; Model.Chain names a chain by its end links (base and
// tool) and is immutable too; every computation brings a *Data (from
// Chain.NewData) that holds the link frames, the Jacobian and the solver's
// buffers, so FK allocates nothing and any number of goroutines share one
// chain, each with its own Data.
//
// Conventions: poses are in the chain's base link frame; positions in
// metres; orientations unit quaternions in geometry_msgs order (x, y, z,
// w), returned with w ≥ 0; joint vectors in the order of Chain.Joints
// (base to tool), radians for revolute and continuous joints, metres for
// prismatic ones. URDF <origin rpy> is roll, pitch, yaw about the fixed X,
// Y, Z axes (R = Rz·Ry·Rx); <axis> is normalised.
//
// IK (Chain.IK) is damped least squares, seeded (with the current joint
// state, typically), within the chain's joint bounds, deterministic, and
// answers an unreachable goal with an *UnreachableError that carries the
// closest pose it reached. docs/kinematics.md says more.
package kinematics
