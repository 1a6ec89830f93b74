package safety

import (
	"fmt"
	"math"
	"strings"
)

// Rule names of base violations; stable, since metrics and tests key on them.
const (
	RuleMaxLinearSpeed  = "max_linear_speed"
	RuleMaxAngularSpeed = "max_angular_speed"
	RuleMaxDuration     = "max_drive_duration"
	RuleGeofence        = "geofence"
)

// DefaultMaxDriveDuration caps a velocity command when the config sets none.
const DefaultMaxDriveDuration = 10.0

// BaseConfig is the mobile base's limits as written in the robot config.
type BaseConfig struct {
	MaxLinearSpeed   float64 `yaml:"max_linear_speed" json:"max_linear_speed"`     // m/s, > 0
	MaxAngularSpeed  float64 `yaml:"max_angular_speed" json:"max_angular_speed"`   // rad/s, > 0
	MaxDriveDuration float64 `yaml:"max_drive_duration" json:"max_drive_duration"` // s; 0 means DefaultMaxDriveDuration
	Geofence         Fence   `yaml:"geofence" json:"geofence"`
	// RecoveryFraction of each speed cap a drive from outside the fence may
	// use, in (0, 1]; 0 means DefaultRecoveryFraction.
	RecoveryFraction float64 `yaml:"recovery_fraction" json:"recovery_fraction"`
}

// Fence is an axis-aligned rectangle in a named frame (map or odom).
type Fence struct {
	Frame string  `yaml:"frame" json:"frame"`
	MinX  float64 `yaml:"min_x" json:"min_x"`
	MaxX  float64 `yaml:"max_x" json:"max_x"`
	MinY  float64 `yaml:"min_y" json:"min_y"`
	MaxY  float64 `yaml:"max_y" json:"max_y"`
}

// Pose2D is a planar pose in the fence frame.
type Pose2D struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Theta float64 `json:"theta"`
}

