package bench

import (
	"fmt"
	"time"
)

// ROS2StopResult is the ros2 stop row's raw data.
type ROS2StopResult struct {
	ToCancel    Sample // robot_stop called → the cancel_goal request's DATA left
	Wire        Sample // the stop's first byte written → the DATA left
	Floor       Sample // one RTPS write of its size → its DATA left
	FloorTaken  Sample // → our reader took it
	PayloadSize int
	HammerCalls int64
	HammerErrs  int64
	Elapsed     time.Duration
}

// MeasureStopROS2 times robot_stop → the arm's cancel_goal request leaving
// on the wire (the tap's kernel stamp of the bridge's next DATA on that
// topic), n times, under the ROS 1 stop row's load: hammer MCP sessions
// calling ReadTool from a nice-19 process. The floor, in the same
// iterations under the same load, is one RTPS write of the same size from
// our writer to a matched reader. An operator resets the e-stop after
// each stop.
func MeasureStopROS2(w *World, pr *ros2Probe, n, hammer int) (Row, ROS2StopResult) {
	tb := w.env.TB
	var res ROS2StopResult
	stopper, operator := w.Client(""), w.Client(w.OperatorToken())
	payload := floorPayload(64) // until the first cancel is seen: then its size
	load := startHammer(w, hammer)
	time.Sleep(time.Second) // the load is up
	for i := range n + 2 {
		time.Sleep(100 * time.Millisecond)
		tw := pr.tap.watch(pr.cancelW)
		w.wire.arm()
		t0 := time.Now()
		out, err := call(stopper, "robot_stop", map[string]any{"reason": "bench"})
		onWire := w.wire.written()
		if err != nil {
			pr.tap.forget(tw)
			tb.Fatalf("robot_stop: %v", err)
		}
		cancel, err := pr.tap.seen(tw, nil, 5*time.Second)
		if err != nil {
			tb.Fatalf("robot_stop #%d: %v", i, err)
		}
		if _, err := call(operator, "estop_reset", map[string]any{"event": out["estop_event"]}); err != nil {
			tb.Fatalf("estop_reset: %v", err)
		}
		payload = floorPayload(len(cancel.payload))
		res.PayloadSize = len(cancel.payload)
		f0 := time.Now()
		fw, fr, err := pr.floorWrite(payload)
		if err != nil {
			tb.Fatalf("floor write: %v", err)
		}
		if i >= 2 {
			res.ToCancel = append(res.ToCancel, cancel.at.Sub(t0))
			if !onWire.IsZero() {
				res.Wire = append(res.Wire, cancel.at.Sub(onWire))
			}
			res.Floor, res.FloorTaken = append(res.Floor, fw.Sub(f0)), append(res.FloorTaken, fr.Sub(f0))
		}
	}
	res.HammerCalls, res.HammerErrs, res.Elapsed = load.stop()

	r50, r99 := ratio(res.ToCancel.P50(), res.Floor.P50()), ratio(res.ToCancel.P99(), res.Floor.P99())
	return Row{
		Key: "ros2_stop",
		What: fmt.Sprintf("ROS 2: robot_stop → arm cancel_goal request on the wire (kernel stamp of its DATA, %d octets), %d clients hammering %s from a nice-19 process (n=%d, %.0f reads/s meanwhile)",
			res.PayloadSize, hammer, ReadTool, len(res.ToCancel), float64(res.HammerCalls)/res.Elapsed.Seconds()),
		Result: fmt.Sprintf("p50 %s · p99 %s (from the request's first byte written p50 %s · p99 %s)%s", ms(res.ToCancel.P50()), ms(res.ToCancel.P99()),
			ms(res.Wire.P50()), ms(res.Wire.P99()), errNote(int(res.HammerErrs))),
		Floor: fmt.Sprintf("one RTPS write of that size to a matched reader under the same load, to its DATA on the wire: p50 %s · p99 %s (to the reader's take p50 %s · p99 %s)",
			ms(res.Floor.P50()), ms(res.Floor.P99()), ms(res.FloorTaken.P50()), ms(res.FloorTaken.P99())),
		Ratio:  fmt.Sprintf("p50 %s · p99 %s", fx(r50), fx(r99)),
		Target: "p99 ≤ 5 ms and ≤ 3× floor p99 (the ROS 1 row's)",
		Met:    fmt.Sprintf("%s · %s", yes(res.ToCancel.P99() <= 5*time.Millisecond), yes(r99 <= 3)),
		Values: map[string]float64{"p50_ms": msf(res.ToCancel.P50()), "p99_ms": msf(res.ToCancel.P99()), "wire_p50_ms": msf(res.Wire.P50()),
			"floor_p50_ms": msf(res.Floor.P50()), "floor_p99_ms": msf(res.Floor.P99()), "floor_taken_p99_ms": msf(res.FloorTaken.P99()),
			"hammer_calls": float64(res.HammerCalls), "payload_octets": float64(res.PayloadSize)},
	}, res
}
