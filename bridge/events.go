package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
)

// Event is one thing a planner may want to hear about without polling:
// a motion changing state, the e-stop, a controller or the master going
// away or coming back, a watched topic crossing a configured condition.
type Event struct {
	Seq     uint64         `json:"seq"`
	Time    string         `json:"time"`
	Kind    string         `json:"kind"`    // motion, estop, controller, master, condition
	Subject string         `json:"subject"` // motion id, actuator, "estop", "master", condition name
	State   string         `json:"state"`   // the motion state; latched/reset; lost/back; entered/left/unavailable
	Detail  map[string]any `json:"detail,omitempty"`
}

// Event kinds, as events_read filters them.
const (
	EventMotion     = "motion"
	EventEStop      = "estop"
	EventController = "controller"
	EventMaster     = "master"
	EventCondition  = "condition"
)

// EventKinds lists every kind.
var EventKinds = []string{EventMotion, EventEStop, EventController, EventMaster, EventCondition}

// Resource URIs a client subscribes to (resources/subscribe): every event,
// or one motion's changes.
const (
	EventsURI       = "actbridge://events"
	MotionURIPrefix = "actbridge://motions/"
)

var motionURIRE = regexp.MustCompile(`^actbridge://motions/[0-9a-f-]{36}$`)

// Condition is a watched topic field crossing a bound: active while the
// value is above Above or below Below (either may be nil).
type Condition struct {
	Name, Topic, Field string
	Above, Below       *float64
}

func (c Condition) active(v float64) bool {
	return (c.Above != nil && v > *c.Above) || (c.Below != nil && v < *c.Below)
}

// EventSources are what Run watches.
type EventSources struct {
	Robot      actuators.State
	EStop      func() (latched bool, event uint64, reason string)
	ROS        actuators.Graph // nil: no conditions
	Conditions []Condition
	// Poll is how often the robot and e-stop are read (250 ms if zero).
	Poll time.Duration
}

// Events is the bridge's event log: a bounded ring of recent events read
// with events_read, and MCP resource-updated notifications to subscribed
// clients. It lives in memory: a restarted bridge starts a new log, and
// cursors of the old one say so.
type Events struct {
	now func() time.Time

	mu      sync.Mutex
	ring    []Event
	cap     int
	next    uint64
	boot    string
	motions map[string]inflight.State
	srv     *mcp.Server

	pending chan Event
}

