package roslink

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/ros1/rostest"
)

// urdf is a robot description with everything XML-RPC must escape, entity
// text that must stay literal, quotes, tabs and non-ASCII text.
const urdf = `<?xml version="1.0" encoding="utf-8"?>
<!-- arm & gripper; "quoted" and 'single' -->
<robot name="sim_arm">
	<link name="base_link"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
	<joint name="shoulder" type="revolute">
		<limit lower="-1.57" upper="1.57" effort="10" velocity="1.0"/>
	</joint>
	<!-- literal entity text must survive: &amp; &lt; &#60; &#x3C; -->
	<material name="grün ✓ 机器人 🤖"/>
	<note>a<b && c>d</note>
</robot>
`

func TestEscapeXMLTextEscapesMarkupAndRefusesNonXMLCharacters(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "", want: ""},
		{in: "plain", want: "plain"},
		{in: `<a href="x">&amp;</a>`, want: `&lt;a href="x"&gt;&amp;amp;&lt;/a&gt;`},
		{in: "tab\tnl\n", want: "tab\tnl\n"},
		{in: "cr\r\n", want: "cr&#13;\n"},
		{in: "ünï 🤖", want: "ünï 🤖"},
		{in: "nul\x00", wantErr: true},
		{in: "bell\x07", wantErr: true},
		{in: "bad utf8 \xff", wantErr: true},
		{in: "\uFFFE", wantErr: true},
	}
	for _, tt := range tests {
		got, err := escapeXMLText(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("escapeXMLText(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("escapeXMLText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParamRoundTripsURDFThroughRealMaster(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	n := openTestLink(t, m, nil).Node()

	// Ours → rosparam.
	if err := SetParamString(n, "/robot_description", urdf); err != nil {
		t.Fatalf("SetParamString: %v", err)
	}
	out, err := m.Run(toolTimeout, "rosparam", "get", "-p", "/robot_description")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(out, "\n"); got != urdf {
		t.Errorf("rosparam get after SetParamString:\n got %q\nwant %q", got, urdf)
	}

	// rosparam → ours, loaded as a text file as roslaunch does.
	path := filepath.Join(t.TempDir(), "robot.urdf")
	if err := os.WriteFile(path, []byte(urdf), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(toolTimeout, "rosparam", "set", "--textfile", path, "/from_rosparam"); err != nil {
		t.Fatal(err)
	}
	got, err := GetParamString(n, "/from_rosparam")
	if err != nil {
		t.Fatalf("GetParamString: %v", err)
	}
	if got != urdf {
		t.Errorf("GetParamString after rosparam set:\n got %q\nwant %q", got, urdf)
	}

	// Ours → ours.
	got, err = GetParamString(n, "/robot_description")
	if err != nil || got != urdf {
		t.Errorf("GetParamString after SetParamString = %q, %v", got, err)
	}
}

func TestParamScalarsRoundTripThroughRealMaster(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	n := openTestLink(t, m, nil).Node()

	if err := SetParamBool(n, "/b", true); err != nil {
		t.Fatal(err)
	}
	if err := SetParamInt(n, "/i", -42); err != nil {
		t.Fatal(err)
	}
	if err := SetParamFloat64(n, "/f", 0.125); err != nil {
		t.Fatal(err)
	}
	if err := SetParamString(n, "/s", ""); err != nil {
		t.Fatal(err)
	}
	out, err := m.Run(toolTimeout, "rosparam", "get", "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"b: true", "i: -42", "f: 0.125", "s: ''"} {
		if !hasLine(out, want) {
			t.Errorf("rosparam get / lacks %q:\n%s", want, out)
		}
	}
	if b, err := GetParamBool(n, "/b"); err != nil || !b {
		t.Errorf("GetParamBool = %v, %v", b, err)
	}
	if i, err := GetParamInt(n, "/i"); err != nil || i != -42 {
		t.Errorf("GetParamInt = %v, %v", i, err)
	}
	if f, err := GetParamFloat64(n, "/f"); err != nil || f != 0.125 {
		t.Errorf("GetParamFloat64 = %v, %v", f, err)
	}
	if s, err := GetParamString(n, "/s"); err != nil || s != "" {
		t.Errorf("GetParamString of empty = %q, %v", s, err)
	}
	if ok, err := HasParam(n, "/nope"); err != nil || ok {
		t.Errorf("HasParam(/nope) = %v, %v", ok, err)
	}
	if ok, err := HasParam(n, "/b"); err != nil || !ok {
		t.Errorf("HasParam(/b) = %v, %v", ok, err)
	}
	if err := SetParamInt(n, "/big", 1<<40); err == nil {
		t.Errorf("SetParamInt accepted a value XML-RPC cannot carry")
	}
	_, err = GetParamString(n, "/missing")
	if err == nil || !strings.Contains(err.Error(), "/missing") {
		t.Errorf("GetParamString(/missing) error = %v, want one naming the parameter", err)
	}
}
