package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
)

// ArmCancelTopic is where robot_stop's cancel for the arm goes out.
const ArmCancelTopic = "/arm_controller/follow_joint_trajectory/cancel"

// StopOpts is a stop row's set-up: its load, and how the robot is stopped.
type StopOpts struct {
	Hammer   int  // MCP sessions calling ReadTool in closed loops
	Planners int  // MCP sessions more, previewing, confirming and cancelling arm motions (plannerStep)
	HTTP     bool // stop with POST /stop (a button, a watchdog) instead of the robot_stop tool
	// Mixed: MCP sessions more running test/load.sh's mix (mixedStep): a
	// loaded host, reported rather than judged.
	Mixed int
}

// key names the row after prefix: stop, stop_planners, stop_http,
// stop_mixed.
func (o StopOpts) key(prefix string) string {
	switch {
	case o.HTTP:
		return prefix + "_http"
	case o.Planners > 0:
		return prefix + "_planners"
	case o.Mixed > 0:
		return prefix + "_mixed"
	}
	return prefix
}

func (o StopOpts) what() string {
	s := "robot_stop"
	if o.HTTP {
		s = "POST /stop"
	}
	return s
}

func (o StopOpts) loadText() string {
	if o.Mixed > 0 {
		return fmt.Sprintf("%d clients running test/load.sh's mix (reads, previews, confirms, cancels) from a nice-19 process", o.Mixed)
	}
	s := fmt.Sprintf("%d clients hammering %s", o.Hammer, ReadTool)
	if o.Planners > 0 {
		s += fmt.Sprintf(" and %d planners previewing, confirming and cancelling arm motions", o.Planners)
	}
	return s + " from a nice-19 process"
}

// target is the issue's: p99 ≤ 5 ms and ≤ 3× the floor's p99 for
// robot_stop, p99 ≤ 2 ms for POST /stop.
func (o StopOpts) target(p99, floorP99 time.Duration) (string, string) {
	if o.Mixed > 0 {
		return "report (a loaded host), with the bridge's CPU share", "–"
	}
	if o.HTTP {
		return "p99 ≤ 2 ms", yes(p99 <= 2*time.Millisecond)
	}
	return "p99 ≤ 5 ms and ≤ 3× floor p99", fmt.Sprintf("%s · %s", yes(p99 <= 5*time.Millisecond), yes(ratio(p99, floorP99) <= 3))
}

// StopResult is the stop row's raw data.
type StopResult struct {
	ToCancel, Floor Sample
	Load            hammerCounts
	// CPUShare is the bridge's CPU over the loop, in cores; RunWait how
	// long its threads waited for a CPU per second of the loop.
	CPUShare float64
	RunWait  time.Duration
}

// stopLoop is a stop row's loop: the load up, then n+2 stops (the first
// two not counted), each followed by an operator's reset and the floor.
// stopOnce stops the robot and returns when its cancel was seen; floor
// measures the floor once.
type stopLoop struct {
	w        *World
	o        StopOpts
	n        int
	name     string // for the trace and profile files
	stopOnce func(i int, stop func() (any, error)) (time.Duration, error)
	floor    func(i int) (time.Duration, error)
}

func (l stopLoop) run() (StopResult, string) {
	w, tb := l.w, l.w.env.TB
	var res StopResult
	stopper, operator := w.stopper(l.o.HTTP), w.Client(w.OperatorToken())
	load := startHammer(w, l.o)
	time.Sleep(time.Second) // the load is up
	u0 := sampleUse(w.Bridge.Pid())
	var times []string // called and cancel seen, Unix ns, with ProfDir
	traced, profiled := w.execTrace(w.ProfDir, l.name, 5*time.Second), w.cpuProfile(w.ProfDir, l.name, 30*time.Second)
	for i := range l.n + 2 {
		time.Sleep(100 * time.Millisecond)
		var event any
		t0 := time.Now()
		d, err := l.stopOnce(i, func() (any, error) {
			ev, err := stopper()
			event = ev
			return ev, err
		})
		if err != nil {
			tb.Fatalf("%s #%d: %v", l.o.what(), i, err)
		}
		if _, err := call(operator, "estop_reset", map[string]any{"event": event}); err != nil {
			tb.Fatalf("estop_reset: %v", err)
		}
		fd, err := l.floor(i)
		if err != nil {
			tb.Fatal(err)
		}
		if w.ProfDir != "" { // to place each stop in the trace
			times = append(times, fmt.Sprintf("%d %d\n", t0.UnixNano(), t0.Add(d).UnixNano()))
		}
		if i >= 2 {
			res.ToCancel, res.Floor = append(res.ToCancel, d), append(res.Floor, fd)
		}
	}
	u1 := sampleUse(w.Bridge.Pid())
	res.Load = load.stop()
	traced()
	profiled()
	if w.ProfDir != "" {
		if err := os.WriteFile(filepath.Join(w.ProfDir, l.name+".times"), []byte(strings.Join(times, "")), 0o644); err != nil {
			w.env.logf("stop times: %v", err)
		}
	}
	var note string
	res.CPUShare, res.RunWait, note = useSince(u0, u1)
	return res, note
}

