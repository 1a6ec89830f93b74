package bench

import (
	"fmt"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
)

// ArmCancelTopic is where robot_stop's cancel for the arm goes out.
const ArmCancelTopic = "/arm_controller/follow_joint_trajectory/cancel"

// StopResult is the stop row's raw data.
type StopResult struct {
	ToCancel, Floor Sample
	HammerCalls     int64
	HammerErrors    int64
	Elapsed         time.Duration
}

// MeasureStop times robot_stop → the arm's cancel reaching the bench's own
// subscriber (one clock), n times, while `hammer` other MCP sessions call
// read tools in closed loops from a process at nice 19 (startHammer). The
// floor, measured in the same iterations under the same load, is one bare
// goroslib publish to a connected subscriber. An operator resets the
// e-stop after each stop.
func MeasureStop(w *World, n, hammer int) (Row, StopResult) {
	tb := w.env.TB
	var res StopResult
	cancels := make(chan time.Time, 64)
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: w.Node(), Topic: ArmCancelTopic, Callback: func(m *actionlib_msgs.GoalID) {
		at := time.Now()
		if m.Id != "" { // robot_stop cancels all: empty id
			return
		}
		select {
		case cancels <- at:
		default:
		}
	}})
	if err != nil {
		tb.Fatalf("subscribe %s: %v", ArmCancelTopic, err)
	}
	defer sub.Close()
	link := newPubSubLink(w, "/bench_floor_stop/follow_joint_trajectory/goal")
	stopper, operator := w.Client(""), w.Client(w.OperatorToken())

	load := startHammer(w, hammer)
	time.Sleep(time.Second) // the load is up
	for i := range n + 2 {
		time.Sleep(100 * time.Millisecond)
		drainTimes(cancels)
		t0 := time.Now()
		out, err := call(stopper, "robot_stop", map[string]any{"reason": "bench"})
		if err != nil {
			tb.Fatalf("robot_stop: %v", err)
		}
		var at time.Time
		select {
		case at = <-cancels:
		case <-time.After(5 * time.Second):
			tb.Fatalf("robot_stop #%d: no cancel on %s within 5 s", i, ArmCancelTopic)
		}
		if _, err := call(operator, "estop_reset", map[string]any{"event": out["estop_event"]}); err != nil {
			tb.Fatalf("estop_reset: %v", err)
		}
		f0 := time.Now()
		fat, err := link.once(fmt.Sprint("stop-floor-", i))
		if err != nil {
			tb.Fatal(err)
		}
		if i >= 2 {
			res.ToCancel = append(res.ToCancel, at.Sub(t0))
			res.Floor = append(res.Floor, fat.Sub(f0))
		}
	}
	res.HammerCalls, res.HammerErrors, res.Elapsed = load.stop()

	r50, r99 := ratio(res.ToCancel.P50(), res.Floor.P50()), ratio(res.ToCancel.P99(), res.Floor.P99())
	return Row{
		Key: "stop",
		What: fmt.Sprintf("robot_stop → arm cancel on the wire, %d clients hammering %s from a nice-19 process (n=%d, %.0f reads/s meanwhile)",
			hammer, ReadTool, len(res.ToCancel), float64(res.HammerCalls)/res.Elapsed.Seconds()),
		Result: fmt.Sprintf("p50 %s · p99 %s%s", ms(res.ToCancel.P50()), ms(res.ToCancel.P99()), errNote(int(res.HammerErrors))),
		Floor:  fmt.Sprintf("goroslib publish→subscriber under the same load: p50 %s · p99 %s", ms(res.Floor.P50()), ms(res.Floor.P99())),
		Ratio:  fmt.Sprintf("p50 %s · p99 %s", fx(r50), fx(r99)),
		Target: "p99 ≤ 5 ms and ≤ 3× floor p99",
		Met:    fmt.Sprintf("%s · %s", yes(res.ToCancel.P99() <= 5*time.Millisecond), yes(r99 <= 3)),
		Values: map[string]float64{"p50_ms": msf(res.ToCancel.P50()), "p99_ms": msf(res.ToCancel.P99()),
			"floor_p50_ms": msf(res.Floor.P50()), "floor_p99_ms": msf(res.Floor.P99()), "hammer_calls": float64(res.HammerCalls)},
	}, res
}

func drainTimes(ch <-chan time.Time) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
