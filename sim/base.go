package sim

import (
	"math"
	"time"
)

// BaseConfig is the diff-drive base's limits.
type BaseConfig struct {
	MaxLinear  float64 // m/s
	MaxAngular float64 // rad/s
	// CmdTimeout stops the base when no /cmd_vel arrived for this long,
	// like diff_drive_controller's cmd_vel_timeout.
	CmdTimeout time.Duration
}

// Pose2D is a planar pose in the odom frame.
type Pose2D struct {
	X, Y, Yaw float64
}

// Twist2D is a planar body velocity.
type Twist2D struct {
	Linear, Angular float64
}

// base integrates a differential-drive base driven either by /cmd_vel or
// by move_base, which takes precedence while it has a goal.
type base struct {
	cfg  BaseConfig
	pose Pose2D
	vel  Twist2D

	cmd     Twist2D
	cmdAt   time.Time
	haveCmd bool

	auto    Twist2D // move_base's command for the current step
	autoSet bool
}

func newBase(cfg BaseConfig) *base { return &base{cfg: cfg} }

// command is a /cmd_vel message; non-finite commands are dropped.
func (b *base) command(now time.Time, t Twist2D) {
	if !finite(t.Linear) || !finite(t.Angular) {
		return
	}
	b.cmd, b.cmdAt, b.haveCmd = t, now, true
}

// drive is move_base's command for the next step.
func (b *base) drive(t Twist2D) { b.auto, b.autoSet = t, true }

// step advances the base by dt of simulated time.
func (b *base) step(now time.Time, dt time.Duration) {
	want := Twist2D{}
	switch {
	case b.autoSet:
		want = b.auto
		b.autoSet = false
	case b.haveCmd && now.Sub(b.cmdAt) <= b.cfg.CmdTimeout:
		want = b.cmd
	default:
		b.haveCmd = false
	}
	b.vel = Twist2D{clamp(want.Linear, b.cfg.MaxLinear), clamp(want.Angular, b.cfg.MaxAngular)}
	b.pose = integrateArc(b.pose, b.vel, dt.Seconds())
}

// integrateArc moves a pose along the exact arc of a constant twist.
func integrateArc(p Pose2D, v Twist2D, dt float64) Pose2D {
	dyaw := v.Angular * dt
	if math.Abs(dyaw) < 1e-9 {
		p.X += v.Linear * dt * math.Cos(p.Yaw)
		p.Y += v.Linear * dt * math.Sin(p.Yaw)
	} else {
		r := v.Linear / v.Angular
		p.X += r * (math.Sin(p.Yaw+dyaw) - math.Sin(p.Yaw))
		p.Y -= r * (math.Cos(p.Yaw+dyaw) - math.Cos(p.Yaw))
	}
	p.Yaw = wrapAngle(p.Yaw + dyaw)
	return p
}

// wrapAngle maps an angle to (-pi, pi].
func wrapAngle(a float64) float64 {
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a <= 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}

func clamp(x, limit float64) float64 {
	if limit <= 0 {
		return x
	}
	return math.Max(-limit, math.Min(limit, x))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// yawFromQuaternion returns the yaw of a quaternion and whether it is a
// usable planar orientation (finite, non-zero).
func yawFromQuaternion(x, y, z, w float64) (float64, bool) {
	n := math.Sqrt(x*x + y*y + z*z + w*w)
	if !finite(n) || n < 1e-6 {
		return 0, false
	}
	x, y, z, w = x/n, y/n, z/n, w/n
	return math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z)), true
}

// quaternionFromYaw is the (x, y, z, w) quaternion of a planar yaw.
func quaternionFromYaw(yaw float64) (x, y, z, w float64) {
	return 0, 0, math.Sin(yaw / 2), math.Cos(yaw / 2)
}
