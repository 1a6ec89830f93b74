package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
)

func TestMotionEventsAreOnePerStateAndReadFromACursor(t *testing.T) {
	ev := NewEvents(100, nil)
	mo := inflight.Motion{ID: "m1", Actuator: "arm", State: inflight.StateSent}
	ev.MotionChanged(mo)
	mo.Progress = 0.5
	ev.MotionChanged(mo) // progress only: no event
	mo.State = inflight.StateActive
	ev.MotionChanged(mo)
	ev.Emit(EventEStop, "estop", "latched", nil)
	mo.State = inflight.StateSucceeded
	ev.MotionChanged(mo)
	p, err := ev.Read("", 2, nil)
	if err != nil || len(p.Items) != 2 || !p.More || p.Items[0].State != "sent" || p.Items[1].State != "active" {
		t.Fatalf("%+v %v", p, err)
	}
	p, _ = ev.Read(p.NextCursor, 10, []string{EventMotion})
	if len(p.Items) != 1 || p.Items[0].State != "succeeded" || p.Items[0].Detail["terminal"] != true || p.More {
		t.Fatalf("%+v", p)
	}
	next := p.NextCursor
	p, _ = ev.Read(next, 10, nil)
	if len(p.Items) != 0 || p.NextCursor != next {
		t.Fatalf("nothing new, yet %+v", p)
	}
	ev.Emit(EventMaster, "master", "lost", nil)
	if p, _ = ev.Read(next, 10, nil); len(p.Items) != 1 || p.Items[0].Kind != EventMaster {
		t.Fatalf("%+v", p)
	}
	if _, err := ev.Read("garbage", 10, nil); err == nil || err.Code != CodeInvalidArgument {
		t.Fatalf("bad cursor: %v", err)
	}
	other := NewEvents(100, nil) // a restarted bridge
	if p, err := other.Read(next, 10, nil); err != nil || !p.Restarted {
		t.Fatalf("old cursor after restart: %+v %v", p, err)
	}
}

func TestEventRingReportsWhatAReaderMissed(t *testing.T) {
	ev := NewEvents(16, nil)
	ev.Emit(EventMaster, "master", "lost", nil)
	p, _ := ev.Read("", 1, nil)
	for range 40 {
		ev.Emit(EventMaster, "master", "back", nil)
	}
	p, _ = ev.Read(p.NextCursor, 100, nil)
	if p.Missed != 24 || len(p.Items) != 16 {
		t.Fatalf("missed %d, got %d", p.Missed, len(p.Items))
	}
}

