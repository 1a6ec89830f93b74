package bench

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// MeasureConfirmROS2 times motion_confirm → the arm's send_goal request
// leaving on the wire (the tap's kernel stamp of the DATA carrying the
// motion id as goal UUID), n times with each bench client, in the ROS 1
// row's loop (the same moves, pauses and bare HTTP round trip). The floor
// in the same iterations is one bbolt commit with fsync plus one RTPS
// write of the goal request's size from our writer to a matched reader,
// timed to its DATA leaving (the same tap) and to the reader's take.
func MeasureConfirmROS2(w *World, pr *ros2Probe, n int) ([]Row, []ConfirmResult) {
	obs := &ros2Goals{pr: pr, payload: floorPayload(400)}
	return measureConfirms(w, n, obs, func(c benchClient, res ConfirmResult) Row { return ros2ConfirmRow(c, res, obs.size) })
}

// ros2Goals observes goals with the wire tap; the floor's payload takes
// the size of the last goal seen.
type ros2Goals struct {
	pr      *ros2Probe
	payload []byte
	size    int // the last goal request's serialized size, 0 before one
}

func (o *ros2Goals) floorSend(int) (time.Time, time.Time, error) { return o.pr.floorWrite(o.payload) }

func (o *ros2Goals) expect() func(string) (time.Time, bool) {
	tw := o.pr.tap.watch(o.pr.goalW)
	return func(id string) (time.Time, bool) {
		u, err := uuid.Parse(id)
		if err != nil {
			o.pr.tap.forget(tw)
			return time.Time{}, false
		}
		d, err := o.pr.tap.seen(tw, u[:], 5*time.Second)
		if err != nil {
			return time.Time{}, false
		}
		o.size, o.payload = len(d.payload), floorPayload(len(d.payload))
		return d.at, true
	}
}

func ros2ConfirmRow(client benchClient, res ConfirmResult, size int) Row {
	r50, r99, noHTTP := res.ratios()
	row := Row{
		Key: "ros2_confirm" + client.key,
		What: fmt.Sprintf("ROS 2: motion_confirm → FollowJointTrajectory send_goal request on the wire (kernel stamp of the DATA carrying the motion id as goal UUID, %d octets; n=%d, MCP HTTP included), %s",
			size, len(res.ToGoal), client.name),
		Result: fmt.Sprintf("p50 %s · p99 %s (reply p50 %s; from the request's first byte written p50 %s)",
			ms(res.ToGoal.P50()), ms(res.ToGoal.P99()), ms(res.Reply.P50()), ms(res.Wire.P50())),
		Floor: fmt.Sprintf("bbolt commit+fsync + one RTPS write of that size to a matched reader (to its DATA on the wire) + bare net/http POST round trip after the same pause: p50 %s · p99 %s "+
			"(commit+write p50 %s, to the reader's take p50 %s; fsync alone p50 %s, write → wire p50 %s; POST round trip p50 %s)",
			ms(res.FloorHTTP.P50()), ms(res.FloorHTTP.P99()), ms(res.Floor.P50()), ms(res.FloorTaken.P50()), ms(res.FloorFsync.P50()),
			ms(res.Send.P50()), ms(res.HTTPRTT.P50())),
		Ratio:  fmt.Sprintf("p50 %s · p99 %s (p50 against commit+write alone: %s)", fx(r50), fx(r99), fx(noHTTP)),
		Target: "p50 ≤ 1.3× floor (the ROS 1 row's)",
		Met:    yes(r50 <= 1.3),
		Values: map[string]float64{"p50_ms": msf(res.ToGoal.P50()), "p99_ms": msf(res.ToGoal.P99()), "reply_p50_ms": msf(res.Reply.P50()),
			"floor_p50_ms": msf(res.Floor.P50()), "floor_p99_ms": msf(res.Floor.P99()), "floor_taken_p50_ms": msf(res.FloorTaken.P50()),
			"fsync_p50_ms": msf(res.FloorFsync.P50()), "write_wire_p50_ms": msf(res.Send.P50()), "ratio_p50": r50,
			"wire_p50_ms": msf(res.Wire.P50()), "http_rtt_p50_ms": msf(res.HTTPRTT.P50()),
			"floor_http_p50_ms": msf(res.FloorHTTP.P50()), "ratio_p50_no_http": noHTTP, "payload_octets": float64(size)},
	}
	if res.Skipped > 0 {
		row.Result += fmt.Sprintf(", %d skipped (the tap missed the goal)", res.Skipped)
	}
	return row
}
