package urdf_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/urdf"
)

// Parse reads the links and each joint's <origin> and <axis>, with urdfdom's
// defaults when they are absent; joints and links inside <link>,
// <transmission> or <gazebo> are not the robot's. (The limits, safety
// controllers and mimic tags are tested through safety.ParseURDF.)
func TestParseReadsLinksOriginsAndAxes(t *testing.T) {
	r, err := urdf.Parse([]byte(`<robot name="r">
	  <link name="a"><visual><origin xyz="9 9 9" rpy="1 1 1"/></visual></link>
	  <link name="b"/>
	  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
	    <origin xyz=" 0.1  -2e-3 3 " rpy="0.5 -1 1.5707963267948966"/><axis xyz="0 -1 0"/>
	    <limit lower="-1" upper="1" velocity="1" effort="1"/></joint>
	  <joint name="bare" type="fixed"><parent link="b"/><child link="c"/></joint>
	  <link name="c"/>
	  <transmission name="t"><joint name="j"/></transmission>
	  <gazebo><link name="g"/></gazebo>
	</robot>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Links, " "); got != "a b c" {
		t.Errorf("links %q, want a b c", got)
	}
	j, _ := r.Joint("j")
	if j.Origin != (urdf.Origin{XYZ: [3]float64{0.1, -2e-3, 3}, RPY: [3]float64{0.5, -1, 1.5707963267948966}}) || j.Axis != [3]float64{0, -1, 0} || j.GeometryErr != nil {
		t.Errorf("joint j origin %+v axis %v err %v", j.Origin, j.Axis, j.GeometryErr)
	}
	b, _ := r.Joint("bare")
	if b.Origin != (urdf.Origin{}) || b.Axis != [3]float64{1, 0, 0} || b.GeometryErr != nil {
		t.Errorf("joint without <origin> and <axis>: origin %+v axis %v err %v", b.Origin, b.Axis, b.GeometryErr)
	}
}

// A malformed <origin> or <axis> is recorded on its joint and does not
// refuse the document: the limits safety reads from a URDF it accepted
// before the geometry was parsed are accepted still.
func TestMalformedGeometryIsRecordedNotFatal(t *testing.T) {
	for _, g := range []string{
		`<origin xyz="1 2"/>`, `<origin rpy="0 0 x"/>`, `<origin xyz="1 2 3 4"/>`,
		`<axis xyz="0 0 inf"/>`, `<axis xyz="${axis}"/>`, `<origin xyz="NaN 0 0"/>`,
	} {
		r, err := urdf.Parse([]byte(`<robot name="r"><joint name="j" type="revolute">` + g +
			`<limit lower="-1" upper="1" velocity="1" effort="1"/></joint></robot>`))
		if err != nil {
			t.Errorf("%s refuses the document: %v", g, err)
			continue
		}
		j, _ := r.Joint("j")
		if !errors.Is(j.GeometryErr, urdf.ErrInvalid) || !strings.Contains(j.GeometryErr.Error(), `joint "j"`) || j.Limit == nil {
			t.Errorf("%s: GeometryErr %v, limit %+v", g, j.GeometryErr, j.Limit)
		}
	}
}

// Parse reads each link's box, cylinder and sphere collision shapes with
// their origins, skips meshes and visuals, and marks a malformed shape on
// the collision rather than refusing the robot.
func TestParseReadsCollisionShapes(t *testing.T) {
	r, err := urdf.Parse([]byte(`<robot name="r">
	  <link name="a">
	    <visual><geometry><box size="9 9 9"/></geometry></visual>
	    <collision><origin xyz="0 0 0.5" rpy="0 0 1"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
	    <collision><geometry><mesh filename="package://x.stl"/></geometry></collision>
	  </link>
	  <link name="b">
	    <collision><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
	    <collision><geometry><sphere radius="0.07"/></geometry></collision>
	    <collision><geometry><sphere radius="-1"/></geometry></collision>
	    <collision><geometry><box size="1 1"/></geometry></collision>
	  </link>
	</robot>`))
	if err != nil {
		t.Fatal(err)
	}
	cs := r.Collisions
	if len(cs) != 5 {
		t.Fatalf("collisions %+v, want 5", cs)
	}
	want := []urdf.Collision{
		{Link: "a", Origin: urdf.Origin{XYZ: [3]float64{0, 0, 0.5}, RPY: [3]float64{0, 0, 1}}, Shape: urdf.Box, Size: [3]float64{0.1, 0.2, 0.3}},
		{Link: "b", Shape: urdf.Cylinder, Size: [3]float64{0.05, 0.4, 0}},
		{Link: "b", Shape: urdf.Sphere, Size: [3]float64{0.07, 0, 0}},
	}
	for i, w := range want {
		if cs[i] != w {
			t.Errorf("collision %d: %+v, want %+v", i, cs[i], w)
		}
	}
	for _, c := range cs[3:] {
		if c.Link != "b" || !errors.Is(c.Err, urdf.ErrInvalid) {
			t.Errorf("malformed collision %+v", c)
		}
	}
}
