package tf

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
)

// FuzzBuffer feeds arbitrary updates and lookups: nothing panics, and a
// lookup that succeeds returns a finite rigid transform.
func FuzzBuffer(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBuffer(Options{MaxFrames: 16, MaxSamples: 8, CacheTime: time.Second})
		names := []string{"map", "odom", "base", "arm", "tool", "/map", ""}
		for len(data) >= 12 {
			op, p, c, src := data[0], names[int(data[1])%len(names)], names[int(data[2])%len(names)], string(rune('a'+data[3]%3))
			at := t0.Add(time.Duration(int16(binary.LittleEndian.Uint16(data[4:]))) * time.Millisecond)
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[6:]))
			w := float64(int8(data[10])) / 64
			data = data[12:]
			if op%3 == 0 {
				if tr, _, err := b.Lookup(p, c, time.Time{}); err == nil {
					for _, x := range append(tr.Translation[:], tr.Rotation[:]...) {
						if math.IsNaN(x) || math.IsInf(x, 0) {
							t.Fatalf("non-finite lookup %v", tr)
						}
					}
				}
				continue
			}
			q := kinematics.Quat{w, 0, 0, math.Sqrt(math.Max(0, 1-w*w))}
			_ = b.Add(Stamped{Parent: p, Child: c, Stamp: at, Transform: Transform{Translation: kinematics.Vec3{float64(v), 0, 0}, Rotation: q}}, op%3 == 1, src, at)
		}
		b.Frames()
	})
}
