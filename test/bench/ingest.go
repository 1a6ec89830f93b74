package bench

import (
	"fmt"
	"syscall"
	"time"
)

// IngestResult is the ingestion row's raw data.
type IngestResult struct {
	BridgePct, FloorPct float64 // % of one core over the window
	Rate                float64 // /joint_states messages per second the floor received
	Window              time.Duration
}

// MeasureIngest starts a world whose sim publishes /joint_states (6 arm
// joints and the gripper: 7) at 1 kHz, and a bare goroslib subscriber
// process beside the bridge (the floor), and reads both processes' CPU time
// from /proc/<pid>/stat over the same window after a warm-up. Nothing else
// talks to the bridge meanwhile.
func MeasureIngest(e *Env, warm, window time.Duration) (Row, IngestResult) {
	tb := e.TB
	w := NewWorld(e, WorldOpts{SimArgs: []string{"--joint-states-hz", "1000"}})
	defer w.Close()
	floor := startFloor(e, floorJointStates, w.Master.Env())
	defer floor.Stop(syscall.SIGTERM)
	floor.WaitOutput(tb, "subscribed", 30*time.Second)
	time.Sleep(warm)

	bpid, fpid := w.Bridge.Pid(), floor.Pid()
	b0, err1 := cpuSeconds(bpid)
	f0, err2 := cpuSeconds(fpid)
	n0 := lastCount(floor)
	t0 := time.Now()
	time.Sleep(window)
	b1, err3 := cpuSeconds(bpid)
	f1, err4 := cpuSeconds(fpid)
	el := time.Since(t0)
	time.Sleep(1100 * time.Millisecond) // one more count line, covering the window
	n1 := lastCount(floor)
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			tb.Fatal(err)
		}
	}
	res := IngestResult{BridgePct: 100 * (b1 - b0) / el.Seconds(), FloorPct: 100 * (f1 - f0) / el.Seconds(),
		Rate: float64(n1-n0) / (el + 1100*time.Millisecond).Seconds(), Window: el}
	r := res.BridgePct / res.FloorPct
	return Row{
		Key:    "ingest",
		What:   fmt.Sprintf("/joint_states ingestion, 7 joints at 1 kHz (%.0f msg/s seen by the floor): bridge CPU over %.0f s", res.Rate, el.Seconds()),
		Result: fmt.Sprintf("%.2f %% of one core", res.BridgePct),
		Floor:  fmt.Sprintf("bare goroslib subscriber process: %.2f %%", res.FloorPct),
		Ratio:  fx(r),
		Target: "≤ 3 % of one core",
		Met:    yes(res.BridgePct <= 3),
		Values: map[string]float64{"bridge_pct": res.BridgePct, "floor_pct": res.FloorPct, "rate": res.Rate},
	}, res
}