// stopper returns how the row stops the robot: robot_stop from a planner's
// session, or POST /stop without a token (as a button would); either
// returns the e-stop event to reset.
func (w *World) stopper(post bool) func() (any, error) {
	if !post {
		cs := w.Client("")
		return func() (any, error) {
			out, err := call(cs, "robot_stop", map[string]any{"reason": "bench"})
			return out["estop_event"], err
		}
	}
	hc := &http.Client{Transport: w.httpTransport(), Timeout: 30 * time.Second}
	return func() (any, error) {
		resp, err := hc.Post("http://"+w.Addr+"/stop", "application/json", bytes.NewReader([]byte(`{"reason":"bench"}`)))
		if err != nil {
			return nil, fmt.Errorf("POST /stop: %w", err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		var out map[string]any
		if err == nil {
			err = json.Unmarshal(b, &out)
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("POST /stop: %s %s (%v)", resp.Status, b, err)
		}
		return out["estop_event"], nil
	}
}

func loadNote(c hammerCounts) string {
	var s []string
	if c.Calls > 0 || c.PlannerCalls+c.MixSteps == 0 {
		s = append(s, fmt.Sprintf("%.0f reads/s", float64(c.Calls)/c.Elapsed.Seconds()))
	}
	if c.PlannerCalls > 0 {
		s = append(s, fmt.Sprintf("%.0f planner calls/s", float64(c.PlannerCalls)/c.Elapsed.Seconds()))
	}
	if c.MixSteps > 0 {
		s = append(s, fmt.Sprintf("%.0f mix steps/s (1–3 calls each)", float64(c.MixSteps)/c.Elapsed.Seconds()))
	}
	return strings.Join(s, ", ") + " meanwhile"
}

func loadErrors(c hammerCounts) int { return int(c.Errors + c.PlannerFailures) }

// MeasureStop times the stop (robot_stop, or POST /stop) → the arm's
// cancel reaching the bench's own subscriber (one clock), n times, while
// the load of o runs from a process at nice 19 (startHammer). The floor,
// measured in the same iterations under the same load, is one bare
// goroslib publish to a connected subscriber. An operator resets the
// e-stop after each stop. The row also says how much CPU the bridge took
// and how long its threads waited for one (a loaded host's share).
func MeasureStop(w *World, n int, o StopOpts) (Row, StopResult) {
	tb := w.env.TB
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
	var wire Sample // from the request's first byte written: the bench's client library left out
	res, note := stopLoop{w: w, o: o, n: n, name: o.key("stop"),
		stopOnce: func(i int, stop func() (any, error)) (time.Duration, error) {
			drainTimes(cancels)
			w.wire.arm()
			t0 := time.Now()
			if _, err := stop(); err != nil {
				return 0, err
			}
			onWire := w.wire.written()
			select {
			case at := <-cancels:
				if i >= 2 && !onWire.IsZero() {
					wire = append(wire, at.Sub(onWire))
				}
				return at.Sub(t0), nil
			case <-time.After(5 * time.Second):
				return 0, fmt.Errorf("no cancel on %s within 5 s", ArmCancelTopic)
			}
		},
		floor: func(i int) (time.Duration, error) {
			f0 := time.Now()
			fat, err := link.once(fmt.Sprint("stop-floor-", i))
			return fat.Sub(f0), err
		},
	}.run()

	r50, r99 := ratio(res.ToCancel.P50(), res.Floor.P50()), ratio(res.ToCancel.P99(), res.Floor.P99())
	target, met := o.target(res.ToCancel.P99(), res.Floor.P99())
	return Row{
		Key: o.key("stop"),
		What: fmt.Sprintf("%s → arm cancel on the wire, %s (n=%d, %s)",
			o.what(), o.loadText(), len(res.ToCancel), loadNote(res.Load)),
		Result: fmt.Sprintf("p50 %s · p99 %s (from the request's first byte written p50 %s · p99 %s)%s; %s", ms(res.ToCancel.P50()), ms(res.ToCancel.P99()),
			ms(wire.P50()), ms(wire.P99()), errNote(loadErrors(res.Load)), note),
		Floor:  fmt.Sprintf("goroslib publish→subscriber under the same load: p50 %s · p99 %s", ms(res.Floor.P50()), ms(res.Floor.P99())),
		Ratio:  fmt.Sprintf("p50 %s · p99 %s", fx(r50), fx(r99)),
		Target: target,
		Met:    met,
		Values: map[string]float64{"p50_ms": msf(res.ToCancel.P50()), "p99_ms": msf(res.ToCancel.P99()), "wire_p50_ms": msf(wire.P50()), "wire_p99_ms": msf(wire.P99()),
			"floor_p50_ms": msf(res.Floor.P50()), "floor_p99_ms": msf(res.Floor.P99()), "hammer_calls": float64(res.Load.Calls),
			"planner_calls": float64(res.Load.PlannerCalls), "mix_steps": float64(res.Load.MixSteps), "bridge_cpu_share": res.CPUShare, "bridge_run_wait_ms_per_s": msf(res.RunWait)},
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
