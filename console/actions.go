package console

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

const (
	// maxActionBody bounds an action's JSON body.
	maxActionBody = 16 << 10
	// stopTimeout bounds a stop that no longer has a page waiting for it.
	stopTimeout = 10 * time.Second
)

// decodeAction reads a small JSON body into v, refusing anything else.
func decodeAction(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxActionBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) { // an empty body is {}
		writeError(w, bridge.Errf(bridge.CodeInvalidArgument, "request body: %v", err))
		return false
	}
	return true
}

// call runs one tool through the pipeline as the console and answers with
// its result or its error object.
func (c *Console) call(ctx context.Context, w http.ResponseWriter, tool string, args any, role bridge.Role) (any, bool) {
	raw, _ := json.Marshal(args)
	out, e := c.pipeline.Call(ctx, tool, raw, bridge.Invocation{Role: role, Session: Session, Via: bridge.ViaConsole})
	c.invalidate()
	if e != nil {
		writeError(w, e)
		return nil, false
	}
	writeJSON(w, http.StatusOK, out)
	return out, true
}

// serveApprove confirms a preview as the operator: motion_confirm with the
// preview id, so the approval is bound to that exact preview as any
// confirm is (signature, expiry, state digest, single use).
func (c *Console) serveApprove(w http.ResponseWriter, r *http.Request) {
	var in struct {
		PreviewID string `json:"preview_id"`
	}
	if !sameOrigin(w, r) {
		return
	}
	if _, ok := c.authorized(w, r, true); !ok {
		return
	}
	if !decodeAction(w, r, &in) {
		return
	}
	out, ok := c.call(r.Context(), w, "motion_confirm", map[string]any{"preview_id": in.PreviewID}, bridge.RoleOperator)
	if m, isMap := out.(map[string]any); ok && isMap {
		id, _ := m["motion_id"].(string)
		c.remember(id)
	}
}

// serveStop runs robot_stop. It always works: with the planner token, the
// operator token, or no valid token at all, because a stop button that
// asks for credentials is not a stop button. It only stops and latches the
// e-stop; resetting that needs the operator.
func (c *Console) serveStop(w http.ResponseWriter, r *http.Request) {
	c.stop(w, r, "console STOP button")
}

// ServeStop is POST /stop: robot_stop for what is not a planner (a
// hardware button, a teleop pendant, a watchdog script) and the console's
// STOP. It takes the same body ({"reason"?}, Content-Type
// application/json, which a page of another site cannot send) and the
// same rule as the console's STOP: any token or none, named in the reason
// and the audit.
func (c *Console) ServeStop(w http.ResponseWriter, r *http.Request) {
	c.stop(w, r, "POST /stop")
}

// stop runs robot_stop through the pipeline (audit, metrics) for source.
func (c *Console) stop(w http.ResponseWriter, r *http.Request, source string) {
	var in struct {
		Reason string `json:"reason"`
	}
	if !sameOrigin(w, r) || !decodeAction(w, r, &in) {
		return
	}
	who, _, _ := c.identify(r)
	reason := source
	if who.role == "" {
		reason += " (no valid token)"
	}
	if in.Reason != "" {
		reason += ": " + in.Reason
	}
	// A stop completes even if the page goes away mid-request.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), stopTimeout)
	defer cancel()
	c.call(ctx, w, "robot_stop", map[string]any{"reason": clip(reason, 200)}, who.role)
}

// operatorTool answers with tool run as the operator, its arguments the
// body's fields (only those named; the tool's schema checks their values):
// estop_reset for the event the operator saw, robot_description_accept for
// the digest.
func (c *Console) operatorTool(tool string, fields ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(w, r) {
			return
		}
		if _, ok := c.authorized(w, r, true); !ok {
			return
		}
		var in map[string]json.RawMessage
		if !decodeAction(w, r, &in) {
			return
		}
		for k := range in {
			if !slices.Contains(fields, k) {
				writeError(w, bridge.Errf(bridge.CodeInvalidArgument, "request body: unknown field %q", k))
				return
			}
		}
		c.call(r.Context(), w, tool, in, bridge.RoleOperator)
	}
}

