package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"
	bolt "go.etcd.io/bbolt"

	"github.com/actbridge/actbridge/msgs/ros1"
)

// ArmGoalTopic is where the bridge publishes arm goals.
const ArmGoalTopic = "/arm_controller/follow_joint_trajectory/goal"

// received is one message seen by a bench subscriber: its goal id and the
// bench process's clock when the callback ran.
type received struct {
	id string
	at time.Time
}

// subscribeGoals subscribes the bench process to an action goal topic.
func subscribeGoals(w *World, n *goroslib.Node, topic string) <-chan received {
	ch := make(chan received, 64)
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: n, Topic: topic, Callback: func(m *msgs.FollowJointTrajectoryActionGoal) {
		at := time.Now()
		select {
		case ch <- received{m.GoalId.Id, at}:
		default:
		}
	}})
	if err != nil {
		w.env.TB.Fatalf("subscribe %s: %v", topic, err)
	}
	w.onClose(sub.Close)
	return ch
}

func drain(ch <-chan received) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// sixJointGoal is a one-point arm goal, the size of what confirm publishes.
func sixJointGoal(id string) *msgs.FollowJointTrajectoryActionGoal {
	now := time.Now()
	pos := []float64{0, 0, 0, 0, 0, 0.05}
	return &msgs.FollowJointTrajectoryActionGoal{
		GoalId: actionlib_msgs.GoalID{Id: id, Stamp: now},
		Goal: msgs.FollowJointTrajectoryGoal{Trajectory: trajectory_msgs.JointTrajectory{
			JointNames: []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"},
			Points: []trajectory_msgs.JointTrajectoryPoint{{Positions: pos, Velocities: make([]float64, 6),
				Accelerations: make([]float64, 6), TimeFromStart: 100 * time.Millisecond}},
		}},
	}
}

// pubSubLink is a goroslib publisher and a connected subscriber in the
// bench process, on two nodes: the bare publish the floors pay.
type pubSubLink struct {
	pub *goroslib.Publisher
	got <-chan received
}

func newPubSubLink(w *World, topic string) *pubSubLink {
	tb := w.env.TB
	pn, sn := w.Node(), w.Node()
	pub, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: pn, Topic: topic, Msg: &msgs.FollowJointTrajectoryActionGoal{}})
	if err != nil {
		tb.Fatalf("publisher %s: %v", topic, err)
	}
	w.onClose(pub.Close)
	l := &pubSubLink{pub: pub, got: subscribeGoals(w, sn, topic)}
	// Publish until the subscriber's connection is up (bounded).
	deadline := time.Now().Add(30 * time.Second)
	for {
		pub.Write(sixJointGoal("connect"))
		select {
		case <-l.got:
			time.Sleep(50 * time.Millisecond)
			drain(l.got)
			return l
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("subscriber on %s never connected", topic)
		}
	}
}

// once publishes one goal and returns when the subscriber has it.
func (l *pubSubLink) once(id string) (time.Time, error) {
	drain(l.got)
	l.pub.Write(sixJointGoal(id))
	timeout := time.After(5 * time.Second)
	for {
		select {
		case r := <-l.got:
			if r.id == id {
				return r.at, nil
			}
		case <-timeout:
			return time.Time{}, fmt.Errorf("goal %s not received within 5 s", id)
		}
	}
}

// commitFloor is a bare bbolt file on the same file system as the bridge's
// store, committing one ~1 KB record per call with fsync.
type commitFloor struct {
	db  *bolt.DB
	val []byte
	n   uint64
}

func newCommitFloor(tb testing.TB) *commitFloor {
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "floor.db"), 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
	if err != nil {
		tb.Fatalf("floor bbolt: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists([]byte("m")); return err }); err != nil {
		tb.Fatal(err)
	}
	return &commitFloor{db: db, val: []byte(`{"v":1,"id":"` + strings.Repeat("0", 36) + `","goal":"` + strings.Repeat("g", 900) + `"}`)}
}

func (c *commitFloor) commit() error {
	c.n++
	return c.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("m")).Put(binary.BigEndian.AppendUint64(nil, c.n), c.val)
	})
}

// ConfirmResult is a confirm row's raw data.
type ConfirmResult struct {
	ToGoal, Reply     Sample // confirm called → goal on the wire; → reply
	Wire              Sample // the confirm's first byte written → goal
	Floor, FloorFsync Sample // commit+publish+receive; the commit alone
	// FloorTaken is commit → the floor's reader had it; Send is the
	// floor's send alone (after the commit → on the wire). Over ROS 1
	// "on the wire" is the subscriber's callback, so both are the Floor's.
	FloorTaken, Send Sample
	// A bare net/http POST after the same pause: called → its body read
	// by the server's handler; the whole round trip.
	HTTPIn, HTTPRTT Sample
	// FloorHTTP is the floor, per confirm: the commit, the publish
	// and a bare HTTP round trip after the same pause.
	FloorHTTP Sample
	Skipped   int
}

