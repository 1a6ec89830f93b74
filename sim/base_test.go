package sim

import (
	"math"
	"testing"
	"time"
)

func TestCmdVelDrivesStraight(t *testing.T) {
	r := newTestRobot(t)
	for range 10 { // 0.2 m/s for 1 s, refreshed every 100 ms
		r.CmdVel(0.2, 0)
		r.Advance(100 * time.Millisecond)
	}
	p := r.BasePose()
	if math.Abs(p.X-0.2) > 1e-3 || math.Abs(p.Y) > 1e-9 || p.Yaw != 0 {
		t.Errorf("pose %+v, want (0.2, 0, 0)", p)
	}
}

func TestCmdVelTimeoutStopsBase(t *testing.T) {
	r := newTestRobot(t) // cmd_vel timeout 0.5 s
	r.CmdVel(0.4, 0.2)
	r.Advance(400 * time.Millisecond)
	if v := r.BaseVelocity(); v.Linear != 0.4 || v.Angular != 0.2 {
		t.Fatalf("velocity %+v before the timeout, want the command", v)
	}
	r.Advance(200 * time.Millisecond)
	if v := r.BaseVelocity(); v != (Twist2D{}) {
		t.Errorf("velocity %+v after 0.6 s without a command, want stopped", v)
	}
	stopped := r.BasePose()
	r.Advance(time.Second)
	if p := r.BasePose(); p != stopped {
		t.Errorf("base moved after the timeout: %+v → %+v", stopped, p)
	}
}

func TestCmdVelIsClampedToLimits(t *testing.T) {
	r := newTestRobot(t)
	r.CmdVel(5, -5)
	r.Advance(10 * time.Millisecond)
	if v := r.BaseVelocity(); v.Linear != 0.5 || v.Angular != -1.0 {
		t.Errorf("velocity %+v, want clamped to (0.5, -1.0)", v)
	}
	r.CmdVel(math.NaN(), 0)
	r.Advance(10 * time.Millisecond)
	if v := r.BaseVelocity(); v.Linear != 0.5 {
		t.Errorf("a NaN command replaced the last good one: %+v", v)
	}
}

func TestArcIntegrationFollowsCircle(t *testing.T) {
	// Half a turn at radius 1: from (0,0) facing +x to (0,2) facing -x.
	p := Pose2D{}
	for range 1000 {
		p = integrateArc(p, Twist2D{Linear: math.Pi, Angular: math.Pi}, 0.001)
	}
	if math.Abs(p.X) > 1e-6 || math.Abs(p.Y-2) > 1e-6 || math.Abs(math.Abs(p.Yaw)-math.Pi) > 1e-6 {
		t.Errorf("pose %+v, want (0, 2, ±pi)", p)
	}
}

func TestOdomReportsPoseAndTwist(t *testing.T) {
	r := newTestRobot(t)
	r.CmdVel(0.3, 0.1)
	r.Advance(200 * time.Millisecond)
	var last *Odometry
	n := 0
	for _, m := range r.Drain() {
		if o, ok := m.(*Odometry); ok {
			last, n = o, n+1
		}
	}
	if n < 9 || n > 11 {
		t.Errorf("%d odometry messages in 0.2 s, want 10 (50 Hz)", n)
	}
	if last == nil || last.Frame != "odom" || last.ChildFrame != "base_footprint" ||
		last.Linear != 0.3 || last.Angular != 0.1 || last.Pose.Position.X <= 0 {
		t.Errorf("odometry %+v", last)
	}
}

// TestStampedCmdVelTimesOutFromItsStamp: ROS 2's diff_drive_controller
// measures the 0.5 s timeout from the command's stamp, takes a zero stamp
// as now and drops a command already older than the timeout.
func TestStampedCmdVelTimesOutFromItsStamp(t *testing.T) {
	cases := []struct {
		name      string
		age       time.Duration // how long before now the command is stamped; -1: zero stamp
		taken     bool
		movingFor time.Duration
	}{
		{"zero stamp is now", -1, true, 500 * time.Millisecond},
		{"fresh", 0, true, 500 * time.Millisecond},
		{"stamped 0.3 s ago", 300 * time.Millisecond, true, 200 * time.Millisecond},
		{"stamped 0.6 s ago", 600 * time.Millisecond, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRobot(t)
			r.Advance(time.Second)
			var stamp time.Time
			if c.age >= 0 {
				stamp = r.Now().Add(-c.age)
			}
			if got := r.CmdVelStamped(stamp, 0.3, 0); got != c.taken {
				t.Fatalf("taken %v, want %v", got, c.taken)
			}
			if c.movingFor > 0 {
				r.Advance(c.movingFor - 10*time.Millisecond)
				if v := r.BaseVelocity(); v.Linear != 0.3 {
					t.Fatalf("velocity %+v before the stamp's timeout", v)
				}
			}
			r.Advance(20 * time.Millisecond)
			if v := r.BaseVelocity(); v != (Twist2D{}) {
				t.Errorf("velocity %+v after the stamp's timeout, want stopped", v)
			}
		})
	}
}
