package ros1

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
)

// encodeJointState serializes m with goroslib, without the length prefix.
func encodeJointState(t testing.TB, m *sensor_msgs.JointState) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := protocommon.MessageEncode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()[4:]
}

// goroslibDecode decodes body the way goroslib's subscriber did.
func goroslibDecode(body []byte) (*sensor_msgs.JointState, error) {
	var m sensor_msgs.JointState
	in := append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
	return &m, protocommon.MessageDecode(bytes.NewReader(in), &m)
}

// sameJointState compares field by field, floats by bits (NaN is NaN).
func sameJointState(a, b *sensor_msgs.JointState) bool {
	bits := func(xs []float64) []uint64 {
		var out []uint64
		for _, x := range xs {
			out = append(out, math.Float64bits(x))
		}
		return out
	}
	return a.Header.Seq == b.Header.Seq && a.Header.Stamp.Equal(b.Header.Stamp) && a.Header.Stamp.IsZero() == b.Header.Stamp.IsZero() &&
		a.Header.FrameId == b.Header.FrameId && slices.Equal(a.Name, b.Name) &&
		(a.Name == nil) == (b.Name == nil) && slices.Equal(bits(a.Position), bits(b.Position)) &&
		slices.Equal(bits(a.Velocity), bits(b.Velocity)) && slices.Equal(bits(a.Effort), bits(b.Effort))
}

var armState = &sensor_msgs.JointState{
	Header: std_msgs.Header{Seq: 42, Stamp: time.Unix(1700000000, 123456789).UTC(), FrameId: "base_link"},
	Name: []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint",
		"wrist_3_joint", "gripper_finger_joint"},
	Position: []float64{0.1, -1.2, 1.3, -0.4, 0.5, math.Pi, 0.02},
	Velocity: []float64{0, 0, 0, 0, 0, 0, 0},
	Effort:   []float64{1, 2, 3, 4, 5, 6, math.Inf(-1)},
}

func TestJointStateDecodesAsGoroslibDoes(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *sensor_msgs.JointState
	}{
		{"arm and gripper", armState},
		{"empty", &sensor_msgs.JointState{}},
		{"names only", &sensor_msgs.JointState{Name: []string{"a", ""}}},
		{"negative stamp", &sensor_msgs.JointState{Header: std_msgs.Header{Stamp: time.Unix(-5, 7).UTC()}, Position: []float64{math.NaN()}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := encodeJointState(t, tc.m)
			got, err := decodeJointState(body)
			want, werr := goroslibDecode(body)
			if err != nil || werr != nil || !sameJointState(got, want) {
				t.Fatalf("decoded %+v, %v; goroslib %+v, %v", got, err, want, werr)
			}
		})
	}
}

func TestMalformedJointStatesAreErrorsNotPanics(t *testing.T) {
	body := encodeJointState(t, armState)
	hugeNames := slices.Clone(body)
	binary.LittleEndian.PutUint32(hugeNames[12+4+len("base_link"):], 0xffffffff)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"nothing", nil},
		{"cut in the header", body[:7]},
		{"cut in a name", body[:30]},
		{"cut in the efforts", body[:len(body)-1]},
		{"a byte too many", append(slices.Clone(body), 0)},
		{"four billion names", hugeNames},
		{"frame id longer than the message", binary.LittleEndian.AppendUint32(make([]byte, 12), 1000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if m, err := decodeJointState(tc.in); !errors.Is(err, errBadJointState) {
				t.Fatalf("decoded %+v, %v; want errBadJointState", m, err)
			}
			if _, err := goroslibDecode(tc.in); err == nil {
				t.Errorf("goroslib decodes it: the two decoders disagree")
			}
		})
	}
}

// FuzzDecodeJointState: on any bytes the decoder never panics, and it
// accepts exactly what goroslib accepts, with the same values.
func FuzzDecodeJointState(f *testing.F) {
	f.Add(encodeJointState(f, armState))
	f.Add(encodeJointState(f, &sensor_msgs.JointState{}))
	f.Add(encodeJointState(f, &sensor_msgs.JointState{Name: []string{"j"}, Position: []float64{1}}))
	f.Add([]byte{})
	f.Add(binary.LittleEndian.AppendUint32(make([]byte, 16), 0xffffffff))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodeJointState(body)
		want, werr := goroslibDecode(body)
		if (err == nil) != (werr == nil) {
			t.Fatalf("decodeJointState: %v; goroslib: %v", err, werr)
		}
		if err == nil && !sameJointState(got, want) {
			t.Fatalf("decoded %+v, goroslib %+v", got, want)
		}
	})
}
