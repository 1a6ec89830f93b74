package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
)

// ServiceCallTool is the tool whose irreversible previews motion_confirm
// runs as service calls instead of goals.
const ServiceCallTool = "service_call"

// serviceActuatorPrefix names the "actuator" of a service call in previews
// and motion records: one per service, so two calls of the same
// irreversible service never run at once.
const serviceActuatorPrefix = "service:"

// ServiceActuator is the actuator name of a service's confirmed calls.
func ServiceActuator(service string) string { return serviceActuatorPrefix + service }

// serviceGoal is the exact request a confirmed service preview sends.
type serviceGoal struct {
	Service string `json:"service"`
	Type    string `json:"type"`
	// Definition is the type's definition digest at preview (definitionOf);
	// "" in records of builds before it.
	Definition string         `json:"definition,omitempty"`
	Request    map[string]any `json:"request"`
	TimeoutS   float64        `json:"timeout_s"`
}

// confirmServiceCall runs a confirmed service_call preview. confirm has
// already checked the id, the policy, the store and the e-stop; this checks
// the service is still there with the type previewed, commits the motion
// record (write-ahead, as for goals), then sends the request once. The
// record ends succeeded (the response says success or has no such field),
// aborted (success false), rejected (the request never left) or unknown
// (sent, no answer: it may have run).
func (m *Motions) confirmServiceCall(ctx context.Context, c *Call, pv inflight.Preview, motionID string, res *Result) (map[string]any, error) {
	var g previewGoal
	if err := json.Unmarshal(pv.Goal, &g); err != nil || g.Service == nil {
		return nil, Errf(CodeInternal, "stored service preview unreadable")
	}
	sg := g.Service
	if m.ROS == nil {
		return nil, StateError(CodeUnavailable, "this bridge has no ROS access for services", "never", "service calls are not available; nothing was sent")
	}
	if !m.Robot.Connected() {
		return nil, StateError(CodeUnavailable, "ROS master unreachable", "when the master answers again", "cannot reach the service; nothing was sent")
	}
	if holder, busy := m.ActiveOn(pv.Actuator); busy {
		return nil, StateError(CodeBusy, fmt.Sprintf("%s is running call %s", sg.Service, holder),
			"when that call ends (poll motion_status)", sg.Service+" is busy; nothing was sent")
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	typ, err := m.ROS.ServiceType(pctx, sg.Service)
	cancel()
	err = accessError(err, "service")
	if err != nil {
		return nil, StateError(CodeStalePreview, "service "+sg.Service+" no longer answers: "+clipRunes(err.Error(), 160),
			"preview again once the service is provided", "the preview no longer matches the robot; nothing was sent")
	}
	if typ != sg.Type {
		return nil, StateError(CodeStalePreview, fmt.Sprintf("service %s is now of type %s, previewed as %s", sg.Service, typ, sg.Type),
			"preview again", "the preview no longer matches the robot; nothing was sent")
	}
	if d := definitionNamed(m.ROS, typ); sg.Definition != "" && d != sg.Definition {
		return nil, StateError(CodeStalePreview, fmt.Sprintf("service %s's type %s is now defined otherwise than when previewed (its node announced another type hash)", sg.Service, typ),
			"preview again", "the preview no longer matches the robot; nothing was sent")
	}
	// From before the commit until the dispatch, a motion_cancel that
	// reads the committed record withdraws the call (cancelUnsent).
	m.mu.Lock()
	m.committed[motionID] = true
	m.mu.Unlock()
	if out, publish, err := m.commit(ctx, c, pv, motionID, res); !publish {
		m.mu.Lock()
		delete(m.committed, motionID)
		delete(m.cancelEarly, motionID)
		m.mu.Unlock()
		return out, err
	}
	// The record is durable: only now may the request go out, through
	// the check every goal makes just before it leaves, atomically with
	// robot_stop's latch (LatchStop): a stop that latched since confirm
	// checked the e-stop refuses it, and one that latches during the call
	// ends its wait.
	crashpoint("after_commit")
	cctx, stopCall := context.WithCancel(ctx)
	defer stopCall()
	if canceled, e := m.beginDispatchOf(motionID, pv.Actuator, stopCall, true); e != nil || canceled {
		if canceled {
			return m.endedBeforeSend(motionID, "not sent: motion_cancel arrived before the request left")
		}
		m.transition(context.Background(), motionID, inflight.StateRejected, "not sent: the e-stop latched before the request left")
		return nil, e.WithDetails(map[string]any{"motion_id": motionID, "state": "rejected"})
	}
	timeout := time.Duration(sg.TimeoutS * float64(time.Second))
	resp, cerr := m.ROS.CallService(cctx, sg.Service, sg.Type, sg.Request, timeout)
	d := m.endDispatch(motionID)
	switch {
	case d.stopped && cerr != nil && errors.Is(cerr, actuators.ErrServiceNotSent):
		// The stop ended the wait for a server: nothing left.
		m.transition(context.Background(), motionID, inflight.StateRejected, "not sent: robot_stop latched before the request left: "+clipRunes(cerr.Error(), 200))
		latched, ev, reason := m.EStop()
		if !latched {
			reason = "reset since"
		}
		return nil, StateError(CodeEstopLatched, fmt.Sprintf("e-stop latched (event %d: %s)", ev, reason),
			"an operator calls estop_reset for that event", "e-stop latched while confirming; nothing was sent").
			WithDetails(map[string]any{"motion_id": motionID, "state": "rejected"})
	case d.stopped && cerr != nil:
		cerr = fmt.Errorf("robot_stop latched while waiting for the answer: %w", cerr)
	}
	switch {
	case cerr != nil && errors.Is(cerr, actuators.ErrServiceNotSent):
		m.transition(context.Background(), motionID, inflight.StateRejected, "not sent: "+clipRunes(cerr.Error(), 200))
		e := StateError(CodeUnavailable, "request not sent: "+clipRunes(cerr.Error(), 200),
			"when the service is provided again", "nothing was sent; the preview is used up")
		if errors.Is(cerr, actuators.ErrAmbiguousServer) {
			e = ambiguousError(sg.Service, "request not sent: "+clipRunes(cerr.Error(), 400))
		}
		return nil, e.WithHint("preview again").WithDetails(map[string]any{"motion_id": motionID, "state": "rejected"})
	case cerr != nil:
		m.transition(context.Background(), motionID, inflight.StateSent, "request sent")
		mo, _ := m.transitionWith(context.Background(), motionID, inflight.StateUnknown, "no answer", func(mo *inflight.Motion) {
			mo.ErrorText = "sent, no answer: " + clipRunes(cerr.Error(), 200)
		})
		out := motionResult(mo, false)
		out["note"] = "the request was sent but no answer came: it may have run. Read the robot's state before anything else; it is never resent."
		return out, nil
	}
	crashpoint("after_publish")
	m.transition(context.Background(), motionID, inflight.StateSent, "request sent")
	to, text := inflight.StateSucceeded, ""
	if ok, has := resp["success"].(bool); has && !ok {
		to = inflight.StateAborted
		text, _ = resp["message"].(string)
		text = "service answered success=false: " + clipRunes(CleanText(text), 200)
	}
	// An action called as a service (ErrorRecovery) answers its goal's
	// end status: anything but SUCCEEDED did not do what was asked.
	if st, has := resp["status"].(string); has && strings.Contains(sg.Type, "/action/") && st != "SUCCEEDED" {
		to, text = inflight.StateAborted, "the action ended "+clipRunes(CleanText(st), 40)
	}
	mo, err := m.transitionWith(context.Background(), motionID, to, "answered", func(mo *inflight.Motion) {
		mo.Progress = 1
		if b, err := json.Marshal(map[string]any{"service": sg.Service, "type": sg.Type, "response": resp}); err == nil {
			mo.Result = b
		}
		mo.ErrorText = text
	})
	if err != nil {
		mo, _ = m.Store.Get(motionID)
	}
	return motionResult(mo, false), nil
}

// isServiceActuator reports whether an actuator name is a service's.
func isServiceActuator(a string) (string, bool) { return strings.CutPrefix(a, serviceActuatorPrefix) }
