package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fixture builds a registry of small tools that exercise every pipeline path.
type fixture struct {
	reg      *Registry
	p        *Pipeline
	writes   atomic.Int32
	overlap  atomic.Int32
	inWrite  atomic.Int32
	release  chan struct{}
	entered  chan struct{}
	observed []CallRecord
	mu       sync.Mutex
}

func (f *fixture) ObserveCall(r CallRecord) {
	f.mu.Lock()
	f.observed = append(f.observed, r)
	f.mu.Unlock()
}

type memIdem struct {
	mu sync.Mutex
	m  map[string][2]string
}

func (m *memIdem) Lookup(key, digest string) (json.RawMessage, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	if !ok {
		return nil, false, nil
	}
	if v[0] != digest {
		return nil, false, RuleError(CodeInvalidArgument, "idempotency_key_unique", "idempotency_key", "key reused with other arguments")
	}
	return json.RawMessage(v[1]), true, nil
}

func (m *memIdem) Remember(_ context.Context, key, digest string, r json.RawMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[key] = [2]string{digest, string(r)}
	return nil
}

func okOut() *Schema {
	return &Schema{Type: "object", Open: true, Properties: map[string]*Schema{"ok": Bool("ok")}}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{reg: NewRegistry(), release: make(chan struct{}), entered: make(chan struct{}, 8)}
	desc := Describe("Test tool.", "testing.", "production.", "none.", "small.")
	f.reg.MustAdd(
		&Tool{Name: "demo_read", Group: "demo", Tier: TierRead, Description: desc,
			Input:  Object("", map[string]*Schema{"n": Integer("How many. Default 1.", 0, 100)}),
			Output: okOut(), Errors: []Code{CodeInvalidArgument, CodeInternal},
			Call: func(context.Context, *Call) (any, error) { return map[string]any{"ok": true}, nil }},
		&Tool{Name: "demo_write", Group: "demo", Tier: TierWrite, Resource: "arm", Description: desc,
			Input: Object("", map[string]*Schema{
				"v":               Num("Value.", 0, 1),
				"idempotency_key": Str("Key for safe retries. Default none.", 64),
			}, "v"),
			Output: okOut(), Errors: []Code{CodeInvalidArgument, CodeBusy, CodeInternal},
			Call: func(context.Context, *Call) (any, error) {
				if f.inWrite.Add(1) > 1 {
					f.overlap.Add(1)
				}
				defer f.inWrite.Add(-1)
				f.writes.Add(1)
				f.entered <- struct{}{}
				<-f.release
				return map[string]any{"ok": true, "n": f.writes.Load()}, nil
			}},
		&Tool{Name: "demo_check", Group: "demo", Tier: TierRead, Description: desc,
			Input:  Object("", map[string]*Schema{"joint": Str("Joint name.", 32)}, "joint"),
			Output: okOut(), Errors: []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal},
			Semantic: func(_ context.Context, c *Call) error {
				if c.Values["joint"] != "j1" {
					return RuleError(CodeNotFound, "joint_exists", "joint", "no such joint")
				}
				return nil
			},
			Ready: func(context.Context, *Call) error {
				return StateError(CodeUnavailable, "controller offline", "when the controller reports status again", "arm offline")
			},
			Call: func(context.Context, *Call) (any, error) { return map[string]any{"ok": true}, nil }},
		&Tool{Name: "demo_panic", Group: "demo", Tier: TierRead, Description: desc,
			Input: Object("", nil), Output: okOut(), Errors: []Code{CodeInvalidArgument, CodeInternal},
			Call: func(context.Context, *Call) (any, error) { panic("boom") }},
		&Tool{Name: "demo_admin", Group: "demo", Tier: TierWrite, Roles: []Role{RoleOperator}, Description: desc,
			Input: Object("", nil), Output: okOut(), Errors: []Code{CodeInvalidArgument, CodePermissionDenied, CodeInternal},
			Call: func(context.Context, *Call) (any, error) { return map[string]any{"ok": true}, nil }},
	)
	f.p = NewPipeline(f.reg, PipelineDeps{})
	f.p.Observer = f
	f.p.Idem = &memIdem{m: map[string][2]string{}}
	f.p.LockWait = 200 * time.Millisecond
	f.reg.MustAdd(DiscoveryTools()...)
	return f
}

