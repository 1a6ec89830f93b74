package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
)

// Python is the interpreter with Debian's rospy and actionlib.
const Python = "/usr/bin/python3"

// rospyClient sends n (+2 warm-up) move_base goals with actionlib's
// SimpleActionClient, one after the other, timing send_goal →
// wait_for_result. State 3 is SUCCEEDED. Before each goal it pauses a
// random 0–5 ms (see phasePause).
const rospyClient = `import math, random, sys, time
import rospy, actionlib
from move_base_msgs.msg import MoveBaseAction, MoveBaseGoal
n, x, y, yaw = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
rospy.init_node('bench_rospy', anonymous=True, disable_signals=True)
c = actionlib.SimpleActionClient('/move_base', MoveBaseAction)
if not c.wait_for_server(rospy.Duration(30)):
    print('error: no move_base server'); sys.exit(2)
random.seed(8)
for i in range(n + 2):
    time.sleep(random.uniform(0, 0.005))
    g = MoveBaseGoal()
    g.target_pose.header.frame_id = 'odom'
    g.target_pose.header.stamp = rospy.Time.now()
    g.target_pose.pose.position.x, g.target_pose.pose.position.y = x, y
    g.target_pose.pose.orientation.z, g.target_pose.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    t0 = time.perf_counter()
    c.send_goal(g)
    c.wait_for_result(rospy.Duration(10))
    dt = time.perf_counter() - t0
    if i >= 2:
        print('rt %.6f %d' % (dt, c.get_state()), flush=True)
print('done', flush=True)
rospy.signal_shutdown('done')
`

// simStep is how often the sim steps (and so can finish a goal): its 5 ms
// wake-up at the default /joint_states rate.
const simStep = 5 * time.Millisecond

// phasePause is the random pause both clients make before each goal. A
// client that sends its next goal as soon as the last result arrives sends
// it right after a sim step, so every goal waits nearly a whole step and
// any client faster than one step measures about one step: the bridge and
// rospy then tie by construction. With a random phase both wait half a
// step on average, and the difference left is the clients' own.
func phasePause(r *rand.Rand) { time.Sleep(time.Duration(r.Int64N(int64(simStep)))) }

// odomPose reads the base's pose from /odom with the bench's own subscriber.
func odomPose(w *World) (x, y, yaw float64) {
	tb := w.env.TB
	got := make(chan *nav_msgs.Odometry, 1)
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: w.Node(), Topic: "/odom", Callback: func(m *nav_msgs.Odometry) {
		select {
		case got <- m:
		default:
		}
	}})
	if err != nil {
		tb.Fatalf("subscribe /odom: %v", err)
	}
	defer sub.Close()
	select {
	case m := <-got:
		p, q := m.Pose.Pose.Position, m.Pose.Pose.Orientation
		return p.X, p.Y, math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
	case <-time.After(20 * time.Second):
		tb.Fatal("no /odom within 20 s")
	}
	return
}

// NavigateResult is the navigate row's raw data.
type NavigateResult struct {
	Bridge, Rospy            Sample
	Preview, Confirm, Wait   Sample
	RospyErr                 string
	BridgeFailed, RospyFails int
}

// MeasureNavigate times a zero-distance base_navigate goal end to end
// through the bridge (preview, confirm, motion_status until succeeded, all
// over MCP) against rospy's SimpleActionClient sending the same goal to the
// same sim (send_goal → wait_for_result), n goals each. The bridge is
// measured with each bench client (the Go SDK's and the lean one), a row
// each against the same rospy run.
func MeasureNavigate(w *World, n int) ([]Row, []NavigateResult) {
	var rospy NavigateResult
	x, y, yaw := odomPose(w)
	measureRospy(w, n, x, y, yaw, &rospy)
	var rows []Row
	var results []NavigateResult
	for _, c := range w.benchClients() {
		res := rospy
		res.Bridge, res.Preview, res.Confirm, res.Wait, res.BridgeFailed = nil, nil, nil, nil, 0
		row := measureNavigateWith(w, n, x, y, yaw, c, &res)
		rows, results = append(rows, row), append(results, res)
	}
	return rows, results
}

