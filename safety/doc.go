// Package safety owns robot limits (URDF plus joint_limits.yaml), trajectory
// checks, base speed caps and geofence, the tier policy and the e-stop latch.
// It imports nothing of ours but urdf (the URDF reader it shares with
// kinematics) and spline, so the checks see exactly the motion ros_control's
// joint_trajectory_controller will command. Everything here is
// pure; *Limits, *Base and *Policy are immutable and safe for concurrent use.
//
// Decisions worth knowing:
//
//   - Limits: config may tighten, never loosen. Every number in
//     joint_limits.yaml that is tighter than the URDF is applied (even without
//     its has_*_limits flag, which is noted); a looser number, or a
//     has_*_limits: false over an existing limit, is ignored and returned as
//     Ignored. <safety_controller> soft limits tighten the position range. A
//     continuous joint gets a position range only when both bounds are given.
//   - Trajectory checks are exact, not sampled: per segment the derivatives
//     are split into monotone pieces (jerk zeros in closed form, acceleration
//     and velocity zeros by bracketed Newton), so no peak between samples can
//     be missed. A violation is a stretch of time, merged across waypoints,
//     with its worst value; values within 1e-9 (relative) of a limit are not
//     violations, so a motion planned exactly at the limit passes.
//   - A jump in commanded velocity (positions-only segments, a non-zero
//     final velocity before the controller's hold) means unbounded
//     acceleration: a violation on joints with an acceleration limit, a
//     warning otherwise. Acceleration jumps (cubic segments) are not flagged;
//     jerk is checked inside segments only. Effort is reported, not checked:
//     there is no dynamics model.
//   - Recovery: a motion that starts with a joint outside its position range
//     (after an e-stop, a collision, a manual jog, a tightened limit) is
//     allowed only as the way out real controllers allow: each out-of-range
//     joint moves monotonically toward its range and never past its far
//     bound, every joint inside its range holds, and no joint exceeds
//     RecoveryFraction of its velocity limit, all checked on the spline.
//   - Continuous joints are moved the shortest way round, as the controller
//     does (spline.WrapOffset); summaries report the wrapped target.
//   - Base: the whole unicycle arc of a drive must stay in the fence, not only
//     its end; goals in another frame than the fence's are refused (no TF
//     here). From outside the fence only a recovery drive is allowed:
//     straight or turning in place, never further from the fence, at
//     RecoveryFraction of the speed caps.
//   - E-stop: each distinct cause is a new event; only the newest can be
//     reset; a retried latch with the same reason is the same event.
//   - Policy defaults: read, write and stop need no confirmation, every
//     irreversible call needs the operator; stop can never be gated.
package safety