// NewEvents keeps the last capacity events; now may be nil.
func NewEvents(capacity int, now func() time.Time) *Events {
	if now == nil {
		now = time.Now
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Events{now: now, cap: max(capacity, 16), next: 1, boot: hex.EncodeToString(b),
		motions: map[string]inflight.State{}, pending: make(chan Event, 256)}
}

// Emit records an event and queues its notification (dropped, never
// blocking, when the queue is full: the log still has it).
func (e *Events) Emit(kind, subject, state string, detail map[string]any) Event {
	e.mu.Lock()
	ev := Event{Seq: e.next, Time: e.now().UTC().Format(time.RFC3339Nano), Kind: kind, Subject: subject, State: state, Detail: detail}
	e.next++
	e.ring = append(e.ring, ev)
	if len(e.ring) > e.cap {
		e.ring = append(e.ring[:0], e.ring[len(e.ring)-e.cap:]...)
	}
	e.mu.Unlock()
	select {
	case e.pending <- ev:
	default:
	}
	return ev
}

// MotionChanged is a Motions.Changed hook: it emits one event per state a
// motion enters (progress alone is not an event).
func (e *Events) MotionChanged(mo inflight.Motion) {
	if mo.ID == "" {
		return
	}
	e.mu.Lock()
	if e.motions[mo.ID] == mo.State {
		e.mu.Unlock()
		return
	}
	terminal := inflight.IsTerminal(mo.State)
	if terminal {
		delete(e.motions, mo.ID)
	} else {
		e.motions[mo.ID] = mo.State
		if len(e.motions) > 10000 { // bounded: forget open motions wholesale
			e.motions = map[string]inflight.State{mo.ID: mo.State}
		}
	}
	e.mu.Unlock()
	d := map[string]any{"actuator": mo.Actuator, "tool": mo.Tool, "terminal": terminal, "progress": mo.Progress}
	if mo.ErrorText != "" {
		d["error"] = clipRunes(CleanText(mo.ErrorText), 200)
	}
	e.Emit(EventMotion, mo.ID, string(mo.State), d)
}

// ChainMotionHooks calls every non-nil hook in order.
func ChainMotionHooks(hooks ...func(inflight.Motion)) func(inflight.Motion) {
	return func(mo inflight.Motion) {
		for _, h := range hooks {
			if h != nil {
				h(mo)
			}
		}
	}
}

// EventPage is what events_read returns.
type EventPage struct {
	Items      []Event `json:"items"`
	NextCursor string  `json:"next_cursor"`
	More       bool    `json:"more"`
	Missed     uint64  `json:"missed"`
	Restarted  bool    `json:"restarted,omitempty"`
}

// Read returns events after cursor (all retained events for ""), at most
// limit, of the given kinds (all when empty). NextCursor is always set: it
// is where the next read resumes.
func (e *Events) Read(cursor string, limit int, kinds []string) (EventPage, *Error) {
	var after uint64
	restarted := false
	if cursor != "" {
		raw, err := DecodeCursor("cursor", cursor, "events")
		if err != nil {
			return EventPage{}, err
		}
		boot, seq, ok := strings.Cut(raw, ":")
		n, perr := strconv.ParseUint(seq, 10, 64)
		if !ok || perr != nil {
			return EventPage{}, RuleError(CodeInvalidArgument, "cursor_valid", "cursor", "invalid cursor: not an events_read cursor")
		}
		if boot == e.boot {
			after = n
		} else {
			restarted = true // a cursor of an earlier bridge run: start over
		}
	}
	if limit <= 0 {
		limit = 50
	}
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p := EventPage{Items: []Event{}, Restarted: restarted}
	if len(e.ring) > 0 && e.ring[0].Seq > after+1 && (after > 0 || restarted) {
		p.Missed = e.ring[0].Seq - after - 1
	}
	last := after
	for _, ev := range e.ring {
		if ev.Seq <= after {
			continue
		}
		if len(p.Items) == limit {
			p.More = true
			break
		}
		last = ev.Seq
		if len(want) == 0 || want[ev.Kind] {
			p.Items = append(p.Items, ev)
		}
	}
	if last == 0 && after == 0 {
		last = e.next - 1
	}
	p.NextCursor = EncodeCursor(e.boot+":"+strconv.FormatUint(last, 10), "events")
	return p, nil
}

// Run polls the robot and the e-stop, watches the condition topics and
// sends notifications until ctx ends.
func (e *Events) Run(ctx context.Context, src EventSources) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	if src.ROS != nil {
		for _, c := range src.Conditions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.watch(ctx, src.ROS, c)
			}()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		e.poll(ctx, src)
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-e.pending:
			e.notify(ctx, ev)
		}
	}
}

