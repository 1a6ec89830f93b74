package bridge

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/actbridge/actbridge/inflight"
)

func motionOut() *Schema {
	return &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
		"motion_id":     {Type: "string", Description: "The motion's id (also its ROS GoalID)."},
		"state":         Enum("Motion state.", "confirmed", "dispatching", "sent", "active", "succeeded", "aborted", "preempted", "rejected", "recalled", "unknown"),
		"actuator":      {Type: "string", Description: "arm, gripper or base."},
		"progress":      {Type: "number", Description: "0..1 when known."},
		"terminal":      {Type: "boolean", Description: "True when the motion is over."},
		"replay":        {Type: "boolean", Description: "True when this answers a repeated confirm: no new motion was started."},
		"result":        {Description: "The action's result when terminal."},
		"error":         {Type: "string", Description: "Why it failed, when it did."},
		"confirmed_by":  {Type: "string", Description: "Who confirmed it: planner or operator."},
		"confirmed_via": Enum("How the confirmation came: the caller's own motion_confirm (mcp), the console, or the client's user asked by elicitation.", ViaMCP, ViaConsole, ViaElicitation),
	}, Required: []string{"motion_id", "state"}}
}

// MotionTools are the tools that act on motions and the robot as a whole.
func MotionTools(m *Motions, estop EStopLatch, describe func() any, scale *SpeedScale) []*Tool {
	return []*Tool{motionConfirmTool(m), motionStatusTool(m), motionCancelTool(m), robotStopTool(m, estop),
		estopResetTool(estop), speedScaleSetTool(scale), motionsListTool(m), robotDescribeTool(describe)}
}

// motion_confirm runs exactly what a preview showed (Motions.confirm).
func motionConfirmTool(m *Motions) *Tool {
	return &Tool{
		Name: "motion_confirm", Group: "motion", Tier: TierIrreversible, Title: "Run a previewed motion", TouchesRobot: true, Idempotent: true, AsksUser: true,
		Bind: func(c *Call) any { return bindPreviewID(fmt.Sprint(c.Values["preview_id"])) },
		ResourceOf: func(c *Call) string {
			// The id's actuator, before its MAC is checked: a forged one
			// only picks a lock, then confirm refuses it.
			if b, ok := c.Bound.(boundPreviewID); ok && b.err == nil {
				return b.id.Actuator
			}
			return ""
		},
		Description: Describe("Runs exactly the motion a preview showed, after checking the robot has not moved since and that nothing blocks it. Confirming the same preview again returns the motion it started (replay: true); it never runs twice. Where policy says an operator confirms, the operator approves at the console, or your client's user is asked (MCP elicitation) when the client supports it.",
			"you have shown or checked a preview and want it executed.",
			"anything not previewed (call a preview tool first); changing the motion (preview again).",
			"moves the robot (irreversible); the motion is recorded durably before its goal is sent.",
			"{motion_id, state, actuator, progress, terminal, replay} (under 500 bytes); then motion_status(motion_id, wait_s, until: \"end\") returns its outcome."),
		Input: Object("", map[string]*Schema{
			"preview_id": {Type: "string", Description: "The preview_id a preview tool returned, unchanged.", MinLength: Int(1), MaxLength: Int(maxPreviewID)},
		}, "preview_id"),
		Output: motionOut(),
		Errors: []Code{CodeInvalidArgument, CodePermissionDenied, CodeStalePreview, CodePreviewExpired, CodeBusy, CodeEstopLatched, CodeUnavailable, CodeAmbiguousServer, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			b, ok := c.Bound.(boundPreviewID)
			if !ok {
				return nil, Errf(CodeInternal, "preview_id not bound: motion_confirm runs only through the pipeline")
			}
			var res Result
			out, err := m.confirm(ctx, c, b, &res)
			res.Value = out
			return res, err
		},
	}
}

