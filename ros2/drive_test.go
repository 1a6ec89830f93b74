package ros2

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/test/netns"
)

// baseConfig is a config with one base driving on cmdVel at 20 Hz.
func baseConfig(domain int, distro string, base config.ActuatorConfig) *config.Config {
	base.Name, base.Kind = "base", actuators.KindBase
	if base.DriveRateHz == 0 {
		base.DriveRateHz = 20
	}
	return &config.Config{Transport: config.TransportROS2,
		ROS2:      config.ROS2{Distro: distro, DomainID: &domain, DiscoveryRange: config.DiscoverySubnet},
		Actuators: []config.ActuatorConfig{base}}
}

// openRobot opens cfg's robot, closed with the test.
func openRobot(t *testing.T, cfg *config.Config) *Robot {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	r, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// goalFeed is an observer's updates, read by one test goroutine.
type goalFeed chan actuators.GoalUpdate

func newGoalFeed(r *Robot) goalFeed {
	f := make(goalFeed, 1024)
	r.SetObserver(func(u actuators.GoalUpdate) { f <- u })
	return f
}

// next returns id's next update.
func (f goalFeed) next(t *testing.T, id string, timeout time.Duration) actuators.GoalUpdate {
	t.Helper()
	u, ok := f.wait(id, timeout)
	if !ok {
		t.Fatalf("no update of %s within %s", id, timeout)
	}
	return u
}

// wait returns id's next update; false when none came within timeout.
func (f goalFeed) wait(id string, timeout time.Duration) (actuators.GoalUpdate, bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case u := <-f:
			if u.GoalID == id {
				return u, true
			}
		case <-timer.C:
			return actuators.GoalUpdate{}, false
		}
	}
}

// expect checks that id's next update is state, with text containing text.
func (f goalFeed) expect(t *testing.T, id string, state actuators.GoalState, text string) actuators.GoalUpdate {
	t.Helper()
	u := f.next(t, id, 10*time.Second)
	if u.State != state || !strings.Contains(u.Text, text) {
		t.Fatalf("%s: %s (%q), want %s (%q)", id, u.State, u.Text, state, text)
	}
	return u
}

func pose(t *testing.T, r *Robot) actuators.Pose2D {
	t.Helper()
	p, ok := r.Odom("base")
	if !ok {
		t.Fatal("odometry stale")
	}
	return p
}

func travel(a, b actuators.Pose2D) float64 {
	return math.Hypot(b.X-a.X, b.Y-a.Y) + math.Abs(b.Yaw-a.Yaw)
}

