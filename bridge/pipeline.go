package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Idempotency remembers results of reversible writes by key and argument
// digest; Lookup returns an *Error (invalid_argument) when a key is reused
// with different arguments.
type Idempotency interface {
	Lookup(key, digest string) (json.RawMessage, bool, error)
	Remember(ctx context.Context, key, digest string, result json.RawMessage) error
}

// Observer sees every finished call (metrics, audit). It must not block.
type Observer interface {
	ObserveCall(rec CallRecord)
}

// CallRecord is what the pipeline reports about one call.
type CallRecord struct {
	Tool       string
	Tier       Tier
	Role       Role
	Session    string
	Outcome    string // ok, error, replay
	Code       Code
	Layer      Layer
	Latency    time.Duration
	ArgsDigest string
	Args       json.RawMessage
	MotionID   string
	PreviewOf  string // the tool whose preview this call issued, confirmed or denied
	Denial     string // DenialConsole or DenialElicitation when an operator denied it
	Via        string // how the call came: ViaConsole, ViaElicitation (an approval), empty for MCP
	Started    time.Time
}

// Pipeline runs every call through the same steps: decode, schema (layer 1),
// role, rate limit, semantics (layer 2), resources (layer 3), the
// per-resource lock, the idempotency store for writes, then the tool; it
// reports each call once.
type Pipeline struct {
	Registry *Registry
	Locks    *Locks
	Idem     Idempotency // may be nil: writes then run without replay
	Observer Observer    // may be nil
	LockWait time.Duration
	// Limiter holds the rate limits every call of a limited tool draws
	// from (Tool.RateLimited); nil limits nothing.
	Limiter *RateLimiter

	streakMu sync.Mutex
	streaks  map[string]streak
}

type streak struct {
	code Code
	n    int
}

// StreakHint is added when the same tool fails with the same code this many
// times in a row in one session.
const StreakHint = 3

// PipelineDeps are what a pipeline uses beside its registry, given once
// at construction; each may be nil.
type PipelineDeps struct {
	Idem     Idempotency  // nil: writes run without replay
	Observer Observer     // nil: calls are not reported
	Limiter  *RateLimiter // nil: nothing is rate limited
}

// NewPipeline wires a registry and its dependencies with fresh locks.
func NewPipeline(r *Registry, d PipelineDeps) *Pipeline {
	return &Pipeline{Registry: r, Locks: NewLocks(), Idem: d.Idem, Observer: d.Observer, Limiter: d.Limiter,
		LockWait: 2 * time.Second, streaks: map[string]streak{}}
}

// Invocation carries who calls and how to report progress.
type Invocation struct {
	Role     Role
	Session  string
	Progress func(done, total float64, message string)
	// Via is how the caller reaches the bridge: ViaConsole, or empty for MCP.
	Via string
	// Decoded, when set, is the arguments already decoded from the raw
	// bytes Call is given (admission's one parse of an HTTP body,
	// callbody.go), so Call does not decode them again; it is the call's
	// to change.
	Decoded map[string]any
}

// Call runs one tool call. It never panics on input: a panic inside a tool
// becomes an internal error.
func (p *Pipeline) Call(ctx context.Context, name string, raw json.RawMessage, inv Invocation) (result any, err *Error) {
	start := time.Now()
	rec := CallRecord{Tool: name, Role: inv.Role, Session: inv.Session, Started: start}
	c := &Call{Role: inv.Role, Session: inv.Session, Progress: inv.Progress, Via: inv.Via, Pipeline: p}
	var res Result // what the tool said about the call, beside its value
	if c.Progress == nil {
		c.Progress = func(float64, float64, string) {}
	}
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, Errf(CodeInternal, "tool panicked: %v", r).WithLayer(LayerExecution)
		}
		p.report(rec, time.Since(start), c, res, err)
	}()

	t, ok := p.Registry.Lookup(name)
	if !ok {
		return nil, p.Registry.NotFound(name).WithLayer(LayerSchema)
	}
	c.Tool = t
	rec.Tier = t.Tier
	if e := p.bind(t, raw, inv.Decoded, c); e != nil {
		return nil, e
	}
	rec.Args = c.Args
	rec.ArgsDigest = Digest(c.Args)
	if e := p.check(ctx, t, c); e != nil {
		return nil, e
	}
	if key := t.resourceFor(c); key != "" && (t.Tier == TierWrite || t.Tier == TierIrreversible) {
		release, lerr := p.Locks.Acquire(ctx, key, t.Name, p.LockWait)
		if lerr != nil {
			return nil, lerr
		}
		defer release()
	}
	// A write with a key seen before answers from the idempotency store
	// (a replay); its first answer is remembered under the key.
	idemKey, _ := c.Values["idempotency_key"].(string)
	idem := t.Tier == TierWrite && idemKey != "" && p.Idem != nil
	if idem {
		prev, found, lerr := p.Idem.Lookup(idemKey, rec.ArgsDigest)
		if lerr != nil {
			return nil, tag(lerr, LayerSemantic)
		}
		if found {
			res.Replay = true
			return json.RawMessage(prev), nil
		}
	}
	out, cerr := t.Call(ctx, c)
	if r, ok := out.(Result); ok {
		res, out = r, r.Value
	}
	if cerr != nil {
		return nil, tag(cerr, LayerExecution)
	}
	if idem {
		if b, merr := json.Marshal(out); merr == nil {
			// A failed replay record fails nothing: the write happened.
			_ = p.Idem.Remember(ctx, idemKey, rec.ArgsDigest, b)
		}
	}
	return out, nil
}