// motion_status answers a motion's state, waiting for a change or its end.
func motionStatusTool(m *Motions) *Tool {
	return &Tool{
		Name: "motion_status", Group: "motion", Tier: TierRead, Title: "Motion status", TouchesRobot: true, Idempotent: true,
		Description: Describe("Returns a motion's state, progress and result, waiting up to wait_s for it to change (or, with until \"end\", to end) if it is still running.",
			"after motion_confirm, to follow a motion to its end; after a timeout or restart, to learn what happened.",
			"starting or stopping motions.",
			"none.",
			"{motion_id, state, progress, terminal, result, error} (under 1 KB). States: sent, active, then succeeded, aborted, preempted, rejected, recalled, or unknown (read state and preview again)."),
		Input: Object("", map[string]*Schema{
			"motion_id": {Type: "string", Description: "The motion_id motion_confirm returned.", Pattern: `^[0-9a-f-]{36}$`},
			"wait_s":    Num("Wait up to this many seconds for a change. Default 0 (answer now).", 0, 30),
			"until": Enum(`What ends a wait: "change" (default), the next state change; "end", only the motion ending (a terminal state, or unknown), so one call follows a motion through sent and active to its outcome.`,
				"change", "end"),
		}, "motion_id"),
		Output: motionOut(),
		Errors: []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				MotionID string  `json:"motion_id"`
				WaitS    float64 `json:"wait_s"`
				Until    string  `json:"until"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			changed, unwatch := m.watch(in.MotionID) // before reading: a change after the read wakes the wait
			defer func() { unwatch() }()
			mo, err := m.Store.Get(in.MotionID)
			if err != nil {
				return Result{MotionID: in.MotionID}, notFoundMotion(in.MotionID)
			}
			deadline := time.Now().Add(time.Duration(in.WaitS * float64(time.Second)))
			start, lastProgress := mo.State, -1.0
			// While waiting, progress from action feedback goes to the client
			// as MCP progress notifications (when it sent a progress token).
			waiting := func() bool {
				if inflight.IsTerminal(mo.State) || mo.State == inflight.StateUnknown && in.Until == "end" {
					return false
				}
				return (in.Until == "end" || mo.State == start) && time.Now().Before(deadline) && ctx.Err() == nil
			}
			for waiting() {
				if mo.Progress != lastProgress {
					lastProgress = mo.Progress
					c.Progress(mo.Progress, 1, mo.Tool+" "+string(mo.State))
				}
				await(ctx, changed, time.Until(deadline))
				unwatch()
				changed, unwatch = m.watch(in.MotionID)
				if mo, err = m.Store.Get(in.MotionID); err != nil {
					return Result{MotionID: in.MotionID}, storeUnavailable(err)
				}
			}
			if mo.Progress != lastProgress && lastProgress >= 0 {
				c.Progress(mo.Progress, 1, mo.Tool+" "+string(mo.State))
			}
			return Result{Value: motionResult(mo, false), MotionID: in.MotionID}, nil
		},
	}
}

// motion_cancel stops one motion; never gated, never behind a lock.
func motionCancelTool(m *Motions) *Tool {
	return &Tool{
		Name: "motion_cancel", Group: "motion", Tier: TierStop, Title: "Cancel a motion", TouchesRobot: true, Idempotent: true,
		Description: Describe("Cancels one running motion: the actuator stops where it is (the arm holds position). Never waits behind a lock; cancelling a finished motion is harmless and returns its state.",
			"a motion should stop but the rest of the robot may keep working.",
			"stopping everything at once (robot_stop).",
			"stops that actuator's motion (reversible: preview a new one).",
			"{motion_id, state, cancel_sent} (under 500 bytes)."),
		Input: Object("", map[string]*Schema{
			"motion_id": {Type: "string", Description: "The motion to cancel.", Pattern: `^[0-9a-f-]{36}$`},
		}, "motion_id"),
		Output: motionOut(),
		Errors: []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			id := fmt.Sprint(c.Values["motion_id"])
			out, err := m.cancelMotion(ctx, id)
			return Result{Value: out, MotionID: id}, err
		},
	}
}

// robot_stop stops everything and latches the e-stop: in memory at once,
// the cancels out without waiting for the disk, the answer once the latch
// is written (a crash before that restarts latched: StartRun).
func robotStopTool(m *Motions, estop EStopLatch) *Tool {
	return &Tool{
		Name: "robot_stop", Group: "robot", Tier: TierStop, Title: "Stop the robot", TouchesRobot: true, Idempotent: true,
		Description: Describe("Stops everything now: cancels every goal on every actuator, sends a zero velocity to the base, and latches the e-stop so no new motion is accepted until an operator resets it. Never gated, never queued behind a lock; calling it again is harmless.",
			"anything looks wrong, a person is in the way, or you are unsure what the robot is doing.",
			"ending one motion normally (motion_cancel leaves the rest running and latches nothing).",
			"stops all motion and latches the e-stop, which survives a bridge restart (an operator must call estop_reset).",
			"{stopped, estop_event, cancelled_motions, durable} (under 1 KB)."),
		Input: Object("", map[string]*Schema{
			"reason": Str("Why, for the operator and the audit log. Default empty.", 200),
		}),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"stopped":           {Type: "boolean", Description: "True when the stop commands were sent."},
			"estop_event":       {Type: "integer", Description: "The e-stop event number an operator names to reset it."},
			"cancelled_motions": {Type: "array", Items: &Schema{Type: "string"}, Description: "The motions in flight when the stop latched, sorted: each is cancelled (follow it with motion_status)."},
			"durable":           {Type: "boolean", Description: "True when the latch was written to the store before this answer, so it survives a bridge restart; false: see durable_error."},
		}, Required: []string{"stopped", "estop_event", "cancelled_motions", "durable"}},
		Errors: []Code{CodeInvalidArgument, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			reason, _ := c.Values["reason"].(string)
			ev, inFlight := m.LatchStop(func() uint64 { return estop.Latch("robot_stop by " + string(c.Role) + ": " + reason) })
			// A stop must finish even if the caller hangs up mid-call.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			// The latch already refuses new motions in memory; its write
			// (fsync) follows the cancels, not the other way round (or
			// starts stopPersistWait after them when the transport has not
			// returned): a crash between the two leaves the run unended,
			// and the next start latches (DurableEStop.StartRun). Where
			// that rule does not hold (PersistFirst), the cancels wait for
			// the write, at most stopPersistWait. The answer waits for the
			// write (or sctx). A disk that refuses it fails nothing: the
			// latch holds in memory and the answer says durable false.
			persisted := make(chan error, 1) // the writer never blocks on it
			var once sync.Once
			persist := func() {
				once.Do(func() {
					go func() {
						crashHold("after_stop_sent") // a crash test's write waits for the crash
						// Its own deadline: a write started as a panic left
						// the handler still lands.
						wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
						defer wcancel()
						persisted <- estop.Persist(wctx)
					}()
				})
			}
			var derr error
			done, first := false, estop.PersistFirst()
			if !first { // a transport that hangs does not hold the write back either
				t := time.AfterFunc(stopPersistWait, persist)
				defer func() { t.Stop(); persist() }() // started even if StopAll panics
			} else {
				persist()
				t := time.NewTimer(stopPersistWait)
				select {
				case derr = <-persisted:
					done = true
				case <-t.C:
				}
				t.Stop()
			}
			err := m.Robot.StopAll(sctx)
			crashpoint("after_stop_sent")
			if !first {
				// The fsync keeps the P of the goroutine making it while it
				// lasts; the transport's goroutines that StopAll readied
				// wait in that P's run queue (traced: 3 ms under load). So
				// they usually get their turn first, and the write after.
				runtime.Gosched()
				persist()
			}
			if !done {
				select {
				case derr = <-persisted:
				case <-sctx.Done():
					select {
					case derr = <-persisted: // a write done as StopAll ran out sctx counts
					default:
						derr = fmt.Errorf("%w: the store did not answer in time", ErrEStopNotDurable)
					}
				}
			}
			if derr == nil {
				crashpoint("after_estop_commit")
			}
			out := map[string]any{"stopped": err == nil, "estop_event": ev, "cancelled_motions": inFlight, "durable": derr == nil}
			if err != nil {
				out["error"] = err.Error()
			}
			if derr != nil {
				out["durable_error"] = derr.Error() + "; the e-stop holds in memory (a shutdown in order writes it too): call robot_stop again once the store is writable"
			}
			return out, nil
		},
	}
}

// estop_reset releases the latch, naming the event (operator only).
func estopResetTool(estop EStopLatch) *Tool {
	return &Tool{
		Name: "estop_reset", Group: "estop", Tier: TierWrite, Title: "Reset the e-stop", Roles: []Role{RoleOperator}, TouchesRobot: true,
		Description: Describe("Releases a latched e-stop, naming the event being reset: a newer stop is never released by an older approval. Operator only.",
			"the operator has checked the robot is safe after a robot_stop.",
			"the planner (refused with permission_denied); resuming motions (preview them again).",
			"allows new motions; moves nothing.",
			"{latched, event} (under 200 bytes)."),
		Input: Object("", map[string]*Schema{
			"event": Integer("The estop_event to reset (from robot_stop or robot_describe).", 1, 1<<53),
		}, "event"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"latched": {Type: "boolean", Description: "False after a successful reset."},
			"event":   {Type: "integer", Description: "The current e-stop event."},
		}, Required: []string{"latched"}},
		Errors: []Code{CodeInvalidArgument, CodePermissionDenied, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Event uint64 `json:"event"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if err := estop.Reset(ctx, in.Event); err != nil {
				if errors.Is(err, ErrEStopNotDurable) {
					return nil, StateError(CodeUnavailable, "e-stop still latched: "+err.Error(),
						"when the store is writable again (disk space, permissions, lock)",
						"the release was not written to the store, so it was not applied: a restart would latch again")
				}
				e := RuleError(CodeInvalidArgument, "estop_event_current", "event", err.Error())
				_, ev, _ := estop.State()
				e.Expected, e.Actual = fmt.Sprintf("the current event %d", ev), fmt.Sprint(in.Event)
				return nil, e
			}
			latched, ev, _ := estop.State()
			return map[string]any{"latched": latched, "event": ev}, nil
		},
	}
}