// BaseViolation is one broken base rule; Field says which value (x, y,
// linear, angular, duration) and Limit the bound it crossed, signed.
type BaseViolation struct {
	Rule  string  `json:"rule"`
	Field string  `json:"field"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
}

// Base checks base goals and velocity commands; immutable.
type Base struct{ cfg BaseConfig }

// NewBase validates the configuration: positive speed caps and a non-empty
// fence in a named frame are required, as there is no safe default for them.
func NewBase(cfg BaseConfig) (*Base, error) {
	if cfg.MaxDriveDuration == 0 {
		cfg.MaxDriveDuration = DefaultMaxDriveDuration
	}
	if cfg.RecoveryFraction == 0 {
		cfg.RecoveryFraction = DefaultRecoveryFraction
	}
	if !(cfg.RecoveryFraction > 0 && cfg.RecoveryFraction <= 1) {
		return nil, fmt.Errorf("base: recovery_fraction %g must be in (0, 1]: %w", cfg.RecoveryFraction, ErrInvalidConfig)
	}
	f := &cfg.Geofence
	f.Frame = normalizeFrame(f.Frame)
	for _, v := range []struct {
		name string
		v    float64
	}{{"max_linear_speed", cfg.MaxLinearSpeed}, {"max_angular_speed", cfg.MaxAngularSpeed}, {"max_drive_duration", cfg.MaxDriveDuration}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			return nil, fmt.Errorf("base: %s %g must be a positive number: %w", v.name, v.v, ErrInvalidConfig)
		}
	}
	for _, v := range []float64{f.MinX, f.MaxX, f.MinY, f.MaxY} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("base: geofence bounds must be finite: %w", ErrInvalidConfig)
		}
	}
	if f.Frame == "" || !(f.MinX < f.MaxX) || !(f.MinY < f.MaxY) {
		return nil, fmt.Errorf("base: geofence needs a frame and min < max on both axes: %w", ErrInvalidConfig)
	}
	return &Base{cfg: cfg}, nil
}

// Config returns the validated configuration, defaults filled in.
func (b *Base) Config() BaseConfig { return b.cfg }

// CheckBaseGoal checks a navigation goal against the fence. A goal in
// another frame is an error: without TF it cannot be checked.
func (b *Base) CheckBaseGoal(frame string, x, y float64) ([]BaseViolation, error) {
	if err := b.checkFrame(frame); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		f string
		v float64
	}{{"x", x}, {"y", y}} {
		if err := checkValue(v.v, v.f, ""); err != nil {
			return nil, err
		}
	}
	return b.fence(nil, x, x, y, y), nil
}

// CheckTwist checks a velocity command held for duration seconds.
func (b *Base) CheckTwist(linear, angular, duration float64) ([]BaseViolation, error) {
	if b == nil {
		return nil, fmt.Errorf("base: not configured: %w", ErrInvalidConfig)
	}
	if err := checkTwistInput(linear, angular, duration); err != nil {
		return nil, err
	}
	var out []BaseViolation
	if math.Abs(linear) > b.cfg.MaxLinearSpeed {
		out = append(out, BaseViolation{RuleMaxLinearSpeed, "linear", linear, math.Copysign(b.cfg.MaxLinearSpeed, linear)})
	}
	if math.Abs(angular) > b.cfg.MaxAngularSpeed {
		out = append(out, BaseViolation{RuleMaxAngularSpeed, "angular", angular, math.Copysign(b.cfg.MaxAngularSpeed, angular)})
	}
	if duration > b.cfg.MaxDriveDuration {
		out = append(out, BaseViolation{RuleMaxDuration, "duration", duration, b.cfg.MaxDriveDuration})
	}
	return out, nil
}

// CheckDrive checks a velocity command from start (a pose in frame) and
// predicts the end pose by unicycle integration. The whole arc, not only its
// end, must stay inside the fence: an arc between two inside points can
// leave a rectangle. From outside the fence (OutsideFence) the drive is
// checked as a recovery instead (recovery.go).
func (b *Base) CheckDrive(frame string, start Pose2D, linear, angular, duration float64) (Pose2D, []BaseViolation, error) {
	if err := b.checkFrame(frame); err != nil {
		return Pose2D{}, nil, err
	}
	for _, v := range []struct {
		f string
		v float64
	}{{"start.x", start.X}, {"start.y", start.Y}, {"start.theta", start.Theta}} {
		if err := checkValue(v.v, v.f, ""); err != nil {
			return Pose2D{}, nil, err
		}
	}
	if err := checkTwistInput(linear, angular, duration); err != nil {
		return Pose2D{}, nil, err
	}
	end, minX, maxX, minY, maxY := arc(start, linear, angular, duration)
	if b.OutsideFence(start.X, start.Y) != nil {
		return end, b.recoveryDrive(start, end, linear, angular, duration), nil
	}
	out, err := b.CheckTwist(linear, angular, duration)
	if err != nil {
		return Pose2D{}, nil, err
	}
	return end, b.fence(out, minX, maxX, minY, maxY), nil
}

// arc integrates the unicycle exactly and returns the end pose and the
// bounding box of the path.
func arc(p Pose2D, v, w, t float64) (end Pose2D, minX, maxX, minY, maxY float64) {
	sweep := w * t
	th1 := p.Theta + sweep
	end.Theta = math.Remainder(th1, 2*math.Pi)
	if math.Abs(sweep) < 1e-9 {
		// Straight line (the arc formula would cancel catastrophically).
		end.X, end.Y = p.X+v*t*math.Cos(p.Theta), p.Y+v*t*math.Sin(p.Theta)
		return end, math.Min(p.X, end.X), math.Max(p.X, end.X), math.Min(p.Y, end.Y), math.Max(p.Y, end.Y)
	}
	r := v / w
	cx, cy := p.X-r*math.Sin(p.Theta), p.Y+r*math.Cos(p.Theta) // centre of the circle
	at := func(th float64) (float64, float64) { return cx + r*math.Sin(th), cy - r*math.Cos(th) }
	end.X, end.Y = at(th1)
	minX, maxX = math.Min(p.X, end.X), math.Max(p.X, end.X)
	minY, maxY = math.Min(p.Y, end.Y), math.Max(p.Y, end.Y)
	if math.Abs(sweep) >= 2*math.Pi {
		ar := math.Abs(r)
		return end, cx - ar, cx + ar, cy - ar, cy + ar
	}
	lo, hi := math.Min(p.Theta, th1), math.Max(p.Theta, th1)
	// The path's x and y extremes lie at headings that are multiples of π/2.
	for k := math.Ceil(lo / (math.Pi / 2)); k*(math.Pi/2) <= hi; k++ {
		x, y := at(k * math.Pi / 2)
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	return end, minX, maxX, minY, maxY
}

// fence appends a violation for every side of the fence the box crosses.
func (b *Base) fence(out []BaseViolation, minX, maxX, minY, maxY float64) []BaseViolation {
	f := &b.cfg.Geofence
	if minX < f.MinX {
		out = append(out, BaseViolation{RuleGeofence, "x", minX, f.MinX})
	}
	if maxX > f.MaxX {
		out = append(out, BaseViolation{RuleGeofence, "x", maxX, f.MaxX})
	}
	if minY < f.MinY {
		out = append(out, BaseViolation{RuleGeofence, "y", minY, f.MinY})
	}
	if maxY > f.MaxY {
		out = append(out, BaseViolation{RuleGeofence, "y", maxY, f.MaxY})
	}
	return out
}

func (b *Base) checkFrame(frame string) error {
	if b == nil {
		return fmt.Errorf("base: not configured: %w", ErrInvalidConfig)
	}
	if normalizeFrame(frame) != b.cfg.Geofence.Frame {
		return &InputError{Field: "frame", Expected: quoteName(b.cfg.Geofence.Frame), Actual: quoteName(frame), Err: ErrUnknownFrame}
	}
	return nil
}

func checkTwistInput(linear, angular, duration float64) error {
	for _, v := range []struct {
		f string
		v float64
	}{{"linear", linear}, {"angular", angular}, {"duration", duration}} {
		if err := checkValue(v.v, v.f, ""); err != nil {
			return err
		}
	}
	if duration < 0 {
		return &InputError{Field: "duration", Expected: "≥ 0", Actual: fmtFloat(duration), Err: ErrOutOfRange}
	}
	return nil
}

// normalizeFrame drops tf1's leading slash so "/map" and "map" match.
func normalizeFrame(f string) string { return strings.TrimLeft(strings.TrimSpace(f), "/") }