func TestEachLayerRefusesWithItsOwnShape(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, e := f.p.Call(ctx, "demo_check", json.RawMessage(`{"joint":5}`), Invocation{})
	if e == nil || e.Layer() != LayerSchema || e.Field != "joint" || e.Expected == "" || e.Actual != "number 5" {
		t.Fatalf("schema: %+v", e)
	}
	_, e = f.p.Call(ctx, "demo_check", json.RawMessage(`{"joint":"j9"}`), Invocation{})
	if e == nil || e.Layer() != LayerSemantic || e.Rule != "joint_exists" || e.Code != CodeNotFound {
		t.Fatalf("semantic: %+v", e)
	}
	_, e = f.p.Call(ctx, "demo_check", json.RawMessage(`{"joint":"j1"}`), Invocation{})
	if e == nil || e.Layer() != LayerResource || e.State == "" || e.Release == "" || !e.Retryable {
		t.Fatalf("resource: %+v", e)
	}
}

func TestUnknownToolSuggestsNearestNames(t *testing.T) {
	f := newFixture(t)
	_, e := f.p.Call(context.Background(), "demo_raed", nil, Invocation{})
	if e == nil || e.Code != CodeNotFound || !strings.Contains(e.Hint, "demo_read") {
		t.Fatalf("%+v", e)
	}
}

func TestToolPanicBecomesInternalError(t *testing.T) {
	f := newFixture(t)
	_, e := f.p.Call(context.Background(), "demo_panic", nil, Invocation{})
	if e == nil || e.Code != CodeInternal {
		t.Fatalf("%+v", e)
	}
}

func TestOperatorOnlyToolRefusesPlanner(t *testing.T) {
	f := newFixture(t)
	_, e := f.p.Call(context.Background(), "demo_admin", nil, Invocation{Role: RolePlanner})
	if e == nil || e.Code != CodePermissionDenied {
		t.Fatalf("%+v", e)
	}
	if _, e := f.p.Call(context.Background(), "demo_admin", nil, Invocation{Role: RoleOperator}); e != nil {
		t.Fatal(e)
	}
}

func TestRepeatedSameFailureAddsChangeApproachHint(t *testing.T) {
	f := newFixture(t)
	var e *Error
	for i := 0; i < StreakHint; i++ {
		_, e = f.p.Call(context.Background(), "demo_check", json.RawMessage(`{"joint":"nope"}`), Invocation{Session: "s1"})
		if i < StreakHint-1 && strings.Contains(e.Hint, "change approach") {
			t.Fatalf("hint too early at %d", i)
		}
	}
	if !strings.Contains(e.Hint, "change approach") {
		t.Fatalf("no hint after %d failures: %+v", StreakHint, e)
	}
	// Another session starts its own count.
	_, e = f.p.Call(context.Background(), "demo_check", json.RawMessage(`{"joint":"nope"}`), Invocation{Session: "s2"})
	if strings.Contains(e.Hint, "change approach") {
		t.Fatal("streak leaked across sessions")
	}
}

func TestTwoWritesOnOneResourceNeverOverlapAndTheSecondGetsBusy(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	done := make(chan *Error, 1)
	go func() {
		_, e := f.p.Call(ctx, "demo_write", json.RawMessage(`{"v":0.1}`), Invocation{})
		done <- e
	}()
	<-f.entered
	_, e := f.p.Call(ctx, "demo_write", json.RawMessage(`{"v":0.2}`), Invocation{})
	if e == nil || e.Code != CodeBusy || !strings.Contains(e.State, "demo_write") || e.Release == "" || !e.Retryable {
		t.Fatalf("second write: %+v", e)
	}
	close(f.release)
	if e := <-done; e != nil {
		t.Fatal(e)
	}
	if f.overlap.Load() != 0 {
		t.Fatal("writes overlapped")
	}
}

