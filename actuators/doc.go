// Package actuators is the robot contract: the vocabulary the tool layer
// and every transport share (actuator kinds, readings, goals, goal states,
// errors) and the small interfaces a transport implements. It knows no
// transport: ROS 1 lives in package ros1, and a ROS 2 transport implements
// the same interfaces.
//
// A transport implements what it can; the tool layer asks for what it needs
// (State and Motion for the motion tools, Graph, Parameters and Services
// for the guarded ROS tools). Package actuatorstest checks an
// implementation against the contract, as testing/fstest does for io/fs.
//
// Goals are addressed by the actuator's configured name and the caller's
// goal id, which is the id on the wire: a transport never makes its own.
package actuators
