package spline

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzNew builds trajectories from arbitrary numbers: New must never panic,
// and an accepted trajectory of moderate values passes through its points.
func FuzzNew(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(3), []byte("\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40"))
	f.Add(uint8(1), uint8(1), uint8(0), []byte("\x00\x00\x00\x00\x00\x00\xf8\x7f"))
	f.Fuzz(func(t *testing.T, nj, np, shape uint8, raw []byte) {
		next := func() float64 {
			if len(raw) < 8 {
				return 0.5
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(raw))
			raw = raw[8:]
			return v
		}
		J := int(nj % 8)
		start := make([]State, J)
		for j := range start {
			start[j] = State{next(), next(), next()}
		}
		pts := make([]Point, np%16)
		for i := range pts {
			p := Point{Positions: make([]float64, J), Time: float64(i+1) * math.Abs(next())}
			if shape&1 != 0 {
				p.Velocities = make([]float64, J)
			}
			if shape&2 != 0 {
				p.Accelerations = make([]float64, J)
			}
			for j := 0; j < J; j++ {
				p.Positions[j] = next()
				if p.Velocities != nil {
					p.Velocities[j] = next()
				}
				if p.Accelerations != nil {
					p.Accelerations[j] = next()
				}
			}
			pts[i] = p
		}
		tr, err := NewWraparound(start, pts, make([]bool, J))
		if err != nil {
			return
		}
		out := make([]State, J)
		for _, p := range pts {
			tr.At(p.Time, out)
			for j, want := range p.Positions {
				if math.Abs(want) < 1e6 && p.Time < 1e6 && p.Time > 1e-3 && math.Abs(out[j].Pos-want) > 1e-6*math.Max(1, math.Abs(want)) {
					// Large velocities over long segments lose precision; only
					// moderate trajectories must hit their points.
					if ok := moderate(start, pts); ok {
						t.Fatalf("At(%g)[%d] = %g, want %g", p.Time, j, out[j].Pos, want)
					}
				}
			}
		}
		tr.At(math.NaN(), out)
		tr.At(math.Inf(1), out)
	})
}

func moderate(start []State, pts []Point) bool {
	ok := func(xs ...float64) bool {
		for _, x := range xs {
			if math.Abs(x) > 100 {
				return false
			}
		}
		return true
	}
	for _, s := range start {
		if !ok(s.Pos, s.Vel, s.Acc) {
			return false
		}
	}
	prev := 0.0
	for _, p := range pts {
		if !ok(p.Positions...) || !ok(p.Velocities...) || !ok(p.Accelerations...) || p.Time-prev < 1e-3 || p.Time > 100 {
			return false
		}
		prev = p.Time
	}
	return true
}
