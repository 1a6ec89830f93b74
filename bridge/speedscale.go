package bridge

import (
	"math"
	"sync/atomic"
)

// SpeedScale is the process-wide speed fraction for new previews.
type SpeedScale struct{ v atomic.Uint64 }

// NewSpeedScale starts at s.
func NewSpeedScale(s float64) *SpeedScale {
	x := &SpeedScale{}
	x.v.Store(math.Float64bits(s))
	return x
}

// Get returns the current scale.
func (s *SpeedScale) Get() float64 { return math.Float64frombits(s.v.Load()) }

// Set changes the scale and returns the previous one.
func (s *SpeedScale) Set(v float64) float64 {
	return math.Float64frombits(s.v.Swap(math.Float64bits(v)))
}