// goalObserver is what a confirm row's transport changes: how the bench
// sees the goal on the wire, and the floor's one send to a reader of its own.
type goalObserver interface {
	// floorSend sends one goal-sized message and returns when it was on
	// the wire and when the bench's reader had it.
	floorSend(i int) (onWire, taken time.Time, err error)
	// expect is called just before a confirm; the function it returns
	// waits (bounded) for that motion's goal and says when it was on the
	// wire, ok false when the bench did not see it.
	expect() func(motionID string) (at time.Time, ok bool)
}

// MeasureConfirm times motion_confirm → the arm's ActionGoal reaching a
// subscriber (the bench's own, beside the sim's, one clock), n times, and
// the floor in the same iterations: one bbolt commit with fsync plus one
// goroslib publish to a connected subscriber, on the same file system. The
// arm makes a 0.1 s, 5 mrad wrist move each time; the planner pauses 50 ms
// between preview and confirm, as a planner does, which also lets the
// preview's audit batch land first. It runs once with each bench client
// (the Go SDK's and the lean one), a row each.
func MeasureConfirm(w *World, n int) ([]Row, []ConfirmResult) {
	obs := &ros1Goals{link: newPubSubLink(w, "/bench_floor/follow_joint_trajectory/goal"), goals: subscribeGoals(w, w.Node(), ArmGoalTopic)}
	return measureConfirms(w, n, obs, confirmRow)
}

// ros1Goals observes goals as the bench's goroslib subscriber receives them.
type ros1Goals struct {
	link  *pubSubLink
	goals <-chan received
}

func (o *ros1Goals) floorSend(i int) (time.Time, time.Time, error) {
	at, err := o.link.once(fmt.Sprint("floor-", i))
	return at, at, err
}

func (o *ros1Goals) expect() func(string) (time.Time, bool) {
	drain(o.goals)
	return func(id string) (time.Time, bool) {
		var got received
		select {
		case got = <-o.goals:
		case <-time.After(5 * time.Second):
		}
		return got.at, got.id == id // our subscriber may have missed it
	}
}

// measureConfirms runs the confirm loop with each bench client, a row each.
func measureConfirms(w *World, n int, obs goalObserver, row func(benchClient, ConfirmResult) Row) ([]Row, []ConfirmResult) {
	floor := newCommitFloor(w.env.TB)
	fp, faddr := floorHTTPServer(w.env)
	defer fp.Stop(syscall.SIGTERM)
	bare := &bareHTTP{hc: &http.Client{Transport: clientTransport(), Timeout: 10 * time.Second}, url: "http://" + faddr + "/"}
	var rows []Row
	var results []ConfirmResult
	for _, c := range w.benchClients() {
		res := measureConfirmWith(w, n, c, floor, obs, bare)
		rows, results = append(rows, row(c, res)), append(results, res)
	}
	return rows, results
}

