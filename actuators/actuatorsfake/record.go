package actuatorsfake

import (
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// What a test reads back and sets.

// Wire returns the goal ids that reached the robot, in order.
func (r *Robot) Wire() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.wire...)
}

// Sent is one goal as it reached the robot.
type Sent struct {
	Actuator, GoalID string
	Goal             actuators.Goal
}

// SentGoals returns the goals that reached the robot, in order, with the
// actuator each was sent to.
func (r *Robot) SentGoals() []Sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sent(nil), r.sent...)
}

// SetActuators replaces the configured actuators (all connected).
func (r *Robot) SetActuators(list []actuators.ActuatorStatus) {
	r.mu.Lock()
	r.statuses = r.statuses[:0]
	for _, a := range list {
		a.Connected = true
		r.statuses = append(r.statuses, a)
	}
	r.mu.Unlock()
}

// GoalsSent is how many goals reached the robot.
func (r *Robot) GoalsSent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.wire)
}

// Attempts is how many times Send was called with goalID, refused or not.
func (r *Robot) Attempts(goalID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts[goalID]
}

// Cancels returns the goal ids Cancel was called with, in order.
func (r *Robot) Cancels() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.cancels...)
}

// Stops is how many times StopAll went through.
func (r *Robot) Stops() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stops
}

// Tracked returns the goal ids Track was called with, in order.
func (r *Robot) Tracked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.tracked...)
}

// FreshWaits is how many times FreshJoints waited for a new sample.
func (r *Robot) FreshWaits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.freshWaits
}

// SetJointsAge makes the newest joint_states sample age old; silent
// stops the topic, so a wait for a newer one gets none.
func (r *Robot) SetJointsAge(age time.Duration, silent bool) {
	r.mu.Lock()
	r.age, r.silent = age, silent
	r.mu.Unlock()
}

// FreshReads is how many times FreshJoints was called.
func (r *Robot) FreshReads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.freshReads
}

// SetJoint moves a joint.
// A joint the robot did not report before is reported from now on.
func (r *Robot) SetJoint(name string, position float64) {
	r.mu.Lock()
	if _, ok := r.joints[name]; !ok {
		r.opts.Joints = append(r.opts.Joints[:len(r.opts.Joints):len(r.opts.Joints)], name)
	}
	r.joints[name] = position
	r.mu.Unlock()
}

// SetPose moves the base.
func (r *Robot) SetPose(p actuators.Pose2D) {
	r.mu.Lock()
	r.pose = p
	r.mu.Unlock()
}

// SetConnected connects or disconnects every actuator; a send to a
// disconnected one fails with ErrNotConnected.
func (r *Robot) SetConnected(connected bool) {
	r.mu.Lock()
	for i := range r.statuses {
		r.statuses[i].Connected = connected
		r.statuses[i].Detail = ""
	}
	r.mu.Unlock()
}

// SetActuator connects or disconnects one actuator, with the reason shown.
func (r *Robot) SetActuator(name string, connected bool, detail string) {
	r.mu.Lock()
	for i := range r.statuses {
		if r.statuses[i].Name == name {
			r.statuses[i].Connected, r.statuses[i].Detail = connected, detail
		}
	}
	r.mu.Unlock()
}

// SetAmbiguous marks one actuator as served (or its state published) by
// more than one participant, why naming them; "" clears it. A send to it
// fails with ErrAmbiguousServer, as a transport's would.
func (r *Robot) SetAmbiguous(name, why string) {
	r.mu.Lock()
	for i := range r.statuses {
		if r.statuses[i].Name == name {
			r.statuses[i].Ambiguous = why
		}
	}
	r.mu.Unlock()
}

// SetSendDelay makes every send wait d before its goal reaches the wire.
func (r *Robot) SetSendDelay(d time.Duration) {
	r.mu.Lock()
	r.sendDelay = d
	r.mu.Unlock()
}

// SetSendError makes every later send put its goal on the wire and then
// fail with err, as a transport that closes after writing does (err
// should wrap actuators.ErrMaybeSent); nil ends that.
func (r *Robot) SetSendError(err error) {
	r.mu.Lock()
	r.sendErr = err
	r.mu.Unlock()
}

// OnSend calls f with each goal id once it is on the wire, outside the
// robot's lock (f may call the robot).
func (r *Robot) OnSend(f func(goalID string)) {
	r.mu.Lock()
	r.onSend = f
	r.mu.Unlock()
}