func (e *Events) poll(ctx context.Context, src EventSources) {
	period := src.Poll
	if period <= 0 {
		period = 250 * time.Millisecond
	}
	t := time.NewTicker(period)
	defer t.Stop()
	first := true
	var latched bool
	var event uint64
	var master bool
	connected := map[string]bool{}
	for {
		if src.EStop != nil {
			l, ev, reason := src.EStop()
			switch {
			case first:
			case l && (!latched || ev != event):
				e.Emit(EventEStop, "estop", "latched", map[string]any{"event": ev, "reason": reason})
			case !l && latched:
				e.Emit(EventEStop, "estop", "reset", map[string]any{"event": ev})
			}
			latched, event = l, ev
		}
		if src.Robot != nil {
			m := src.Robot.Connected()
			if !first && m != master {
				e.Emit(EventMaster, "master", map[bool]string{true: "back", false: "lost"}[m], nil)
			}
			master = m
			for _, a := range src.Robot.Actuators() {
				was, seen := connected[a.Name]
				if seen && was != a.Connected {
					d := map[string]any{"kind": a.Kind}
					if a.Detail != "" {
						d["detail"] = clipRunes(a.Detail, 200)
					}
					e.Emit(EventController, a.Name, map[bool]string{true: "back", false: "lost"}[a.Connected], d)
				}
				connected[a.Name] = a.Connected
			}
		}
		first = false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// conditionQuiet is the least time between two events of one condition, so
// a value wobbling on its bound does not flood the log.
const conditionQuiet = time.Second

func (e *Events) watch(ctx context.Context, ros actuators.Graph, c Condition) {
	var mu sync.Mutex
	var reported, known bool
	var last time.Time
	lastErr := ""
	detail := func(v float64) map[string]any {
		d := map[string]any{"topic": c.Topic, "field": c.Field, "value": v}
		if c.Above != nil {
			d["above"] = *c.Above
		}
		if c.Below != nil {
			d["below"] = *c.Below
		}
		return d
	}
	for ctx.Err() == nil {
		err := ros.WatchTopic(ctx, c.Topic, func(msg any) {
			v, ok := FieldValue(msg, c.Field)
			if !ok {
				return
			}
			now := e.now()
			mu.Lock()
			defer mu.Unlock()
			act := c.active(v)
			if (!known && act) || (known && act != reported && now.Sub(last) >= conditionQuiet) {
				e.Emit(EventCondition, c.Name, map[bool]string{true: "entered", false: "left"}[act], detail(v))
				last = now
			}
			reported, known = act, true
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil && err.Error() != lastErr {
			lastErr = err.Error()
			e.Emit(EventCondition, c.Name, "unavailable", map[string]any{"topic": c.Topic, "error": clipRunes(lastErr, 200)})
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Second):
		}
	}
}

// FieldValue reads a dotted path ("pose.pose.position.x", "position.0")
// from a JSON-ready message as a number; booleans read as 0 or 1.
func FieldValue(msg any, path string) (float64, bool) {
	cur := msg
	for _, part := range strings.Split(path, ".") {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return 0, false
			}
			cur = x[i]
		default:
			return 0, false
		}
	}
	var f float64
	switch v := cur.(type) {
	case float64:
		f = v
	case float32:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint64:
		f = float64(v)
	case int:
		f = float64(v)
	case bool:
		if v {
			f = 1
		}
	default:
		return 0, false
	}
	return f, !math.IsNaN(f)
}

// ServerOptions enables resource subscriptions on the MCP server: clients
// may subscribe to EventsURI and to one motion's URI.
func (e *Events) ServerOptions(o *mcp.ServerOptions) {
	o.SubscribeHandler = func(_ context.Context, req *mcp.SubscribeRequest) error {
		if uri := req.Params.URI; uri != EventsURI && !motionURIRE.MatchString(uri) {
			return resourceNotFound(uri, fmt.Sprintf("no such resource %q: subscribe to %s or %s<motion_id>", clipRunes(uri, 100), EventsURI, MotionURIPrefix))
		}
		return nil
	}
	o.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
}

// resourceNotFound is the SDK's resource-not-found error (the code and
// data a refused resources/read answers; a plain error would reach the
// client as code 0) with message as its message.
func resourceNotFound(uri, message string) error {
	err := mcp.ResourceNotFoundError(uri)
	if je, ok := err.(*jsonrpc.Error); ok {
		je.Message = message
	}
	return err
}

// Install adds the event resources to srv and makes Run notify its
// subscribers. motion reads one motion for its resource.
func (e *Events) Install(srv *mcp.Server, motion func(id string) (any, bool)) {
	srv.AddResource(&mcp.Resource{URI: EventsURI, Name: "events", Title: "Robot events", MIMEType: "application/json",
		Description: "The latest robot events (motion state changes, e-stop, controllers lost/back, watched topic conditions). Subscribe to be notified; read it, or call events_read with a cursor, to get them."},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			p, _ := e.Read("", 0, nil)
			if len(p.Items) > 50 {
				p.Items = p.Items[len(p.Items)-50:]
			}
			b, _ := json.Marshal(p)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: EventsURI, MIMEType: "application/json", Text: string(b)}}}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: MotionURIPrefix + "{motion_id}", Name: "motion", Title: "One motion",
		MIMEType: "application/json", Description: "A motion's state and result (as motion_status returns it); subscribe to be notified of its state changes."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			v, ok := motion(strings.TrimPrefix(uri, MotionURIPrefix))
			if !motionURIRE.MatchString(uri) || !ok {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			b, _ := json.Marshal(v)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
		})
	e.mu.Lock()
	e.srv = srv
	e.mu.Unlock()
}

