package msgdef

import (
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// BenchmarkJointState7 measures one 7-joint JointState, the sample a robot
// streams at up to 1 kHz.
func BenchmarkJointState7(b *testing.B) {
	r := testRegistry(b)
	m, err := r.Message("sensor_msgs/msg/JointState")
	if err != nil {
		b.Fatal(err)
	}
	m.Fields[1] = []string{"shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3", "gripper"}
	for i := 2; i < 5; i++ {
		m.Fields[i] = make([]float64, 7)
	}
	data, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, len(data))
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = cdr.AppendEncode(buf[:0], m, cdr.LittleEndian)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cdr.Decode(m.Type, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFromDescription measures learning a service type from its
// description (the nested SetLed of the tests: 7 types), beside its
// floor, the RIHS01 hash of the same description alone, which
// FromDescription computes once of what it built.
func BenchmarkFromDescription(b *testing.B) {
	d, err := ledRegistry(b).Describe("led/srv/SetLed")
	if err != nil {
		b.Fatal(err)
	}
	hash := d.Hash()
	b.Run("learn", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := FromDescription(d, "led/srv/SetLed", hash); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor-hash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = d.Hash()
		}
	})
}
