package safety

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseJointLimitsReadsRosControlKeys(t *testing.T) {
	cfg, err := ParseJointLimits(readTestdata(t, "ab6_joint_limits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"elbow_joint", "shoulder_lift_joint", "shoulder_pan_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}
	if got := cfg.Names(); !slices.Equal(got, want) {
		t.Errorf("names %v", got)
	}
	if got := cfg.OtherKeys; !slices.Equal(got, []string{"default_acceleration_scaling_factor", "default_velocity_scaling_factor"}) {
		t.Errorf("other keys %v", got)
	}
	sp := cfg.Joints["shoulder_pan_joint"]
	if !*sp.HasPositionLimits || *sp.MinPosition != -3 || *sp.MaxPosition != 3 || *sp.MaxVelocity != 1.5 ||
		*sp.MaxAcceleration != 3 || *sp.HasJerkLimits || sp.MaxJerk != nil || sp.MaxEffort != nil {
		t.Errorf("shoulder_pan %+v", sp)
	}
}

func TestParseJointLimitsRejectsWhatWouldSilentlyDropALimit(t *testing.T) {
	j := func(body string) string { return "joint_limits:\n  j:\n" + body }
	for _, tc := range []struct {
		name string
		in   string
		want error
	}{
		{"empty", ``, ErrInvalidJointLimits},
		{"no joint_limits", `limits: {}`, ErrInvalidJointLimits},
		{"joint_limits not a map", `joint_limits: [1, 2]`, ErrInvalidJointLimits},
		{"typo in key", j("    has_velocity_limits: true\n    max_velocty: 1\n"), ErrInvalidJointLimits},
		{"flag without value", j("    has_acceleration_limits: true\n"), ErrInvalidJointLimits},
		{"position flag with one bound", j("    has_position_limits: true\n    min_position: 0\n"), ErrInvalidJointLimits},
		{"soft flag without bounds", j("    has_soft_limits: true\n    soft_lower_limit: 0\n"), ErrInvalidJointLimits},
		{"NaN", j("    max_velocity: .nan\n"), ErrInvalidJointLimits},
		{"Inf", j("    max_acceleration: .inf\n"), ErrInvalidJointLimits},
		{"negative", j("    max_velocity: -1\n"), ErrInvalidJointLimits},
		{"string number", j("    max_velocity: \"1.0\"\n"), ErrInvalidJointLimits},
		{"inverted range", j("    min_position: 1\n    max_position: 0\n"), ErrInvalidJointLimits},
		{"inverted soft range", j("    soft_lower_limit: 1\n    soft_upper_limit: 0\n"), ErrInvalidJointLimits},
		{"duplicate key", j("    max_velocity: 1\n    max_velocity: 2\n"), ErrInvalidJointLimits},
		{"empty name", "joint_limits:\n  \"\": {max_velocity: 1}\n", ErrInvalidJointLimits},
		{"two documents", "joint_limits: {}\n---\njoint_limits: {}\n", ErrInvalidJointLimits},
		{"too large", "joint_limits: {}\n#" + strings.Repeat("x", MaxJointLimitsBytes), ErrTooLarge},
	} {
		cfg, err := ParseJointLimits([]byte(tc.in))
		if cfg != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, cfg, err, tc.want)
		}
	}
}

func TestParseJointLimitsAcceptsIntegersNullsAndEmptyEntries(t *testing.T) {
	cfg, err := ParseJointLimits([]byte("joint_limits:\n  a:\n  b: {max_velocity: 2, max_effort: ~}\n  関節: {max_jerk: 1e3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := cfg.Joints["b"]; *e.MaxVelocity != 2 || e.MaxEffort != nil {
		t.Errorf("b = %+v", e)
	}
	if e := cfg.Joints["関節"]; *e.MaxJerk != 1000 {
		t.Errorf("unicode joint = %+v", e)
	}
	if _, ok := cfg.Joints["a"]; !ok {
		t.Error("empty entry dropped")
	}
}

func TestParseJointLimitsDoesNotExpandAnAliasBomb(t *testing.T) {
	start := time.Now()
	cfg, err := ParseJointLimits([]byte("joint_limits: {}\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second || len(cfg.OtherKeys) != 7 {
		t.Errorf("took %v, other keys %v", d, cfg.OtherKeys)
	}
}