func (e *Events) notify(ctx context.Context, ev Event) {
	e.mu.Lock()
	srv := e.srv
	e.mu.Unlock()
	if srv == nil {
		return
	}
	uris := []string{EventsURI}
	if ev.Kind == EventMotion {
		uris = append(uris, MotionURIPrefix+ev.Subject)
	}
	for _, uri := range uris {
		// A fresh meta map per send: the SDK writes the subscription id into it.
		_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri, Meta: mcp.Meta{"event": ev}})
	}
}

// Attach installs the event and motion resources (motions read from
// store) on a front's server, which was built with e.ServerOptions (its
// resource subscriptions). Call it before the front serves.
func (e *Events) Attach(srv *mcp.Server, store MotionStore) {
	e.Install(srv, func(id string) (any, bool) {
		if store == nil {
			return nil, false
		}
		mo, err := store.Get(id)
		if err != nil {
			return nil, false
		}
		return motionResult(mo, false), true
	})
}

// EventsReadTool reads the event log.
func EventsReadTool(ev *Events) *Tool {
	kinds := make([]string, len(EventKinds))
	copy(kinds, EventKinds)
	return &Tool{
		Name: "events_read", Group: "events", Tier: TierRead, Quick: true, Title: "Read robot events", Idempotent: true,
		Description: Describe("Returns robot events after a cursor: motion state changes, e-stop latched/reset, controllers or the master lost/back, watched topics crossing their configured conditions. The same events are sent as MCP resource updates on "+EventsURI+" to clients that subscribe.",
			"your client cannot subscribe to resources, or you need what happened while you were away; pass the last next_cursor to get only new events.",
			"one motion's state (motion_status waits for it); live sensor values (topic_sample).",
			"none.",
			"{items: [{seq, time, kind, subject, state, detail}], next_cursor, more, missed}; at most `limit` (default 50) events; next_cursor is always set."),
		Input: Object("", map[string]*Schema{
			"cursor": Str("next_cursor of the previous read. Default: from the oldest event kept (the last 1000).", 512),
			"limit":  Integer("Most events to return. Default 50.", 1, 200),
			"kinds":  Array("Only these kinds. Default all.", Enum("An event kind.", kinds...), len(kinds)),
		}),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"items":       {Type: "array", Description: "Events in order."},
			"next_cursor": {Type: "string", Description: "Where the next read resumes."},
			"more":        {Type: "boolean", Description: "True when more events are waiting (read again now)."},
			"missed":      {Type: "integer", Description: "Events dropped from the log before you read them."},
		}, Required: []string{"items", "next_cursor", "more"}},
		Errors: []Code{CodeInvalidArgument, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Cursor string   `json:"cursor"`
				Limit  int      `json:"limit"`
				Kinds  []string `json:"kinds"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			p, err := ev.Read(in.Cursor, in.Limit, in.Kinds)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
	}
}
