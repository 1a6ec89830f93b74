package qos

import "github.com/actbridge/actbridge/rtps"

// Adapted is what `ros2 topic echo` subscribes with when no profile is
// given: the default profile, best effort if any publisher is best effort,
// transient_local when every publisher is, so that it matches them all
// and still gets a latched topic's last message.
func Adapted(publishers []rtps.QoS) Profile {
	p := Default
	p.Name = "adapted"
	tl := len(publishers) > 0
	for _, q := range publishers {
		if q.Reliability != rtps.Reliable {
			p.QoS.Reliability = rtps.BestEffort
		}
		tl = tl && q.Durability >= rtps.TransientLocal
	}
	if tl {
		p.QoS.Durability = rtps.TransientLocal
	}
	return p
}
