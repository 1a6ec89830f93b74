package bench

import (
	"fmt"
	"time"
)

// ROS2StopResult is the ros2 stop row's raw data.
type ROS2StopResult struct {
	StopResult         // ToCancel: the stop called → the cancel_goal request's DATA left; Floor: one RTPS write of its size → its DATA left
	Wire        Sample // the stop's first byte written → the DATA left
	FloorTaken  Sample // the floor's write → our reader took it
	PayloadSize int
}

// cancelAllGoal is the end of a cancel_goal request that cancels every
// goal: a zero goal id and a zero stamp (ROS 2's CancelGoal rule), which
// a planner's motion_cancel (its goal's id) never carries.
var cancelAllGoal = make([]byte, 24)

// MeasureStopROS2 times the stop (robot_stop, or POST /stop) → the arm's
// cancel_goal request that cancels all leaving on the wire (the tap's
// kernel stamp of the bridge's DATA on that topic), n times, under the
// load of o from a nice-19 process, as MeasureStop does over ROS 1. The
// floor, in the same iterations under the same load, is one RTPS write of
// the same size from our writer to a matched reader. An operator resets
// the e-stop after each stop.
func MeasureStopROS2(w *World, pr *ros2Probe, n int, o StopOpts) (Row, ROS2StopResult) {
	var res ROS2StopResult
	payload := floorPayload(64) // until the first cancel is seen: then its size
	var sr StopResult
	sr, note := stopLoop{w: w, o: o, n: n, name: o.key("ros2_stop"),
		stopOnce: func(i int, stop func() (any, error)) (time.Duration, error) {
			tw := pr.tap.watch(pr.cancelW)
			w.wire.arm()
			t0 := time.Now()
			_, err := stop()
			onWire := w.wire.written()
			if err != nil {
				pr.tap.forget(tw)
				return 0, err
			}
			cancel, err := pr.tap.seen(tw, cancelAllGoal, 5*time.Second)
			if err != nil {
				return 0, err
			}
			payload, res.PayloadSize = floorPayload(len(cancel.payload)), len(cancel.payload)
			if i >= 2 && !onWire.IsZero() {
				res.Wire = append(res.Wire, cancel.at.Sub(onWire))
			}
			return cancel.at.Sub(t0), nil
		},
		floor: func(i int) (time.Duration, error) {
			f0 := time.Now()
			fw, fr, err := pr.floorWrite(payload)
			if err != nil {
				return 0, fmt.Errorf("floor write: %w", err)
			}
			if i >= 2 {
				res.FloorTaken = append(res.FloorTaken, fr.Sub(f0))
			}
			return fw.Sub(f0), nil
		},
	}.run()
	res.StopResult = sr

	r50, r99 := ratio(res.ToCancel.P50(), res.Floor.P50()), ratio(res.ToCancel.P99(), res.Floor.P99())
	target, met := o.target(res.ToCancel.P99(), res.Floor.P99())
	return Row{
		Key: o.key("ros2_stop"),
		What: fmt.Sprintf("ROS 2: %s → arm cancel_goal request on the wire (kernel stamp of its DATA, %d octets), %s (n=%d, %s)",
			o.what(), res.PayloadSize, o.loadText(), len(res.ToCancel), loadNote(res.Load)),
		Result: fmt.Sprintf("p50 %s · p99 %s (from the request's first byte written p50 %s · p99 %s)%s; %s", ms(res.ToCancel.P50()), ms(res.ToCancel.P99()),
			ms(res.Wire.P50()), ms(res.Wire.P99()), errNote(loadErrors(res.Load)), note),
		Floor: fmt.Sprintf("one RTPS write of that size to a matched reader under the same load, to its DATA on the wire: p50 %s · p99 %s (to the reader's take p50 %s · p99 %s)",
			ms(res.Floor.P50()), ms(res.Floor.P99()), ms(res.FloorTaken.P50()), ms(res.FloorTaken.P99())),
		Ratio:  fmt.Sprintf("p50 %s · p99 %s", fx(r50), fx(r99)),
		Target: target,
		Met:    met,
		Values: map[string]float64{"p50_ms": msf(res.ToCancel.P50()), "p99_ms": msf(res.ToCancel.P99()), "wire_p50_ms": msf(res.Wire.P50()),
			"floor_p50_ms": msf(res.Floor.P50()), "floor_p99_ms": msf(res.Floor.P99()), "floor_taken_p99_ms": msf(res.FloorTaken.P99()),
			"hammer_calls": float64(res.Load.Calls), "planner_calls": float64(res.Load.PlannerCalls), "mix_steps": float64(res.Load.MixSteps), "payload_octets": float64(res.PayloadSize),
			"bridge_cpu_share": res.CPUShare, "bridge_run_wait_ms_per_s": msf(res.RunWait)},
	}, res
}