// bind decodes the arguments (unless decoded holds them already), checks
// them against the tool's schema (layer 1) and gives c its values, their
// canonical bytes and what the tool's Bind reads from them.
func (p *Pipeline) bind(t *Tool, raw json.RawMessage, decoded map[string]any, c *Call) *Error {
	values := decoded
	if values == nil {
		var derr *Error
		if values, derr = DecodeArgs(raw); derr != nil {
			return derr
		}
	}
	in := t.Shape().Input // one shape for the whole check (Listing.Set)
	in.DropNullOptionals(values)
	if verr := in.Validate(values); verr != nil {
		return verr
	}
	c.Args, c.Values = canonicalArgs(values), values
	if t.Bind != nil {
		c.Bound = t.Bind(c)
	}
	return nil
}

// check is everything that may refuse a call before it runs: the role,
// the rate limit, the tool's Semantic (layer 2) and Ready (layer 3).
func (p *Pipeline) check(ctx context.Context, t *Tool, c *Call) *Error {
	if !t.allows(c.Role) {
		return RuleError(CodePermissionDenied, "role_allowed", "",
			fmt.Sprintf("%s may only be called by: %v; you are %s", t.Name, t.Roles, roleName(c.Role))).
			WithHint("ask the operator (console) to do this")
	}
	if e := p.Limiter.admit(t, c.Role); e != nil {
		return tag(e, LayerSemantic)
	}
	if t.Semantic != nil {
		if e := tag(t.Semantic(ctx, c), LayerSemantic); e != nil {
			return e
		}
	}
	if t.Ready != nil {
		if e := tag(t.Ready(ctx, c), LayerResource); e != nil {
			return e
		}
	}
	return nil
}

// report tells the observer how the call went, once.
func (p *Pipeline) report(rec CallRecord, latency time.Duration, c *Call, res Result, err *Error) {
	rec.Latency = latency
	rec.MotionID, rec.PreviewOf, rec.Denial, rec.Via = res.MotionID, res.PreviewOf, res.Denial, c.Via
	if res.Via != "" {
		rec.Via = res.Via
	}
	switch {
	case err != nil:
		rec.Outcome, rec.Code, rec.Layer = "error", err.Code, err.Layer()
		p.noteFailure(rec.Session, rec.Tool, err)
	case res.Replay:
		rec.Outcome = "replay"
		p.noteSuccess(rec.Session, rec.Tool)
	default:
		rec.Outcome = "ok"
		p.noteSuccess(rec.Session, rec.Tool)
	}
	if p.Observer != nil {
		p.Observer.ObserveCall(rec)
	}
}

func roleName(r Role) string {
	if r == "" {
		return "anonymous"
	}
	return string(r)
}

func tag(err error, l Layer) *Error {
	if err == nil {
		return nil
	}
	e := AsError(err)
	if e.layer == LayerNone {
		e.layer = l
	}
	return e
}

func (p *Pipeline) noteFailure(session, tool string, e *Error) {
	p.streakMu.Lock()
	defer p.streakMu.Unlock()
	k := session + "\x00" + tool
	s := p.streaks[k]
	if s.code == e.Code {
		s.n++
	} else {
		s = streak{code: e.Code, n: 1}
	}
	p.streaks[k] = s
	if s.n >= StreakHint {
		e.Hint = fmt.Sprintf("%s has failed with %s %d times in a row: change approach instead of retrying with small variations (read state with robot_describe or joints_read first)", tool, e.Code, s.n) + hintTail(e.Hint)
	}
	if len(p.streaks) > 10000 { // bounded: forget the oldest generation wholesale
		p.streaks = map[string]streak{k: s}
	}
}

func hintTail(h string) string {
	if h == "" {
		return ""
	}
	return "; " + h
}

func (p *Pipeline) noteSuccess(session, tool string) {
	p.streakMu.Lock()
	delete(p.streaks, session+"\x00"+tool)
	p.streakMu.Unlock()
}

// Digest is the hex SHA-256 of canonical arguments.
func Digest(canon []byte) string {
	s := sha256.Sum256(canon)
	return hex.EncodeToString(s[:])
}
