package sim

import (
	"testing"
	"time"
)

func TestPacerFollowsWallTimeTimesScale(t *testing.T) {
	tests := []struct {
		scale float64
		wall  time.Duration
		want  int
	}{
		{1, 50 * time.Millisecond, 50},
		{2, 30 * time.Millisecond, 60},
		{0.5, 40 * time.Millisecond, 20},
	}
	for _, tt := range tests {
		p := &pacer{scale: tt.scale, step: time.Millisecond, maxLag: time.Second}
		start := time.Unix(0, 0)
		if n := p.due(start, 0); n != 0 {
			t.Errorf("scale %g: %d steps at start", tt.scale, n)
		}
		if n := p.due(start.Add(tt.wall), 0); n != tt.want {
			t.Errorf("scale %g after %s: %d steps, want %d", tt.scale, tt.wall, n, tt.want)
		}
	}
}

func TestPacerDropsTimeBeyondMaxLag(t *testing.T) {
	p := &pacer{scale: 1, step: time.Millisecond, maxLag: 100 * time.Millisecond}
	start := time.Unix(0, 0)
	p.due(start, 0)
	// The machine stalled for 2 s: run at most 100 ms now, then keep pace.
	n := p.due(start.Add(2*time.Second), 0)
	if n != 100 {
		t.Fatalf("after a 2 s stall: %d steps, want 100", n)
	}
	sim := time.Duration(n) * time.Millisecond
	if n := p.due(start.Add(2*time.Second+10*time.Millisecond), sim); n != 10 {
		t.Errorf("10 ms later: %d steps, want 10", n)
	}
}

func TestSimulationIsDeterministic(t *testing.T) {
	run := func() []float64 {
		r := newTestRobot(t)
		r.SetFaults(Faults{Arm: ArmFaults{Lag: 50 * time.Millisecond}})
		r.ArmGoal(GoalID{ID: "g"}, traj(r, 0.7, []float64{0.3, 0.1, -0.2, 0.4, 0.5, 1}, uniform(6, 0.2)))
		r.NavigateGoal(GoalID{ID: "n"}, navTo(0.4, 0.2, 1, "odom"))
		for range 137 {
			r.Advance(7 * time.Millisecond)
		}
		p := r.BasePose()
		return append(r.ArmPositions(), p.X, p.Y, p.Yaw)
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("two identical runs differ: %v vs %v", a, b)
		}
	}
}

func TestClockAdvancesInWholeSteps(t *testing.T) {
	c := NewClock(time.Unix(10, 0), 2*time.Millisecond)
	for range 5 {
		c.Tick()
	}
	if c.Elapsed() != 10*time.Millisecond || !c.Now().Equal(time.Unix(10, 10_000_000)) {
		t.Errorf("elapsed %s now %s", c.Elapsed(), c.Now())
	}
}