func TestIdempotentWriteReplaysAndRejectsKeyReuse(t *testing.T) {
	f := newFixture(t)
	close(f.release)
	go func() {
		for range f.entered {
		}
	}()
	ctx := context.Background()
	a, e := f.p.Call(ctx, "demo_write", json.RawMessage(`{"v":0.5,"idempotency_key":"k1"}`), Invocation{})
	if e != nil {
		t.Fatal(e)
	}
	b, e := f.p.Call(ctx, "demo_write", json.RawMessage(`{"idempotency_key":"k1","v":0.50}`), Invocation{})
	if e != nil {
		t.Fatal(e)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || f.writes.Load() != 1 {
		t.Fatalf("replay ran the write again: %s vs %s, writes %d", ja, jb, f.writes.Load())
	}
	_, e = f.p.Call(ctx, "demo_write", json.RawMessage(`{"v":0.7,"idempotency_key":"k1"}`), Invocation{})
	if e == nil || e.Code != CodeInvalidArgument {
		t.Fatalf("key reuse: %+v", e)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.observed[1].Outcome != "replay" {
		t.Fatalf("replay not observed as such: %+v", f.observed[1])
	}
}

func TestBatchReportsEachItemAndNeverCallsPartialFailureSuccess(t *testing.T) {
	f := newFixture(t)
	close(f.release)
	go func() {
		for range f.entered {
		}
	}()
	args := `{"calls":[
		{"tool":"demo_read","arguments":{}},
		{"tool":"demo_check","arguments":{"joint":"j9"}},
		{"tool":"demo_write","arguments":{"v":0.1}},
		{"tool":"demo_write","arguments":{"v":0.2}},
		{"tool":"nope","arguments":{}},
		{"tool":"tools_batch","arguments":{"calls":[]}}]}`
	out, e := f.p.Call(context.Background(), "tools_batch", json.RawMessage(args), Invocation{})
	if e != nil {
		t.Fatal(e)
	}
	r := out.(BatchResult)
	if r.AllOK || r.Succeeded != 3 || r.Failed != 3 || len(r.Items) != 6 {
		t.Fatalf("%+v", r)
	}
	for i, want := range []bool{true, false, true, true, false, false} {
		if r.Items[i].OK != want || r.Items[i].Index != i {
			t.Fatalf("item %d: %+v", i, r.Items[i])
		}
	}
	if r.Items[1].Error.Rule != "joint_exists" || r.Items[4].Error.Code != CodeNotFound {
		t.Fatalf("errors: %+v %+v", r.Items[1].Error, r.Items[4].Error)
	}
	if f.overlap.Load() != 0 {
		t.Fatal("batch writes overlapped")
	}
}

func TestLazySearchFindsGroupsBySynonyms(t *testing.T) {
	r := NewRegistry()
	desc := Describe("Opens or closes the gripper.", "grasping.", "arm motion.", "moves the gripper.", "a preview.")
	r.MustAdd(&Tool{Name: "gripper_move", Group: "gripper", Tier: TierIrreversible, Description: desc,
		Input: Object("", map[string]*Schema{"position": Num("Opening in m.", 0, 0.1)}, "position"), Output: okOut(),
		Errors: []Code{CodeInvalidArgument, CodeInternal}, Call: func(context.Context, *Call) (any, error) { return nil, nil }},
		&Tool{Name: "base_drive", Group: "base", Tier: TierIrreversible, Description: Describe("Drives the base.", "short moves.", "long trips.", "moves the base.", "a preview."),
			Input: Object("", map[string]*Schema{"linear": Num("m/s.", -1, 1)}, "linear"), Output: okOut(),
			Errors: []Code{CodeInvalidArgument, CodeInternal}, Call: func(context.Context, *Call) (any, error) { return nil, nil }})
	got := r.Search("open the hand", 3)
	if len(got) == 0 || got[0].Group != "gripper" || len(got[0].Tools) != 1 || len(got[0].Tools[0].InputSchema) == 0 {
		t.Fatalf("%+v", got)
	}
	if got := r.Search("drive forward", 1); len(got) != 1 || got[0].Group != "base" {
		t.Fatalf("%+v", got)
	}
}

func TestContractCheckRefusesBrokenTools(t *testing.T) {
	good := func() *Tool {
		return &Tool{Name: "demo_ok", Group: "demo", Tier: TierRead,
			Description: Describe("x.", "a.", "b.", "c.", "d."),
			Input:       Object("", map[string]*Schema{"a": Num("A.", 0, 1)}, "a"), Output: okOut(),
			Errors: []Code{CodeInvalidArgument, CodeInternal}, Call: func(context.Context, *Call) (any, error) { return nil, nil }}
	}
	if err := CheckContract(good()); err != nil {
		t.Fatal(err)
	}
	breaks := map[string]func(*Tool){
		"bad name":         func(t *Tool) { t.Name = "demo ok!" },
		"wrong group":      func(t *Tool) { t.Group = "other" },
		"no when-not":      func(t *Tool) { t.Description = "does things" },
		"open input":       func(t *Tool) { t.Input.Open = true },
		"8 properties":     func(t *Tool) { addProps(t, 8) },
		"undescribed prop": func(t *Tool) { t.Input.Properties["a"].Description = "" },
		"unbounded number": func(t *Tool) { t.Input.Properties["a"].Maximum = nil },
		"unbounded string": func(t *Tool) { t.Input.Properties["a"] = &Schema{Type: "string", Description: "s"} },
		"optional no default": func(t *Tool) {
			t.Input.Required = nil
		},
		"unknown code": func(t *Tool) { t.Errors = append(t.Errors, "oops") },
		"no internal":  func(t *Tool) { t.Errors = []Code{CodeInvalidArgument} },
		"array no max": func(t *Tool) { t.Input.Properties["a"] = &Schema{Type: "array", Description: "x", Items: Bool("b")} },
	}
	for name, br := range breaks {
		t.Run(name, func(t *testing.T) {
			tl := good()
			br(tl)
			if CheckContract(tl) == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func addProps(t *Tool, n int) {
	for i := 0; i < n; i++ {
		t.Input.Properties[string(rune('b'+i))] = Num("P. Default 0.", 0, 1)
	}
}

func TestAsErrorKeepsStructuredErrors(t *testing.T) {
	e := RuleError(CodeLimitViolation, "r", "f", "m")
	if AsError(error(e)) != e {
		t.Fatal("lost")
	}
	if AsError(errors.New("x")).Code != CodeInternal {
		t.Fatal("plain error not internal")
	}
}

func TestSearchFindsCameraByEverydayWords(t *testing.T) {
	r := NewRegistry()
	r.MustAdd(&Tool{Name: "camera_snapshot", Group: "camera", Tier: TierRead, Description: Describe("Grabs a frame.", "a.", "b.", "none.", "an image."),
		Input: Object("", map[string]*Schema{"topic": Str("Topic.", 64)}, "topic"), Output: okOut(),
		Errors: []Code{CodeInvalidArgument, CodeInternal}, Call: func(context.Context, *Call) (any, error) { return nil, nil }})
	if got := r.Search("take a picture", 1); len(got) != 1 || got[0].Group != "camera" {
		t.Fatalf("%+v", got)
	}
}

// TestANullOptionalIsALeftOutOne: OpenAI's strict mode sends null for the
// optional properties it skips (export.go makes them nullable); such a
// call runs and is identified as the one that left them out, while a
// null where a value is required is refused at the schema layer.
func TestANullOptionalIsALeftOutOne(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, e := f.p.Call(ctx, "demo_read", json.RawMessage(`{"n":null}`), Invocation{}); e != nil {
		t.Fatalf("null optional refused: %+v", e)
	}
	if _, e := f.p.Call(ctx, "demo_read", json.RawMessage(`{}`), Invocation{}); e != nil {
		t.Fatalf("left out: %+v", e)
	}
	f.mu.Lock()
	got := []string{string(f.observed[0].Args), string(f.observed[1].Args)}
	f.mu.Unlock()
	if got[0] != got[1] {
		t.Fatalf("null optional identified as %s, left out as %s", got[0], got[1])
	}
	_, e := f.p.Call(ctx, "demo_check", json.RawMessage(`{"joint":null}`), Invocation{})
	if e == nil || e.Layer() != LayerSchema || e.Field != "joint" || e.Actual != "null" {
		t.Fatalf("null required: %+v", e)
	}
}