// DenyTool is the name the console's denial of a preview is reported under
// to the pipeline's observer (audit log, metrics).
const DenyTool = "preview_deny"

// serveDeny marks a pending preview denied in the store, so no confirm, by
// anyone, can ever run it. The denial is reported to the pipeline's
// observer (the audit log, metrics) as a call of DenyTool.
func (c *Console) serveDeny(w http.ResponseWriter, r *http.Request) {
	var in struct {
		PreviewID string `json:"preview_id"`
	}
	if !sameOrigin(w, r) {
		return
	}
	if _, ok := c.authorized(w, r, true); !ok {
		return
	}
	if !decodeAction(w, r, &in) {
		return
	}
	start := time.Now()
	tool, e := c.deny(r.Context(), in.PreviewID)
	c.invalidate()
	c.observeDeny(in.PreviewID, tool, start, e)
	if e != nil {
		writeError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"preview_id": in.PreviewID, "denied": true})
}

// deny records the denial and returns the tool that issued the preview
// (empty when there is no such preview).
func (c *Console) deny(ctx context.Context, previewID string) (string, *bridge.Error) {
	if c.previews == nil {
		return "", bridge.StateError(bridge.CodeUnavailable, "motion store unavailable", "when the store opens again", "cannot record a denial")
	}
	notIssued := func() *bridge.Error {
		e := bridge.RuleError(bridge.CodeNotFound, "preview_exists", "preview_id", "no pending preview with this id")
		e.Actual = clip(previewID, 200)
		return e
	}
	// The whole id must be the one the preview was issued with.
	key, ok := bridge.PreviewStoreKey(previewID)
	if !ok {
		return "", notIssued()
	}
	pv, err := c.previews.GetPreview(key)
	if errors.Is(err, inflight.ErrNotFound) {
		return "", notIssued()
	}
	if err != nil {
		return "", bridge.StateError(bridge.CodeUnavailable, "motion store: "+err.Error(), "when the store answers again", "cannot record a denial")
	}
	var sum struct {
		PreviewID string `json:"preview_id"`
	}
	if json.Unmarshal(pv.Summary, &sum) != nil || sum.PreviewID != previewID {
		return "", notIssued()
	}
	err = c.previews.DenyPreview(ctx, pv.ID, "the operator (console)")
	switch {
	case err == nil:
		return pv.Tool, nil
	case errors.Is(err, inflight.ErrPreviewUsed):
		e := bridge.StateError(bridge.CodeInvalidArgument, "the preview already started motion "+pv.UsedBy, "never: it ran", "too late to deny: the motion started")
		return pv.Tool, e.WithHint("press STOP to stop it")
	case errors.Is(err, inflight.ErrPreviewExpired):
		return pv.Tool, bridge.Errf(bridge.CodePreviewExpired, "the preview expired; it can no longer run")
	}
	return pv.Tool, bridge.StateError(bridge.CodeUnavailable, "motion store: "+err.Error(), "when the store is writable again", "the denial was not recorded")
}

func (c *Console) observeDeny(previewID, tool string, start time.Time, e *bridge.Error) {
	if c.pipeline.Observer == nil {
		return
	}
	args, _ := json.Marshal(map[string]string{"preview_id": previewID})
	rec := bridge.CallRecord{Tool: DenyTool, Tier: bridge.TierWrite, Role: bridge.RoleOperator, Session: Session,
		Outcome: "ok", Latency: time.Since(start), Args: args, ArgsDigest: bridge.Digest(args), Started: start,
		PreviewOf: tool, Denial: bridge.DenialConsole}
	if e != nil {
		rec.Outcome, rec.Code, rec.Denial = "error", e.Code, ""
	}
	c.pipeline.Observer.ObserveCall(rec)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