func measureConfirmWith(w *World, n int, client benchClient, floor *commitFloor, obs goalObserver, bare *bareHTTP) ConfirmResult {
	tb := w.env.TB
	var res ConfirmResult
	cs := client.c
	// The first two iterations are warm-up: our subscriber connects to the
	// bridge's publisher meanwhile.
	for i := 0; i < n+2; i++ {
		f0 := time.Now()
		if err := floor.commit(); err != nil {
			tb.Fatalf("floor commit: %v", err)
		}
		f1 := time.Now()
		fat, ftaken, err := obs.floorSend(i)
		if err != nil {
			tb.Fatal(err)
		}

		// 5 mrad in 0.1 s stays under the wrist's acceleration limit.
		target := 0.005
		if i%2 == 1 {
			target = 0
		}
		pv, err := cs.callTool("arm_move_joints", map[string]any{"positions": map[string]any{"wrist_3_joint": target}, "duration_s": 0.1})
		if err != nil {
			tb.Fatalf("preview: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
		seen := obs.expect()
		w.wire.arm()
		t0 := time.Now()
		out, err := cs.callTool("motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		t1 := time.Now()
		onWire := w.wire.written()
		if err != nil {
			tb.Fatalf("confirm: %v", err)
		}
		id, _ := out["motion_id"].(string)
		at, ok := seen(id)
		if state, err := waitTerminal(cs, id, 30*time.Second); err != nil || state != "succeeded" {
			tb.Fatalf("motion %s ended %q: %v", id, state, err)
		}
		// The floor below then starts, as the confirm does, after the
		// disk's last write (the motion's flush) has settled for a while:
		// a virtual disk's flush after an idle gap costs more than one
		// right after another (about 1.7× here), so both get the same gap.
		// It also lets the sim's newest /joint_states show the arm at rest.
		time.Sleep(50 * time.Millisecond)
		// What any HTTP front pays: a bare POST after the same pause.
		hin, hrtt, herr := bare.post()
		if herr != nil {
			tb.Fatalf("bare HTTP: %v", herr)
		}
		time.Sleep(50 * time.Millisecond)
		if i < 2 {
			continue
		}
		res.HTTPIn, res.HTTPRTT = append(res.HTTPIn, hin), append(res.HTTPRTT, hrtt)
		res.FloorFsync = append(res.FloorFsync, f1.Sub(f0))
		res.Floor = append(res.Floor, fat.Sub(f0))
		res.FloorTaken, res.Send = append(res.FloorTaken, ftaken.Sub(f0)), append(res.Send, fat.Sub(f1))
		res.FloorHTTP = append(res.FloorHTTP, fat.Sub(f0)+hrtt)
		if !ok {
			res.Skipped++
			continue
		}
		res.ToGoal = append(res.ToGoal, at.Sub(t0))
		res.Reply = append(res.Reply, t1.Sub(t0))
		if !onWire.IsZero() {
			res.Wire = append(res.Wire, at.Sub(onWire))
		}
	}
	return res
}

// ratios are a confirm row's: against the floor with its HTTP round trip
// (p50, p99), and for reading the result, p50 against the floor without it.
func (res ConfirmResult) ratios() (r50, r99, noHTTP float64) {
	return ratio(res.ToGoal.P50(), res.FloorHTTP.P50()), ratio(res.ToGoal.P99(), res.FloorHTTP.P99()), ratio(res.ToGoal.P50(), res.Floor.P50())
}

// confirmRow is the ROS 1 confirm row.
func confirmRow(client benchClient, res ConfirmResult) Row {
	r50, r99, noHTTP := res.ratios()
	row := Row{
		Key:  "confirm" + client.key,
		What: fmt.Sprintf("motion_confirm → arm ActionGoal on the wire (n=%d, MCP HTTP included), %s", len(res.ToGoal), client.name),
		Result: fmt.Sprintf("p50 %s · p99 %s (reply p50 %s; from the request's first byte written p50 %s)",
			ms(res.ToGoal.P50()), ms(res.ToGoal.P99()), ms(res.Reply.P50()), ms(res.Wire.P50())),
		Floor: fmt.Sprintf("bbolt commit+fsync + goroslib publish→subscriber + bare net/http POST round trip after the same pause: p50 %s · p99 %s "+
			"(commit+publish p50 %s, fsync alone p50 %s; POST round trip p50 %s, called → body read p50 %s)",
			ms(res.FloorHTTP.P50()), ms(res.FloorHTTP.P99()), ms(res.Floor.P50()), ms(res.FloorFsync.P50()), ms(res.HTTPRTT.P50()), ms(res.HTTPIn.P50())),
		Ratio:  fmt.Sprintf("p50 %s · p99 %s (p50 against commit+publish alone: %s)", fx(r50), fx(r99), fx(noHTTP)),
		Target: "p50 ≤ 1.3× floor",
		Met:    yes(r50 <= 1.3),
		Values: map[string]float64{"p50_ms": msf(res.ToGoal.P50()), "p99_ms": msf(res.ToGoal.P99()),
			"floor_p50_ms": msf(res.Floor.P50()), "floor_p99_ms": msf(res.Floor.P99()), "fsync_p50_ms": msf(res.FloorFsync.P50()), "ratio_p50": r50,
			"wire_p50_ms": msf(res.Wire.P50()), "http_in_p50_ms": msf(res.HTTPIn.P50()), "http_rtt_p50_ms": msf(res.HTTPRTT.P50()),
			"floor_http_p50_ms": msf(res.FloorHTTP.P50()), "ratio_p50_no_http": noHTTP},
	}
	if res.Skipped > 0 {
		row.Result += fmt.Sprintf(", %d skipped", res.Skipped)
	}
	return row
}

// bareHTTP posts to the bare net/http server (the floor process), which
// says when it had read the body.
type bareHTTP struct {
	hc  *http.Client
	url string
}

// bareConfirm is what the bare POST sends: a confirm's size.
var bareConfirm = []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"motion_confirm","arguments":{"preview_id":"` + strings.Repeat("p", 60) + `"}}}`)

// post returns the time from the call to the server's handler having read
// the body, and the whole round trip.
func (b *bareHTTP) post() (in, rtt time.Duration, err error) {
	t0 := time.Now()
	resp, err := b.hc.Post(b.url, "application/json", bytes.NewReader(bareConfirm))
	if err != nil {
		return 0, 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	rtt = time.Since(t0)
	at, err := strconv.ParseInt(resp.Header.Get(bodyAtHeader), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("bare HTTP: no %s header", bodyAtHeader)
	}
	return time.Unix(0, at).Sub(t0), rtt, nil
}
