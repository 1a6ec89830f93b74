package bridge

import (
	"context"
	"encoding/json"
)

// Tier is a tool's side-effect class; it decides gating and annotations.
type Tier string

// Tiers: read never changes anything; write is reversible; irreversible
// moves hardware and always goes through a preview; stop is never gated.
const (
	TierRead         Tier = "read"
	TierWrite        Tier = "write"
	TierIrreversible Tier = "irreversible"
	TierStop         Tier = "stop"
)

// Role is who is calling: the planner over MCP or the operator.
type Role string

// Roles known to the bridge.
const (
	RolePlanner  Role = "planner"
	RoleOperator Role = "operator"
)

// Tool is one contract the planner sees: stable name, description, strict
// input schema, declared result shape, its error codes, and one Call.
// Tiers, locks, audit and metrics wrap Call in the pipeline; tools do not
// repeat them.
type Tool struct {
	Name        string
	Group       string
	Title       string
	Tier        Tier
	Description string
	Input       *Schema
	// Listing, declared instead of Description and Input, is where a tool
	// whose shape grows at run time reads them (service_call); Shape
	// returns whichever the tool declares.
	Listing *Listing
	Output  *Schema // shape of a successful result (an object)
	Errors  []Code
	// Resource names the actuator a write holds while it runs ("arm",
	// "gripper", "base"); empty for none. ResourceOf overrides it per call.
	Resource   string
	ResourceOf func(c *Call) string
	// Bind reads, once, what both the lock key (ResourceOf) and Call need
	// from the arguments (motion_confirm's preview id); the pipeline runs
	// it right after the schema check and hands its value on as Call.Bound.
	Bind func(c *Call) any
	// Roles that may call; empty means every role.
	Roles []Role
	// Idempotent is true when repeating the call has no further effect.
	Idempotent bool
	// Delegates marks tools that run other tools (their effects are those).
	Delegates bool
	// TouchesRobot marks tools that read or act on the robot (openWorldHint).
	TouchesRobot bool
	// Quick marks reads that answer from memory at once, never waiting.
	// Under load the HTTP front runs only a few of them at a time, so that
	// robot_stop and motion_cancel (never Quick) do not queue behind them.
	Quick bool
	// AsksUser marks tools that may ask the MCP client's user while they
	// run (motion_confirm's elicited approval): they need the MCP session.
	AsksUser bool

	// Semantic is layer 2: rules of the robot model (joint exists, cursor valid).
	Semantic func(ctx context.Context, c *Call) error
	// Ready is layer 3: resources (controller online, e-stop clear).
	Ready func(ctx context.Context, c *Call) error
	// Call executes; its result is marshalled as structured content. A
	// call that previews, starts or reads a motion returns a Result,
	// beside an error too (a refused confirm still names its motion), so
	// the call record can say so.
	Call func(ctx context.Context, c *Call) (any, error)
}

// Result is a tool's value with what the call record (CallRecord) says
// about it beyond the outcome. Tools return it from Call; the pipeline
// answers with Value.
type Result struct {
	Value any
	// MotionID is the motion the call started or refers to.
	MotionID string
	// PreviewOf names the tool whose preview this call issued, confirmed
	// or denied, so metrics count previews by the tool that issued them.
	PreviewOf string
	// Denial says how an operator denied that preview during this call
	// (DenialElicitation); empty when nobody did.
	Denial string
	// Via is ViaElicitation when the client's user approved the preview
	// during this call; empty: the caller's own Via.
	Via string
	// Replay is true when the value answers a repeated call: no new
	// motion was started.
	Replay bool
}

// Call is one invocation as a tool sees it after schema validation.
type Call struct {
	Tool    *Tool
	Args    json.RawMessage
	Values  map[string]any // decoded, schema-checked arguments
	Role    Role
	Session string
	// Progress reports progress to the client when it asked for it; never nil.
	Progress func(done, total float64, message string)
	// Via is how the caller reaches the bridge (ViaConsole; empty: MCP).
	Via string
	// Bound is what the tool's Bind read from the arguments; nil without.
	Bound any
	// Pipeline is the pipeline running the call: tools that delegate
	// (tools_invoke, tools_batch) run their calls through it, so they are
	// declared without one and the pipeline is built after them.
	Pipeline *Pipeline
}

// Decode unmarshals the validated arguments into v.
func (c *Call) Decode(v any) error {
	if len(c.Args) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Args, v); err != nil {
		return FieldError("(arguments)", "arguments matching the schema", clipRunes(err.Error(), 120), "arguments could not be decoded")
	}
	return nil
}

// RateLimited reports whether the bridge's rate limits apply to the tool:
// every tool but the stop tier (robot_stop, motion_cancel: a planner must
// always be able to stop) and tools that only delegate (their inner calls
// are limited one by one).
func (t *Tool) RateLimited() bool {
	return t.Tier != TierStop && !t.Delegates
}

// ErrorCodes are the codes the tool can return: those it declares, and
// busy when rate limits apply to it.
func (t *Tool) ErrorCodes() []Code {
	if !t.RateLimited() || contains(t.Errors, CodeBusy) {
		return t.Errors
	}
	return append(append([]Code{}, t.Errors...), CodeBusy)
}

func (t *Tool) resourceFor(c *Call) string {
	if t.ResourceOf != nil {
		return t.ResourceOf(c)
	}
	return t.Resource
}

func (t *Tool) allows(r Role) bool {
	if len(t.Roles) == 0 {
		return true
	}
	for _, x := range t.Roles {
		if x == r {
			return true
		}
	}
	return false
}
