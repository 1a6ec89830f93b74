// Package tf keeps a robot's frame tree as /tf and /tf_static carry it and
// answers where one frame is in another at a given time: tf2's buffer, kept
// small. It interpolates between samples and never extrapolates, and it
// refuses by name: a frame nobody published, a transform older than the
// caller accepts, or a frame that two publishers claim (a fact that moves
// the robot comes from one source, or from none).
//
// The package reads no network: a transport feeds [Buffer.Add] with each
// transform and the name of its publisher.
package tf
