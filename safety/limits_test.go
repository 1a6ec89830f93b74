package safety

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func loadArm(t testing.TB) *Limits {
	t.Helper()
	l, _, err := LoadLimits(readTestdata(t, "ab6.urdf"), readTestdata(t, "ab6_joint_limits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoadLimitsMergesTheArmURDFAndItsJointLimits(t *testing.T) {
	l, ignored, err := LoadLimits(readTestdata(t, "ab6.urdf"), readTestdata(t, "ab6_joint_limits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	u := func(v float64) Limit { return Limit{v, SourceURDF} }
	y := func(v float64) Limit { return Limit{v, SourceYAML} }
	want := []JointLimits{
		{Name: "shoulder_pan_joint", Type: Revolute, MinPosition: y(-3), MaxPosition: y(3), MaxVelocity: y(1.5), MaxAcceleration: y(3), MaxEffort: u(150)},
		{Name: "shoulder_lift_joint", Type: Revolute, MinPosition: u(-2), MaxPosition: u(2), MaxVelocity: y(1.5), MaxAcceleration: y(3), MaxEffort: u(150)},
		{Name: "elbow_joint", Type: Revolute, MinPosition: Limit{-2.6, SourceSafetyController}, MaxPosition: Limit{2.6, SourceSafetyController},
			MaxVelocity: y(2), MaxAcceleration: y(4), MaxEffort: u(150)},
		{Name: "wrist_1_joint", Type: Revolute, MinPosition: u(-3.14159265), MaxPosition: u(3.14159265), MaxVelocity: y(3), MaxAcceleration: y(6), MaxJerk: y(200), MaxEffort: u(28)},
		{Name: "wrist_2_joint", Type: Revolute, MinPosition: u(-3.14159265), MaxPosition: u(3.14159265), MaxVelocity: y(3), MaxAcceleration: y(6), MaxEffort: u(28)},
		{Name: "wrist_3_joint", Type: Continuous, MaxVelocity: u(3.2), MaxAcceleration: y(6), MaxEffort: u(28)},
	}
	if got := l.Names(); !slices.Equal(got, []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}) {
		t.Errorf("names %v", got)
	}
	for _, w := range want {
		if got, ok := l.Joint(w.Name); !ok || got != w {
			t.Errorf("%s\n got %+v\nwant %+v", w.Name, got, w)
		}
	}
	wantIgnored := []Ignored{{Joint: "wrist_3_joint", Key: "max_velocity", Value: "4", Kept: "3.2", Reason: "looser than the urdf limit"}}
	if !reflect.DeepEqual(ignored, wantIgnored) {
		t.Errorf("ignored\n got %+v\nwant %+v", ignored, wantIgnored)
	}
	if _, ok := l.Joint("world_joint"); ok {
		t.Error("fixed joint has limits")
	}
	if n := l.Notes(); len(n) != 2 || !strings.Contains(n[0], "default_acceleration_scaling_factor") {
		t.Errorf("notes %q", n)
	}
}

func TestConfigMayTightenLimitsButLooseningIsIgnoredAndReported(t *testing.T) {
	const urdfHead = `<robot name="r">
	  <joint name="j" type="revolute"><limit lower="-1" upper="1" velocity="2" effort="10"/>`
	const urdfTail = `</joint>
	  <joint name="c" type="continuous"><limit velocity="3" effort="5"/></joint></robot>`
	u := func(v float64) Limit { return Limit{v, SourceURDF} }
	y := func(v float64) Limit { return Limit{v, SourceYAML} }
	sc := func(v float64) Limit { return Limit{v, SourceSafetyController} }
	ys := func(v float64) Limit { return Limit{v, SourceYAMLSoft} }
	rev := func(mod func(*JointLimits)) JointLimits {
		j := JointLimits{Name: "j", Type: Revolute, MinPosition: u(-1), MaxPosition: u(1), MaxVelocity: u(2), MaxEffort: u(10)}
		if mod != nil {
			mod(&j)
		}
		return j
	}
	cont := func(mod func(*JointLimits)) JointLimits {
		j := JointLimits{Name: "c", Type: Continuous, MaxVelocity: u(3), MaxEffort: u(5)}
		if mod != nil {
			mod(&j)
		}
		return j
	}
	for _, tc := range []struct {
		name        string
		safety      string // <safety_controller> of j
		yaml        string
		want        JointLimits
		wantIgnored []string // joint.key
	}{
		{"urdf alone", "", "", rev(nil), nil},
		{"tighter velocity applies", "", "j: {has_velocity_limits: true, max_velocity: 1}", rev(func(j *JointLimits) { j.MaxVelocity = y(1) }), nil},
		{"equal velocity keeps its source", "", "j: {has_velocity_limits: true, max_velocity: 2}", rev(nil), nil},
		{"looser velocity is ignored", "", "j: {has_velocity_limits: true, max_velocity: 3}", rev(nil), []string{"j.max_velocity"}},
		{"velocity flag false cannot remove the limit", "", "j: {has_velocity_limits: false}", rev(nil), []string{"j.has_velocity_limits"}},
		{"acceleration limit is added", "", "j: {has_acceleration_limits: true, max_acceleration: 4}", rev(func(j *JointLimits) { j.MaxAcceleration = y(4) }), nil},
		{"jerk limit is added", "", "j: {has_jerk_limits: true, max_jerk: 40}", rev(func(j *JointLimits) { j.MaxJerk = y(40) }), nil},
		{"tighter effort applies", "", "j: {has_effort_limits: true, max_effort: 5}", rev(func(j *JointLimits) { j.MaxEffort = y(5) }), nil},
		{"looser effort is ignored", "", "j: {has_effort_limits: true, max_effort: 50}", rev(nil), []string{"j.max_effort"}},
		{"tighter position range applies", "", "j: {has_position_limits: true, min_position: -0.5, max_position: 0.5}",
			rev(func(j *JointLimits) { j.MinPosition, j.MaxPosition = y(-0.5), y(0.5) }), nil},
		{"wider position range is ignored on both sides", "", "j: {has_position_limits: true, min_position: -2, max_position: 2}", rev(nil), []string{"j.min_position", "j.max_position"}},
		{"half-wider range keeps the tighter half", "", "j: {has_position_limits: true, min_position: -2, max_position: 0.5}",
			rev(func(j *JointLimits) { j.MaxPosition = y(0.5) }), []string{"j.min_position"}},
		{"position flag false cannot remove the range", "", "j: {has_position_limits: false}", rev(nil), []string{"j.has_position_limits"}},
		{"value without its flag still tightens", "", "j: {max_velocity: 1.5}", rev(func(j *JointLimits) { j.MaxVelocity = y(1.5) }), nil},
		{"safety controller tightens", `<safety_controller soft_lower_limit="-0.9" soft_upper_limit="0.8" k_velocity="10"/>`, "",
			rev(func(j *JointLimits) { j.MinPosition, j.MaxPosition = sc(-0.9), sc(0.8) }), nil},
		{"one-sided safety controller tightens one side", `<safety_controller soft_upper_limit="0.8" k_velocity="10"/>`, "",
			rev(func(j *JointLimits) { j.MaxPosition = sc(0.8) }), nil},
		{"safety controller looser than the limit is ignored", `<safety_controller soft_lower_limit="-1.5" soft_upper_limit="1.5" k_velocity="10"/>`, "",
			rev(nil), []string{"j.soft_lower_limit", "j.soft_upper_limit"}},
		{"yaml cannot drop the safety controller", `<safety_controller soft_lower_limit="-0.9" soft_upper_limit="0.9" k_velocity="10"/>`, "j: {has_soft_limits: false}",
			rev(func(j *JointLimits) { j.MinPosition, j.MaxPosition = sc(-0.9), sc(0.9) }), []string{"j.has_soft_limits"}},
		{"yaml position tightens past the safety controller", `<safety_controller soft_lower_limit="-0.9" soft_upper_limit="0.9" k_velocity="10"/>`,
			"j: {has_position_limits: true, min_position: -0.7, max_position: 1}",
			rev(func(j *JointLimits) { j.MinPosition, j.MaxPosition = y(-0.7), sc(0.9) }), []string{"j.max_position"}},
		{"yaml soft limits tighten", "", "j: {has_soft_limits: true, soft_lower_limit: -0.6, soft_upper_limit: 0.6, k_position: 1, k_velocity: 1}",
			rev(func(j *JointLimits) { j.MinPosition, j.MaxPosition = ys(-0.6), ys(0.6) }), nil},
		{"continuous joint gets a range", "", "c: {has_position_limits: true, min_position: -6, max_position: 6}",
			cont(func(j *JointLimits) { j.MinPosition, j.MaxPosition = y(-6), y(6) }), nil},
		{"continuous joint ignores a one-sided range", "", "c: {min_position: -6}", cont(nil), []string{"c.min_position/max_position"}},
		{"continuous velocity tightens", "", "c: {has_velocity_limits: true, max_velocity: 1}", cont(func(j *JointLimits) { j.MaxVelocity = y(1) }), nil},
	} {
		u, err := ParseURDF([]byte(urdfHead + tc.safety + urdfTail))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var cfg *JointLimitsConfig
		if tc.yaml != "" {
			if cfg, err = ParseJointLimits([]byte("joint_limits: {" + tc.yaml + "}")); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		l, ignored, err := MergeLimits(u, cfg)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got, _ := l.Joint(tc.want.Name); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
		var keys []string
		for _, ig := range ignored {
			keys = append(keys, ig.Joint+"."+ig.Key)
			if ig.Value == "" || ig.Kept == "" || ig.Reason == "" {
				t.Errorf("%s: ignored entry lacks detail: %+v", tc.name, ig)
			}
		}
		if !slices.Equal(keys, tc.wantIgnored) {
			t.Errorf("%s: ignored %v, want %v", tc.name, keys, tc.wantIgnored)
		}
	}
}

func TestMergeRejectsInconsistentConfiguration(t *testing.T) {
	urdf := `<robot><joint name="j" type="revolute"><limit lower="-1" upper="1" velocity="2" effort="10"/></joint>
	  <joint name="f" type="fixed"/></robot>`
	for _, tc := range []struct {
		name, yaml string
		want       error
	}{
		{"yaml joint not in the URDF", "joint_limits: {elbow: {max_velocity: 1}}", ErrUnknownJoint},
		{"range disjoint from the URDF", "joint_limits: {j: {has_position_limits: true, min_position: 1.5, max_position: 2}}", ErrInvalidConfig},
	} {
		l, _, err := LoadLimits([]byte(urdf), []byte(tc.yaml))
		if l != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, l, err, tc.want)
		}
	}
	l, ignored, err := LoadLimits([]byte(urdf), []byte("joint_limits: {f: {max_velocity: 1}}"))
	if err != nil || len(ignored) != 1 || ignored[0].Joint != "f" {
		t.Errorf("fixed joint in yaml: %v %+v %v", l, ignored, err)
	}
}

func TestMergeNotesMimicJointsAndZeroVelocity(t *testing.T) {
	l, _, err := LoadLimits([]byte(`<robot>
	  <joint name="a" type="prismatic"><limit lower="0" upper="0.04" velocity="0" effort="1"/></joint>
	  <joint name="b" type="prismatic"><limit lower="0" upper="0.04" velocity="0.1" effort="1"/><mimic joint="a"/></joint>
	  <joint name="fl" type="floating"/></robot>`), nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(l.Notes(), "\n")
	for _, want := range []string{`"b" mimics "a"`, `"a": velocity limit 0`, `"fl": floating joints are not commanded`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if b, _ := l.Joint("b"); b.Mimic != "a" {
		t.Errorf("mimic not recorded: %+v", b)
	}
}

func TestNewLimitsRejectsInvalidJoints(t *testing.T) {
	ok := JointLimits{Name: "j", Type: Revolute, MinPosition: Limit{-1, SourceURDF}, MaxPosition: Limit{1, SourceURDF}}
	for _, tc := range []struct {
		name string
		mod  func(*JointLimits)
	}{
		{"no name", func(j *JointLimits) { j.Name = "" }},
		{"fixed", func(j *JointLimits) { j.Type = Fixed }},
		{"one bound", func(j *JointLimits) { j.MaxPosition = Limit{} }},
		{"inverted", func(j *JointLimits) { j.MinPosition.Value = 2 }},
		{"NaN bound", func(j *JointLimits) { j.MinPosition.Value = math.NaN() }},
		{"negative velocity", func(j *JointLimits) { j.MaxVelocity = Limit{-1, SourceYAML} }},
		{"Inf acceleration", func(j *JointLimits) { j.MaxAcceleration = Limit{math.Inf(1), SourceYAML} }},
	} {
		j := ok
		tc.mod(&j)
		if l, err := NewLimits([]JointLimits{j}); l != nil || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: got %v, %v", tc.name, l, err)
		}
	}
	if l, err := NewLimits([]JointLimits{ok, ok}); l != nil || !errors.Is(err, ErrDuplicateJoint) {
		t.Errorf("duplicate: got %v, %v", l, err)
	}
}

func TestUnloadedConfigurationIsAnErrorNotAPanic(t *testing.T) {
	var l *Limits
	if _, err := l.CheckTrajectory([]string{"j"}, nil, nil, CheckOptions{}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("CheckTrajectory: %v", err)
	}
	if _, err := l.MinDuration([]string{"j"}, []float64{0}, []float64{1}, 1); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("MinDuration: %v", err)
	}
	if _, ok := l.Joint("j"); ok || l.Names() != nil || l.Notes() != nil {
		t.Error("nil limits report joints")
	}
	var b *Base
	if _, err := b.CheckBaseGoal("map", 0, 0); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("CheckBaseGoal: %v", err)
	}
	if _, _, err := b.CheckDrive("map", Pose2D{}, 0, 0, 1); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("CheckDrive: %v", err)
	}
	var p *Policy
	if p.MayConfirm(TierRead, "arm", ConfirmOperator) {
		t.Error("nil policy lets anyone confirm")
	}
}