func TestPollEmitsEStopAndControllerChanges(t *testing.T) {
	r := newRig(t)
	ev := NewEvents(100, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ev.Run(ctx, EventSources{Robot: r.robot, EStop: r.estop.State, Poll: 5 * time.Millisecond})
	}()
	defer func() { cancel(); <-done }()
	waitFor := func(kind, subject, state string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			p, _ := ev.Read("", 100, nil)
			for _, e := range p.Items {
				if e.Kind == kind && e.Subject == subject && e.State == state {
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("no %s %s %s event", kind, subject, state)
	}
	time.Sleep(20 * time.Millisecond) // the first poll records the start state silently
	r.estop.Latch("test")
	waitFor(EventEStop, "estop", "latched")
	r.robot.SetConnected(false)
	waitFor(EventController, "arm", "lost")
	r.robot.SetConnected(true)
	waitFor(EventController, "arm", "back")
	_, e, _ := r.estop.State()
	_ = r.estop.Reset(context.Background(), e)
	waitFor(EventEStop, "estop", "reset")
}

func TestConditionFieldPathsReadNumbersAndBooleans(t *testing.T) {
	msg := map[string]any{"pose": map[string]any{"pose": map[string]any{"position": map[string]any{"x": 2.5}}},
		"position": []any{0.1, 0.2}, "ok": true, "n": int64(3)}
	for path, want := range map[string]float64{"pose.pose.position.x": 2.5, "position.1": 0.2, "ok": 1, "n": 3} {
		if v, ok := FieldValue(msg, path); !ok || v != want {
			t.Errorf("%s: %v %v", path, v, ok)
		}
	}
	for _, path := range []string{"pose.x", "position.5", "position.a", "missing"} {
		if _, ok := FieldValue(msg, path); ok {
			t.Errorf("%s read a value", path)
		}
	}
	above, below := 2.0, -2.0
	c := Condition{Above: &above, Below: &below}
	if !c.active(2.1) || !c.active(-3) || c.active(0) {
		t.Fatal("band condition")
	}
}

// watchROS feeds a condition watcher a script of messages.
type watchROS struct {
	fakeROS
	msgs []any
}

func (w *watchROS) WatchTopic(ctx context.Context, _ string, fn func(any)) error {
	for _, m := range w.msgs {
		fn(m)
	}
	<-ctx.Done()
	return nil
}

func TestConditionEmitsWhenEnteredAndLeft(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	ev := NewEvents(100, clk.now)
	x := func(v float64) any { return map[string]any{"x": v} }
	src := &watchROS{msgs: []any{x(0), x(3), x(3.5), x(1)}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	above := 2.0
	go func() {
		defer close(done)
		ev.watch(ctx, src, Condition{Name: "far", Topic: "/odom", Field: "x", Above: &above})
	}()
	deadline := time.Now().Add(5 * time.Second)
	var p EventPage
	for time.Now().Before(deadline) {
		if p, _ = ev.Read("", 10, nil); len(p.Items) >= 1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	// x=1 came within a second of entering: the quiet period swallows it
	if len(p.Items) != 1 || p.Items[0].State != "entered" || p.Items[0].Detail["value"] != 3.0 {
		t.Fatalf("%+v", p.Items)
	}
}

func TestSubscribeRefusesUnknownResources(t *testing.T) {
	var o mcp.ServerOptions
	NewEvents(10, nil).ServerOptions(&o)
	for uri, ok := range map[string]bool{EventsURI: true, MotionURIPrefix + "8a1c2f4e-1111-4222-8333-944455556666": true,
		"actbridge://nope": false, MotionURIPrefix + "x": false, "file:///etc/passwd": false} {
		err := o.SubscribeHandler(context.Background(), &mcp.SubscribeRequest{Params: &mcp.SubscribeParams{URI: uri}})
		if (err == nil) != ok {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

// A client refused a subscription learns why the way a refused read tells
// it: the resource-not-found code with the URI in the error's data, not
// JSON-RPC code 0 (what a plain Go error becomes on the wire).
func TestRefusedSubscriptionAnswersResourceNotFoundLikeARead(t *testing.T) {
	ev := NewEvents(10, nil)
	front := &Front{Pipeline: NewPipeline(NewRegistry(), PipelineDeps{}), Name: "actbridge", Version: "test", ServerOptions: ev.ServerOptions}
	ev.Attach(front.Server(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const uri = "test://watched-resource"
	wireErr := func(what string, err error) *jsonrpc.Error {
		t.Helper()
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Fatalf("%s %s: %v (%T), want a JSON-RPC error", what, uri, err, err)
		}
		var data struct{ URI string }
		if json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
			t.Errorf("%s: error data %s, want the uri", what, je.Data)
		}
		return je
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	read := wireErr("read", err)
	sub := wireErr("subscribe", cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
	want := mcp.ResourceNotFoundError(uri).(*jsonrpc.Error).Code
	if read.Code != want || sub.Code != want {
		t.Errorf("codes: read %d, subscribe %d; want the resource-not-found code %d", read.Code, sub.Code, want)
	}
	if !strings.Contains(sub.Message, EventsURI) {
		t.Errorf("subscribe message %q does not say what may be subscribed to", sub.Message)
	}
}

func TestSubscribedClientIsNotifiedWhenAMotionFinishes(t *testing.T) {
	// 2025-11-25 subscribes with a request the server answers; the newer
	// protocol opens a listen stream in the background, so the test first
	// waits for any notification to know the stream is up.
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) { motionFinishedNotification(t, version) })
	}
}

func motionFinishedNotification(t *testing.T, version string) {
	r := newROSRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test", ServerOptions: r.events.ServerOptions, Images: r.images}
	r.events.Attach(front.Server(), r.store)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.events.Run(ctx, EventSources{})
	}()
	defer func() { cancel(); <-done }()
	var mu sync.Mutex
	var got []*mcp.ResourceUpdatedNotificationParams
	updated := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
			select {
			case updated <- struct{}{}:
			default:
			}
		}})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("resource subscriptions not offered: %+v", caps)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: EventsURI}); err != nil {
		t.Fatal(err)
	}
	if version == "" {
		giveUp := time.Now().Add(10 * time.Second)
		for ready := false; !ready; {
			if time.Now().After(giveUp) {
				t.Fatal("the listen stream never delivered a notification")
			}
			r.events.Emit(EventMaster, "master", "back", nil)
			select {
			case <-updated:
				ready = true
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	pv := mustOK(t, r, RolePlanner, "gripper_move", `{"position":0.03}`)
	c := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	id := c["motion_id"].(string)
	r.robot.Emit(actuators.GoalUpdate{Actuator: "gripper", GoalID: id, State: actuators.GoalSucceeded})
	deadline := time.After(10 * time.Second)
	for {
		mu.Lock()
		for _, p := range got {
			e, _ := p.Meta["event"].(map[string]any)
			if p.URI == EventsURI && e["subject"] == id && e["state"] == "succeeded" {
				mu.Unlock()
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: MotionURIPrefix + id})
				if err != nil || !strings.Contains(res.Contents[0].Text, `"succeeded"`) {
					t.Fatalf("motion resource: %v %v", res, err)
				}
				return
			}
		}
		n := len(got)
		mu.Unlock()
		select {
		case <-updated:
		case <-deadline:
			t.Fatalf("no motion-finished notification; got %d updates", n)
		}
	}
}
