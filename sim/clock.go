package sim

import "time"

// Clock is the robot's simulated time. It moves only in whole fixed steps,
// so the physics never depends on how fast the machine runs.
type Clock struct {
	epoch time.Time
	step  time.Duration
	ticks int64
}

// NewClock starts a clock at epoch that advances by step per tick.
func NewClock(epoch time.Time, step time.Duration) *Clock {
	return &Clock{epoch: epoch, step: step}
}

// Now is the simulated time: epoch plus ticks times step.
func (c *Clock) Now() time.Time { return c.epoch.Add(c.Elapsed()) }

// Elapsed is the simulated time since epoch.
func (c *Clock) Elapsed() time.Duration { return time.Duration(c.ticks) * c.step }

// Step is the fixed physics step.
func (c *Clock) Step() time.Duration { return c.step }

// Tick advances the clock by one step.
func (c *Clock) Tick() { c.ticks++ }

// pacer turns wall time into a number of fixed steps to run, so simulated
// time follows wall time times scale without ever changing the step size.
// When the machine falls behind by more than maxLag, the missed time is
// dropped (the simulation slows down) instead of being replayed in a burst.
type pacer struct {
	scale  float64
	step   time.Duration
	maxLag time.Duration

	wallStart time.Time
	simStart  time.Duration
}

// due returns how many steps to run at wall time now, given the simulated
// time elapsed so far.
func (p *pacer) due(now time.Time, simElapsed time.Duration) int {
	if p.wallStart.IsZero() {
		p.wallStart, p.simStart = now, simElapsed
	}
	target := p.simStart + time.Duration(float64(now.Sub(p.wallStart))*p.scale)
	behind := target - simElapsed
	if behind > p.maxLag {
		// Re-anchor so that we are exactly maxLag behind from now on.
		p.wallStart, p.simStart = now, simElapsed+p.maxLag
		behind = p.maxLag
	}
	if behind <= 0 {
		return 0
	}
	return int(behind / p.step)
}