// speed_scale_set caps the speed of later previews (reversible).
func speedScaleSetTool(scale *SpeedScale) *Tool {
	return &Tool{
		Name: "speed_scale_set", Group: "speed", Tier: TierWrite, Title: "Set the speed scale",
		Description: Describe("Caps the speed of future previews to a fraction of the joint velocity and acceleration limits. Reversible: set it back any time. Give an idempotency_key to make retries safe.",
			"motions should be slower (people nearby, delicate task) or back to normal.",
			"changing a motion already previewed or running (it keeps its timing).",
			"changes the default duration of later previews; moves nothing.",
			"{scale, previous} (under 100 bytes)."),
		Input: Object("", map[string]*Schema{
			"scale":           Num("Fraction of the limits, 0.05 to 1.", 0.05, 1),
			"idempotency_key": {Type: "string", Description: "A key naming this change (e.g. the task step); a retry with the same key and arguments returns the first result. Default none (then read robot_describe before retrying).", Pattern: `^[A-Za-z0-9_.:-]{1,128}$`},
		}, "scale"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"scale":    {Type: "number", Description: "The new scale."},
			"previous": {Type: "number", Description: "The scale before, to undo."},
		}, Required: []string{"scale", "previous"}},
		Errors: []Code{CodeInvalidArgument, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Scale float64 `json:"scale"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			prev := scale.Set(in.Scale)
			return map[string]any{"scale": in.Scale, "previous": prev}, nil
		},
	}
}

// motions_list pages through the recorded motions.
func motionsListTool(m *Motions) *Tool {
	return &Tool{
		Name: "motions_list", Group: "motion", Tier: TierRead, Quick: true, Title: "List motions", Idempotent: true,
		Description: Describe("Lists recorded motions, newest last, optionally filtered by state or actuator, paginated.",
			"you lost track of motion ids (after a restart or a long gap), or need to know what is still running.",
			"one motion you know (motion_status is cheaper).",
			"none.",
			"{items: [{motion_id, state, actuator, tool, progress, ...}], total, next_cursor}; at most `limit` (default 20) per page."),
		Input: Object("", map[string]*Schema{
			"state":    Enum("Only motions in this state. Default any.", "dispatching", "sent", "active", "succeeded", "aborted", "preempted", "rejected", "recalled", "unknown"),
			"actuator": Str("Only motions of this actuator. Default any.", 32),
			"limit":    Integer("Items per page. Default 20.", 1, 100),
			"cursor":   Str("next_cursor from the previous page. Default first page.", 512),
		}),
		Output: pageOut("Motions, in creation order."),
		Errors: []Code{CodeInvalidArgument, CodeUnavailable, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				State, Actuator, Cursor string
				Limit                   int
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 20
			}
			f := inflight.Filter{Actuator: in.Actuator}
			if in.State != "" {
				f.States = []inflight.State{inflight.State(in.State)}
			}
			items, total, next, err := m.Store.List(f, in.Cursor, in.Limit)
			if err != nil {
				e := RuleError(CodeInvalidArgument, "cursor_valid", "cursor", "invalid cursor: "+err.Error())
				return nil, e.WithHint("omit the cursor to start from the first page")
			}
			out := make([]map[string]any, len(items))
			for i, mo := range items {
				out[i] = motionResult(mo, false)
			}
			return map[string]any{"items": out, "total": total, "next_cursor": next}, nil
		},
	}
}

// robot_describe describes the robot (RobotInfo).
func robotDescribeTool(describe func() any) *Tool {
	return &Tool{
		Name: "robot_describe", Group: "robot", Tier: TierRead, Quick: true, Title: "Describe the robot", TouchesRobot: true, Idempotent: true,
		Description: Describe("Describes the robot: actuators and their connectivity, every joint with its limits, the tiers and confirmation policy, the speed scale and the e-stop state.",
			"at the start of a task, after an error that mentions state, or to learn joint names and limits.",
			"live joint values (joints_read); motion progress (motion_status).",
			"none.",
			"{actuators, joints: [{name, type, lower, upper, max_velocity, max_acceleration, max_effort}], arms, grippers, bases (each a list; arm, gripper, base too when there is one of that kind), policy, speed_scale, recovery_speed_fraction (the share of each limit a recovery from outside a limit may use), estop, master_reachable} (about 2-3 KB)."),
		Input:  Object("", map[string]*Schema{}),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{"joints": {Type: "array", Description: "Every joint with name and limits."}, "actuators": {Type: "array", Description: "Connectivity per actuator."}}, Required: []string{"joints", "actuators"}},
		Errors: []Code{CodeInvalidArgument, CodeInternal},
		Call:   func(context.Context, *Call) (any, error) { return describe(), nil },
	}
}

// cancelMotion is motion_cancel: a finished motion is answered as it is;
// a committed one that has not left is withdrawn in the bridge; the
// transport's cancel goes out in every other case.
func (m *Motions) cancelMotion(ctx context.Context, id string) (map[string]any, error) {
	mo, err := m.Store.Get(id)
	if err != nil {
		return nil, notFoundMotion(id)
	}
	out := motionResult(mo, false)
	out["cancel_sent"] = false
	if inflight.IsTerminal(mo.State) {
		return out, nil
	}
	if m.cancelUnsent(id) {
		// The goal has not left: it never will, or is cancelled the
		// moment its send returns. The transport's cancel below also
		// stops a send still waiting for its server.
		out["cancel_sent"] = false
		out["note"] = "the goal had not left the bridge: it is withdrawn, or cancelled as soon as its send returns; poll motion_status"
	}
	cctx, cancelCtx := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancelCtx()
	if err := m.Robot.Cancel(cctx, mo.Actuator, id); err != nil {
		if out["note"] != nil { // honoured in the bridge whatever the transport says
			return out, nil
		}
		return nil, StateError(CodeUnavailable, "cancel not sent: "+err.Error(), "retry; robot_stop always works", "cancel failed")
	}
	out["cancel_sent"] = out["note"] == nil
	return out, nil
}

func notFoundMotion(id string) *Error {
	e := RuleError(CodeNotFound, "motion_exists", "motion_id", "no motion with this id")
	e.Actual = quote(id)
	e.Expected = "a motion_id returned by motion_confirm or motions_list"
	return e
}