// measureRospy runs rospy's SimpleActionClient for n (+2 warm-up) goals.
func measureRospy(w *World, n int, x, y, yaw float64, res *NavigateResult) {
	tb := w.env.TB

	// rospy first, in its own process, killed by pid if it overruns.
	script := filepath.Join(tb.TempDir(), "rospy_move_base.py")
	if err := os.WriteFile(script, []byte(rospyClient), 0o600); err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(Python); err != nil {
		res.RospyErr = "no " + Python
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n+2)*10*time.Second+60*time.Second)
		cmd := exec.CommandContext(ctx, Python, script, strconv.Itoa(n), fmt.Sprint(x), fmt.Sprint(y), fmt.Sprint(yaw))
		cmd.Env = w.Master.Env()
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		for _, l := range strings.Split(out.String(), "\n") {
			var dt float64
			var st int
			if _, serr := fmt.Sscanf(l, "rt %f %d", &dt, &st); serr == nil {
				if st != 3 {
					res.RospyFails++
					continue
				}
				res.Rospy = append(res.Rospy, time.Duration(dt*float64(time.Second)))
			}
		}
		if err != nil || len(res.Rospy) == 0 {
			res.RospyErr = fmt.Sprintf("rospy client: %v: %s", err, tail(out.String(), 800))
		}
	}

}

// measureNavigateWith times the bridge's side with one client.
func measureNavigateWith(w *World, n int, x, y, yaw float64, client benchClient, res *NavigateResult) Row {
	tb := w.env.TB
	cs := client.c
	goal := map[string]any{"x": x, "y": y, "yaw": yaw}
	phase := rand.New(rand.NewPCG(8, 8))
	for i := range n + 2 {
		phasePause(phase)
		t0 := time.Now()
		pv, err := cs.callTool("base_navigate", goal)
		if err != nil {
			tb.Fatalf("base_navigate: %v", err)
		}
		t1 := time.Now()
		out, err := cs.callTool("motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		if err != nil {
			tb.Fatalf("confirm: %v", err)
		}
		t2 := time.Now()
		state, err := waitTerminal(cs, fmt.Sprint(out["motion_id"]), 30*time.Second)
		if err != nil {
			tb.Fatal(err)
		}
		t3 := time.Now()
		if state != "succeeded" {
			res.BridgeFailed++
			continue
		}
		if i >= 2 {
			res.Bridge = append(res.Bridge, t3.Sub(t0))
			res.Preview, res.Confirm, res.Wait = append(res.Preview, t1.Sub(t0)), append(res.Confirm, t2.Sub(t1)), append(res.Wait, t3.Sub(t2))
		}
	}

	row := Row{
		Key:  "navigate" + client.key,
		What: fmt.Sprintf("base_navigate zero-distance goal round trip: preview + confirm + motion_status until succeeded, over MCP (n=%d, random 0–5 ms phase to the sim's step), %s", len(res.Bridge), client.name),
		Result: fmt.Sprintf("p50 %s · p99 %s (preview %s, confirm %s, wait %s)", ms(res.Bridge.P50()), ms(res.Bridge.P99()),
			ms(res.Preview.P50()), ms(res.Confirm.P50()), ms(res.Wait.P50())),
		Target: "≤ 1× rospy (not slower)",
		Values: map[string]float64{"p50_ms": msf(res.Bridge.P50()), "p99_ms": msf(res.Bridge.P99())},
	}
	if res.BridgeFailed > 0 {
		row.Result += fmt.Sprintf(", %d not succeeded", res.BridgeFailed)
	}
	if res.RospyErr != "" {
		row.Floor, row.Ratio, row.Met = "rospy unavailable: "+res.RospyErr, "–", "n/a"
		return row
	}
	r50, r99 := ratio(res.Bridge.P50(), res.Rospy.P50()), ratio(res.Bridge.P99(), res.Rospy.P99())
	row.Floor = fmt.Sprintf("rospy SimpleActionClient send_goal → wait_for_result, same sim: p50 %s · p99 %s (n=%d)", ms(res.Rospy.P50()), ms(res.Rospy.P99()), len(res.Rospy))
	if res.RospyFails > 0 {
		row.Floor += fmt.Sprintf(", %d not succeeded", res.RospyFails)
	}
	row.Ratio = fmt.Sprintf("p50 %s · p99 %s", fx(r50), fx(r99))
	row.Met = yes(r50 <= 1)
	row.Values["rospy_p50_ms"], row.Values["rospy_p99_ms"], row.Values["ratio_p50"] = msf(res.Rospy.P50()), msf(res.Rospy.P99()), r50
	return row
}