// awaitMoving waits until the base is at least 0.1 (m + rad) from p0.
func awaitMoving(t *testing.T, r *Robot, p0 actuators.Pose2D) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for travel(p0, pose(t, r)) < 0.1 {
		if time.Now().After(deadline) {
			t.Fatalf("the base did not move: %+v → %+v", p0, pose(t, r))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expectStopped checks the base stopped after a drive ended at end with
// the base at p: it moved at most limit after, and not at all from half
// a second after (the sim's cmd_vel_timeout) on.
func expectStopped(t *testing.T, r *Robot, p actuators.Pose2D, end time.Time, limit float64) {
	t.Helper()
	time.Sleep(time.Until(end.Add(500 * time.Millisecond)))
	p1 := pose(t, r)
	time.Sleep(500 * time.Millisecond)
	p2 := pose(t, r)
	if d := travel(p, p1); d > limit {
		t.Errorf("the base went on %.3f after the drive ended (at most %.3f): %+v → %+v", d, limit, p, p1)
	}
	if d := travel(p1, p2); d > 1e-9 {
		t.Errorf("the base still moves half a second after the drive ended: %+v → %+v", p1, p2)
	}
}

// TestDriveMovesTheSimBaseAndEveryEndStopsIt: a drive (TwistStamped,
// zero stamp, 10 Hz) moves the sim's base, and whatever ends it — its
// deadman ctx, Cancel, StopAll or its duration — the base stops at once
// (zeros are sent; the sim's own 0.5 s timeout would leave it 0.2 m
// further), and the goal ends as on ROS 1. A second drive while one runs
// is busy; a drive id is never driven twice.
func TestDriveMovesTheSimBaseAndEveryEndStopsIt(t *testing.T) {
	r := startSimRig(t, msgs.Jazzy, 110, "").robot
	feed := newGoalFeed(r)
	const speed = 0.4 // m/s; 0.1 m in a quarter second
	long := actuators.Drive{Linear: speed, Duration: 8 * time.Second}

	t.Run("deadman", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		id, p0 := uuid.NewString(), pose(t, r)
		if err := r.Send(ctx, "base", id, long); err != nil {
			t.Fatal(err)
		}
		feed.expect(t, id, actuators.GoalActive, "driving linear=0.4")
		awaitMoving(t, r, p0)
		if err := r.Send(t.Context(), "base", uuid.NewString(), long); !errors.Is(err, actuators.ErrBusy) {
			t.Errorf("a second drive: %v, want ErrBusy", err)
		}
		p, end := pose(t, r), time.Now()
		cancel()
		u := feed.expect(t, id, actuators.GoalCanceled, "context ended")
		if u.Progress <= 0 || u.Progress >= 1 {
			t.Errorf("progress %v of a drive ended early", u.Progress)
		}
		expectStopped(t, r, p, end, speed/4)
		if err := r.Send(t.Context(), "base", id, long); !errors.Is(err, actuators.ErrDuplicateGoal) {
			t.Errorf("the same drive again: %v, want ErrDuplicateGoal", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		id, p0 := uuid.NewString(), pose(t, r)
		if err := r.Send(t.Context(), "base", id, actuators.Drive{Angular: -0.8, Duration: 8 * time.Second}); err != nil {
			t.Fatal(err)
		}
		awaitMoving(t, r, p0)
		p, end := pose(t, r), time.Now()
		if err := r.Cancel(t.Context(), "base", id); err != nil {
			t.Fatal(err)
		}
		feed.expect(t, id, actuators.GoalActive, "")
		feed.expect(t, id, actuators.GoalCanceled, "canceled")
		expectStopped(t, r, p, end, 0.8/4)
	})
	t.Run("StopAll", func(t *testing.T) {
		id, p0 := uuid.NewString(), pose(t, r)
		if err := r.Send(t.Context(), "base", id, actuators.Drive{Linear: -speed, Duration: 8 * time.Second}); err != nil {
			t.Fatal(err)
		}
		awaitMoving(t, r, p0)
		p, end := pose(t, r), time.Now()
		if err := r.StopAll(t.Context()); err != nil {
			t.Fatal(err)
		}
		feed.expect(t, id, actuators.GoalActive, "")
		feed.expect(t, id, actuators.GoalCanceled, "stopped by StopAll")
		expectStopped(t, r, p, end, speed/4)
	})
	t.Run("duration", func(t *testing.T) {
		id, p0 := uuid.NewString(), pose(t, r)
		start := time.Now()
		if err := r.Send(t.Context(), "base", id, actuators.Drive{Linear: speed, Duration: 600 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		feed.expect(t, id, actuators.GoalActive, "")
		u := feed.expect(t, id, actuators.GoalSucceeded, "")
		end := time.Now()
		if u.Progress != 1 || end.Sub(start) < 600*time.Millisecond {
			t.Errorf("succeeded after %s with progress %v", end.Sub(start), u.Progress)
		}
		expectStopped(t, r, pose(t, r), end, speed/4)
		if d := travel(p0, pose(t, r)); d < 0.18 || d > 0.3 {
			t.Errorf("drove %.3f m, want about 0.24 (0.4 m/s for 0.6 s)", d)
		}
	})
}

// TestBaseRefusesWhatItCannotRun: goals a base cannot run are refused
// before anything is published, a drive with nobody on cmd_vel fails
// ErrNotConnected and leaves its id free, and Twist is refused on a
// distro whose diff_drive_controller reads only TwistStamped.
func TestBaseRefusesWhatItCannotRun(t *testing.T) {
	netns.Require(t)
	r := openRobot(t, baseConfig(120, "jazzy", config.ActuatorConfig{CmdVelTopic: "/nobody/cmd_vel",
		MaxDriveDuration: config.Duration(2 * time.Second), GoalConnectTimeout: config.Duration(300 * time.Millisecond)}))
	drive := actuators.Drive{Linear: 0.1, Duration: time.Second}
	for _, tc := range []struct {
		name, actuator, id string
		goal               actuators.Goal
		err                error
	}{
		{"trajectory", "base", "t", actuators.Trajectory{Joints: []string{"j"}, Points: []spline.Point{{Positions: []float64{0}, Time: 1}}}, actuators.ErrInvalidArgument},
		{"gripper command", "base", "g", actuators.GripperCommand{Position: 0.01, MaxEffort: 1}, actuators.ErrInvalidArgument},
		{"navigate without an action", "base", "n", actuators.Navigate{Target: actuators.Pose2D{X: 1}}, actuators.ErrUnknownActuator},
		{"unknown actuator", "wheels", "u", drive, actuators.ErrUnknownActuator},
		{"no duration", "base", "d0", actuators.Drive{Linear: 0.1}, actuators.ErrInvalidArgument},
		{"longer than max_drive_duration", "base", "d3", actuators.Drive{Linear: 0.1, Duration: 3 * time.Second}, actuators.ErrInvalidArgument},
		{"not finite", "base", "nan", actuators.Drive{Angular: math.NaN(), Duration: time.Second}, actuators.ErrInvalidArgument},
		{"empty id", "base", "", drive, actuators.ErrInvalidArgument},
		{"nobody on cmd_vel", "base", "alone", drive, actuators.ErrNotConnected},
		{"nobody on cmd_vel, the id free again", "base", "alone", drive, actuators.ErrNotConnected},
	} {
		if err := r.Send(t.Context(), tc.actuator, tc.id, tc.goal); !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	if ok, why := r.Actuators()[0].Connected, r.Actuators()[0].Detail; ok || !strings.Contains(why, "no subscriber on /nobody/cmd_vel") {
		t.Errorf("status %v %q, want not connected: no subscriber", ok, why)
	}

	stamped := false
	_, err := Open(t.Context(), baseConfig(121, "jazzy", config.ActuatorConfig{CmdVelTopic: "/c", CmdVelStamped: &stamped}), Options{})
	if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), "cmd_vel_stamped") {
		t.Errorf("Twist on jazzy: %v, want a config error on cmd_vel_stamped", err)
	}
}

// TestStopAllEndsADriveWaitingForItsSubscriberAtOnce: StopAll and Cancel
// take no lock the waiting send holds and wait for no discovery: they
// return at once, the send returns ErrCanceledBeforeSend, the drive is
// recalled, and its id is spent.
func TestStopAllEndsADriveWaitingForItsSubscriberAtOnce(t *testing.T) {
	netns.Require(t)
	r := openRobot(t, baseConfig(122, "jazzy", config.ActuatorConfig{CmdVelTopic: "/nobody/cmd_vel",
		GoalConnectTimeout: config.Duration(15 * time.Second)}))
	feed := newGoalFeed(r)
	for _, stop := range []struct {
		name string
		call func(id string) error
	}{
		{"StopAll", func(string) error { return r.StopAll(t.Context()) }},
		{"Cancel", func(id string) error { return r.Cancel(t.Context(), "base", id) }},
	} {
		t.Run(stop.name, func(t *testing.T) {
			id := uuid.NewString()
			sent := make(chan error, 1)
			go func() { sent <- r.Send(t.Context(), "base", id, actuators.Drive{Linear: 0.1, Duration: time.Second}) }()
			time.Sleep(200 * time.Millisecond) // waiting for a subscriber
			start := time.Now()
			if err := stop.call(id); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s took %s", stop.name, d)
			}
			select {
			case err := <-sent:
				if !errors.Is(err, actuators.ErrCanceledBeforeSend) {
					t.Errorf("Send: %v, want ErrCanceledBeforeSend", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the send still waits")
			}
			feed.expect(t, id, actuators.GoalRecalled, "nothing was published")
			if err := r.Send(t.Context(), "base", id, actuators.Drive{Linear: 0.1, Duration: time.Second}); !errors.Is(err, actuators.ErrDuplicateGoal) {
				t.Errorf("a recalled drive again: %v, want ErrDuplicateGoal", err)
			}
		})
	}
}

// A cmd_vel QoS profile that keeps every twist or replays them to late
// subscribers is refused when the robot opens: a zero must never wait
// behind a lagging reader, and an old twist must never reach a
// controller that joins late.
func TestCmdVelProfileThatBlocksOrReplaysIsRefused(t *testing.T) {
	for _, profile := range []string{"latched", "action_status"} {
		t.Run(profile, func(t *testing.T) {
			cfg := baseConfig(153, "jazzy", config.ActuatorConfig{CmdVelTopic: "/cmd_vel",
				QoS: map[string]config.QoSOverride{config.QoSCmdVel: {Profile: profile}}})
			cfg.DiscoveryRange = config.DiscoveryLocalhost
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			r, err := Open(ctx, cfg, Options{})
			if err == nil {
				r.Close()
				t.Fatal("Open accepted it")
			}
			if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), "keep_last and volatile") {
				t.Fatalf("error %v, want a config error saying why", err)
			}
		})
	}
}

// TestCloseEndsADriveAsClosingNotAsStopAll: a drive the robot's Close
// ends reports that the bridge closed, not a StopAll nobody called.
func TestCloseEndsADriveAsClosingNotAsStopAll(t *testing.T) {
	netns.Require(t)
	const domain, topic = 123, "/closing/cmd_vel"
	r := openRobot(t, baseConfig(domain, "jazzy", config.ActuatorConfig{CmdVelTopic: topic,
		GoalConnectTimeout: config.Duration(15 * time.Second)}))
	feed := newGoalFeed(r)
	c, err := node.NewContext(t.Context(), node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("controller", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.NewSubscription(topic, twistStampedType, qos.Default, node.SubscriptionOptions{}); err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	if err := r.Send(t.Context(), "base", id, actuators.Drive{Linear: 0.1, Duration: 8 * time.Second}); err != nil {
		t.Fatal(err)
	}
	feed.expect(t, id, actuators.GoalActive, "driving")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	feed.expect(t, id, actuators.GoalCanceled, "bridge shutting down")
}

// stopCounter is a driver whose stops (the zero twists) are counted.
type stopCounter struct {
	driver
	stops *int
}

func (c stopCounter) stop(ctx context.Context, why error) error {
	*c.stops++
	return c.driver.stop(ctx, why)
}

// TestObservingRobotsCloseSendsNoTwist: a robot opened with Observe (as
// actbridge doctor opens it) does not stop its bases when it closes, so
// writes no zero twist on a cmd_vel someone else may be driving; one
// opened without it does.
func TestObservingRobotsCloseSendsNoTwist(t *testing.T) {
	netns.Require(t)
	for i, observe := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		r, err := Open(ctx, baseConfig(124+i, "jazzy", config.ActuatorConfig{CmdVelTopic: "/observed/cmd_vel"}), Options{Observe: observe})
		if err != nil {
			t.Fatal(err)
		}
		stops := 0
		r.order[0].drive = stopCounter{r.order[0].drive, &stops}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if (stops == 0) != observe {
			t.Fatalf("observe %v: Close stopped the drive %d times", observe, stops)
		}
	}
}
