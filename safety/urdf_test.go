package safety

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseURDFReadsEveryJointOfTheArmAndNothingFromTransmissions(t *testing.T) {
	u, err := ParseURDF(readTestdata(t, "ab6.urdf"))
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "ab6" {
		t.Errorf("name %q", u.Name)
	}
	var names []string
	for _, j := range u.Joints {
		names = append(names, j.Name+":"+string(j.Type))
	}
	want := "world_joint:fixed shoulder_pan_joint:revolute shoulder_lift_joint:revolute elbow_joint:revolute " +
		"wrist_1_joint:revolute wrist_2_joint:revolute wrist_3_joint:continuous tool0_fixed_joint:fixed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("joints\n got %s\nwant %s", got, want)
	}
	elbow, _ := u.Joint("elbow_joint")
	if elbow.Parent != "upper_arm_link" || elbow.Child != "forearm_link" {
		t.Errorf("elbow links %q → %q", elbow.Parent, elbow.Child)
	}
	if l := elbow.Limit; l == nil || *l != (URDFLimit{Lower: -2.8, Upper: 2.8, Velocity: 3, Effort: 150}) {
		t.Errorf("elbow limit %+v", l)
	}
	if s := elbow.Safety; s == nil || *s != (URDFSafety{SoftLower: -2.6, SoftUpper: 2.6, HasSoftLower: true, HasSoftUpper: true, KPosition: 20, KVelocity: 500}) {
		t.Errorf("elbow safety controller %+v", s)
	}
	w3, _ := u.Joint("wrist_3_joint")
	if w3.Limit == nil || w3.Limit.Velocity != 3.2 || w3.Limit.Lower != 0 || w3.Limit.Upper != 0 {
		t.Errorf("wrist_3 limit %+v", w3.Limit)
	}
}

func TestParseURDFRecordsMimicJoints(t *testing.T) {
	u, err := ParseURDF([]byte(`<robot name="g">
	  <joint name="finger_l" type="prismatic"><limit lower="0" upper="0.04" velocity="0.1" effort="20"/></joint>
	  <joint name="finger_r" type="prismatic"><limit lower="0" upper="0.04" velocity="0.1" effort="20"/>
	    <mimic joint="finger_l" multiplier="-1"/></joint></robot>`))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := u.Joint("finger_r")
	if r.Mimic == nil || *r.Mimic != (URDFMimic{Joint: "finger_l", Multiplier: -1}) {
		t.Errorf("mimic %+v", r.Mimic)
	}
}

func TestParseURDFRejectsMalformedDescriptionsWithAnError(t *testing.T) {
	rev := func(limit string) string {
		return `<robot name="r"><joint name="j" type="revolute">` + limit + `</joint></robot>`
	}
	for _, tc := range []struct {
		name string
		in   string
		want error
	}{
		{"empty", ``, ErrInvalidURDF},
		{"not xml", `{"robot": 1}`, ErrInvalidURDF},
		{"wrong root", `<model/>`, ErrInvalidURDF},
		{"two roots", `<robot/><robot/>`, ErrInvalidURDF},
		{"unclosed", `<robot><joint name="j" type="fixed">`, ErrInvalidURDF},
		{"xacro namespace", `<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="m"/></robot>`, ErrXacro},
		{"xacro property in name", `<robot><joint name="${prefix}j" type="fixed"/></robot>`, ErrXacro},
		{"revolute without limit", rev(``), ErrInvalidURDF},
		{"limit without velocity", rev(`<limit lower="0" upper="1" effort="1"/>`), ErrInvalidURDF},
		{"limit without effort", rev(`<limit lower="0" upper="1" velocity="1"/>`), ErrInvalidURDF},
		{"NaN lower", rev(`<limit lower="NaN" upper="1" velocity="1" effort="1"/>`), ErrInvalidURDF},
		{"Inf upper", rev(`<limit lower="0" upper="+Inf" velocity="1" effort="1"/>`), ErrInvalidURDF},
		{"xacro expression", rev(`<limit lower="${-pi}" upper="1" velocity="1" effort="1"/>`), ErrInvalidURDF},
		{"lower above upper", rev(`<limit lower="2" upper="1" velocity="1" effort="1"/>`), ErrInvalidURDF},
		{"negative velocity", rev(`<limit lower="0" upper="1" velocity="-1" effort="1"/>`), ErrInvalidURDF},
		{"two limits", rev(`<limit lower="0" upper="1" velocity="1" effort="1"/><limit lower="0" upper="2" velocity="1" effort="1"/>`), ErrInvalidURDF},
		{"soft range inverted", rev(`<limit lower="0" upper="1" velocity="1" effort="1"/><safety_controller soft_lower_limit="0.8" soft_upper_limit="0.2" k_velocity="1"/>`), ErrInvalidURDF},
		{"safety controller without k_velocity", rev(`<limit lower="0" upper="1" velocity="1" effort="1"/><safety_controller soft_lower_limit="0.1"/>`), ErrInvalidURDF},
		{"mimic without joint", rev(`<limit lower="0" upper="1" velocity="1" effort="1"/><mimic/>`), ErrInvalidURDF},
		{"unknown type", `<robot><joint name="j" type="hinge"/></robot>`, ErrInvalidURDF},
		{"no name", `<robot><joint type="fixed"/></robot>`, ErrInvalidURDF},
		{"duplicate joint", `<robot><joint name="j" type="fixed"/><joint name="j" type="fixed"/></robot>`, ErrInvalidURDF},
		{"undeclared entity", `<robot name="&bomb;"/>`, ErrInvalidURDF},
		{"too deep", "<robot>" + strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100) + "</robot>", ErrTooLarge},
		{"too large", "<robot>" + strings.Repeat(" ", MaxURDFBytes) + "</robot>", ErrTooLarge},
	} {
		u, err := ParseURDF([]byte(tc.in))
		if u != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, u, err, tc.want)
		}
	}
}

func TestParseURDFErrorsClipHostileNames(t *testing.T) {
	long := strings.Repeat("é", 10000)
	_, err := ParseURDF([]byte(`<robot><joint name="` + long + `" type="hinge"/></robot>`))
	if err == nil || len(err.Error()) > 400 {
		t.Errorf("error of %d bytes: %.80v", len(err.Error()), err)
	}
}

func TestParseURDFAcceptsUnicodeNames(t *testing.T) {
	u, err := ParseURDF([]byte(`<robot name="ロボ"><joint name="関節_1" type="continuous"/></robot>`))
	if err != nil {
		t.Fatal(err)
	}
	if j, ok := u.Joint("関節_1"); !ok || j.Type != Continuous || j.Limit != nil {
		t.Errorf("joint %+v %v", j, ok)
	}
}
