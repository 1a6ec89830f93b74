package allowlist

import "testing"

func TestGlobStarStaysInASegmentAndDoubleStarCrossesThem(t *testing.T) {
	cases := []struct {
		p, name string
		want    bool
	}{
		{"/odom", "/odom", true},
		{"/odom", "/odom2", false},
		{"/camera/*", "/camera/image_raw", true},
		{"/camera/*", "/camera/left/image_raw", false},
		{"/camera/*", "/camera", false},
		{"/camera/**", "/camera/left/image_raw/compressed", true},
		{"/camera/**", "/camera", false},
		{"/*/status", "/sim/status", true},
		{"/*/status", "/sim/x/status", false},
		{"/*/**/status", "/arm_controller/follow_joint_trajectory/status", true},
		{"/sim/led/?et", "/sim/led/set", true},
		{"/sim/led/?et", "/sim/led//et", false},
		{"/**", "/anything/at/all", true},
		{"/sim/*_joint", "/sim/elbow_joint", true},
		// ROS 2 parameters keep their dots: one segment.
		{"/simrobot/faults.*", "/simrobot/faults.arm.abort_after", true},
		{"/joint_trajectory_controller/constraints.*.goal", "/joint_trajectory_controller/constraints.elbow_joint.goal", true},
		{"/simrobot/faults.*", "/simrobot/x/faults.arm", false},
	}
	for _, c := range cases {
		if got := Matches(c.p, c.name); got != c.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.p, c.name, got, c.want)
		}
	}
	if _, ok := (Globs{}).Match("/odom"); ok {
		t.Fatal("an empty allowlist allowed something")
	}
	if p, ok := (Globs{"/a/*", "/odom"}).Match("/odom"); !ok || p != "/odom" {
		t.Fatalf("first match: %q %v", p, ok)
	}
}

func TestBadPatternsAreRefused(t *testing.T) {
	for _, p := range []string{"odom", "/a//b", "/a/***", "/a b", "/a;rm"} {
		if Check(p) == nil {
			t.Errorf("%q accepted", p)
		}
	}
	for _, p := range []string{"/odom", "/camera/**", "/*/status", "/a/?", "/simrobot/faults.*"} {
		if err := Check(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}