func TestSoftLimitsGiveAContinuousJointARangeOnlyWithBothBounds(t *testing.T) {
	for _, tc := range []struct {
		name, safety string
		wantRange    bool
		wantIgnored  int
	}{
		{"both bounds", `<safety_controller soft_lower_limit="-6" soft_upper_limit="6" k_velocity="1"/>`, true, 0},
		{"one bound", `<safety_controller soft_upper_limit="6" k_velocity="1"/>`, false, 1},
		{"no bounds", `<safety_controller k_velocity="1"/>`, false, 0},
	} {
		l, ignored, err := LoadLimits([]byte(`<robot><joint name="c" type="continuous"><limit velocity="1" effort="1"/>`+tc.safety+`</joint></robot>`), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := l.Joint("c")
		if c.HasPosition() != tc.wantRange || len(ignored) != tc.wantIgnored {
			t.Errorf("%s: %+v, ignored %+v", tc.name, c, ignored)
		}
		if tc.wantRange && (c.MinPosition != Limit{-6, SourceSafetyController} || !c.Wraps()) {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
}

func TestLimitsDiffNamesEveryChangedJoint(t *testing.T) {
	mk := func(js ...JointLimits) *Limits {
		l, err := NewLimits(js)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	j := func(name string, lo, hi float64) JointLimits {
		return JointLimits{Name: name, Type: Revolute, MinPosition: Limit{lo, SourceURDF}, MaxPosition: Limit{hi, SourceURDF},
			MaxVelocity: Limit{1, SourceURDF}}
	}
	base := mk(j("a", -1, 1), j("b", -2, 2))
	for _, tc := range []struct {
		name  string
		other *Limits
		want  []string
	}{
		{"same", mk(j("a", -1, 1), j("b", -2, 2)), nil},
		{"narrower", mk(j("a", -1, 0.5), j("b", -2, 2)), []string{"a"}},
		{"source only", mk(j("a", -1, 1), JointLimits{Name: "b", Type: Revolute, MinPosition: Limit{-2, SourceYAML}, MaxPosition: Limit{2, SourceURDF}, MaxVelocity: Limit{1, SourceURDF}}), []string{"b"}},
		{"joint gone", mk(j("a", -1, 1)), []string{"b"}},
		{"joint added", mk(j("a", -1, 1), j("b", -2, 2), j("c", 0, 1)), []string{"c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := base.Diff(tc.other); !slices.Equal(got, tc.want) {
				t.Fatalf("Diff = %v, want %v", got, tc.want)
			}
		})
	}
}
