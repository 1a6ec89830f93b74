package ros2

import (
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
)

// A base has a navigation action, a drive, or both: a goal for the side
// it lacks is refused (as ROS 1 refuses it), a drive-only base has no
// goal to re-attach to, and a drive never reuses an id the robot sent or
// tracks. Nothing here needs a server: each refusal comes before the wire.
func TestABasesMissingSideIsRefusedBeforeTheWire(t *testing.T) {
	domain := 120
	r, err := Open(t.Context(), &config.Config{Transport: config.TransportROS2,
		ROS2: config.ROS2{Distro: config.DistroJazzy, DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
		Actuators: []config.ActuatorConfig{
			{Name: "rover", Kind: actuators.KindBase, CmdVelTopic: "/rover/cmd_vel"},
			{Name: "planner_base", Kind: actuators.KindBase, Action: "/navigate_to_pose"},
		}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var u updates
	r.SetObserver(u.push)
	drive := actuators.Drive{Linear: 0.1, Duration: time.Second}
	for _, c := range []struct {
		name, actuator string
		goal           actuators.Goal
		err            error
	}{
		{"navigate on a base without an action", "rover", actuators.Navigate{}, actuators.ErrUnknownActuator},
		{"drive on a base without cmd_vel", "planner_base", drive, actuators.ErrUnknownActuator},
		{"a goal of no kind", "rover", nil, actuators.ErrInvalidArgument},
	} {
		if err := r.Send(t.Context(), c.actuator, newUUID(), c.goal); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	tracked := newUUID()
	r.Track("planner_base", tracked)
	if err := r.Send(t.Context(), "rover", tracked, drive); !errors.Is(err, actuators.ErrDuplicateGoal) {
		t.Errorf("drive under a tracked goal's id: %v, want ErrDuplicateGoal", err)
	}
	lost := newUUID()
	r.Track("rover", lost)
	if end := u.end(t, lost, 5*time.Second); end.State != actuators.GoalLost {
		t.Errorf("tracking on a drive-only base: %s (%s), want lost", end.State, end.Text)
	}
	if st := r.Actuators(); st[0].Action != "/rover/cmd_vel" || st[0].Connected || st[1].Connected {
		t.Errorf("actuators with no peer: %+v", st)
	}
}
