package msgdef

import (
	"encoding/json"
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// FuzzParseMsg feeds arbitrary text to the parser: it must never panic,
// and whatever it accepts (nested types aside) must resolve into a type
// whose default value encodes.
func FuzzParseMsg(f *testing.F) {
	for _, s := range []string{
		"int32 x\n", "string<=3[<=2] s ['a', \"b\"]\n", "float64[3] f [1, 2.5, -3]\n",
		"uint8 C=7\nbyte[] data\n", "Point[] p\npkg/Other o\n", "# only a comment\n",
		"wstring w \"ハロー\"\nbool[2] b [true, false]\n", "int32 a\n---\nint32 b\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := ParseMsg("f.msg", "pkg", "F", []byte(src))
		if err != nil {
			return
		}
		for _, fd := range d.Fields {
			if fd.Type.Primitive == "" {
				return
			}
		}
		r := NewRegistry()
		if err := r.Add(d); err != nil {
			t.Fatal(err)
		}
		m, err := r.Message("pkg/F")
		if err != nil {
			t.Fatalf("accepted definition does not resolve: %v", err)
		}
		if _, err := cdr.Encode(m, cdr.BigEndian); err != nil {
			t.Fatalf("defaults of an accepted definition do not encode: %v", err)
		}
	})
}

// FuzzDecodeBridgeTypes decodes arbitrary bytes as the ROS types the
// bridge reads from robots (nested structs, sequences of structs holding
// sequences): never a panic, and what decodes encodes back the same.
func FuzzDecodeBridgeTypes(f *testing.F) {
	r := testRegistry(f)
	names := []string{"trajectory_msgs/msg/JointTrajectory", "sensor_msgs/msg/JointState", "geometry_msgs/msg/Twist", "std_msgs/msg/Header"}
	types := make([]*cdr.Struct, len(names))
	for i, n := range names {
		s, err := r.Struct(n)
		if err != nil {
			f.Fatal(err)
		}
		types[i] = s
		for _, e := range []cdr.Endianness{cdr.LittleEndian, cdr.BigEndian} {
			b, err := cdr.Encode(cdr.Zero(s), e)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), b)
		}
	}
	traj := cdr.Zero(types[0])
	pt := cdr.Zero(types[0].Field(2).Type.Struct)
	pt.Fields[0] = []float64{0.5, -1, 2}
	pt.Fields[3] = []float64{1}
	traj.Fields[1] = []string{"a", "elbow"}
	traj.Fields[2] = []*cdr.Message{pt, pt}
	b, err := cdr.Encode(traj, cdr.LittleEndian)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(0), b)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := types[int(which)%len(types)]
		m, err := cdr.Decode(s, data)
		if err != nil {
			return
		}
		e := cdr.LittleEndian
		if data[1] == 0 {
			e = cdr.BigEndian
		}
		once, err := cdr.Encode(m, e)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
		m2, err := cdr.Decode(s, once)
		if err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if twice, err := cdr.Encode(m2, e); err != nil || string(once) != string(twice) {
			t.Fatalf("round trip differs (%v)", err)
		}
	})
}

// FuzzFromDescription builds types from arbitrary descriptions (JSON of
// TypeDescription), as a node on the network may send them: never a
// panic, and what is accepted resolves, and its zero value encodes and
// decodes.
func FuzzFromDescription(f *testing.F) {
	r := ledRegistry(f)
	for _, n := range []string{"led/srv/SetLed", "led/msg/Pattern", "led/msg/Off", "trajectory_msgs/msg/JointTrajectory"} {
		d, err := r.Describe(n)
		if err != nil {
			f.Fatal(err)
		}
		b, _ := json.Marshal(d)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var d TypeDescription
		if json.Unmarshal(src, &d) != nil {
			return
		}
		got, err := FromDescription(d, d.Type.Name, d.Hash())
		if err != nil {
			return
		}
		s, err := got.Struct(d.Type.Name)
		if err != nil {
			t.Fatalf("accepted description does not resolve: %v", err)
		}
		b, err := cdr.Encode(cdr.Zero(s), cdr.LittleEndian)
		if err != nil {
			t.Fatalf("zero value of an accepted description does not encode: %v", err)
		}
		if _, err := cdr.Decode(s, b); err != nil {
			t.Fatalf("zero value of an accepted description does not decode: %v", err)
		}
	})
}
