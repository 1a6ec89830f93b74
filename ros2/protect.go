package ros2

import (
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/rtps"
)

// protectedTopics are the DDS topics of the robot's configured servers and
// publishers: each actuator's action (its three services both ways, its
// feedback and status), joint states, odometry and cmd_vel. The RTPS
// participant never evicts their remote endpoints (or participants) for
// a flood of strangers (rtps.Participant.Protect).
func protectedTopics(as []config.ActuatorConfig) []string {
	var out []string
	topic := func(fqn string) {
		if t, err := names.TopicDDS(fqn); err == nil {
			out = append(out, t)
		}
	}
	for _, a := range as {
		if an, err := names.ActionNames(a.Action); a.Action != "" && err == nil {
			for _, s := range []string{an.SendGoal, an.CancelGoal, an.GetResult} {
				if rq, rr, err := names.ServiceDDS(s); err == nil {
					out = append(out, rq, rr)
				}
			}
			topic(an.Feedback)
			topic(an.Status)
		}
		for _, t := range []string{a.JointStatesTopic, a.OdomTopic, a.CmdVelTopic} {
			if t != "" {
				topic(t)
			}
		}
	}
	return out
}

// DDSStats are the counters of the robot's RTPS participant: what it
// refused or gave up of what others sent, within its bounds.
func (r *Robot) DDSStats() rtps.Stats { return r.rctx.Participant().Stats() }
