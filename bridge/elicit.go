package bridge

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/inflight"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How an operator denied a preview (CallRecord.Denial).
const (
	DenialConsole     = "console"
	DenialElicitation = "elicitation"
)

// How a confirmation reached the bridge (inflight.Motion.Via, and
// confirmed_via in motion_status): the caller's own motion_confirm over
// MCP, the console's Approve button, or the MCP client's user answering
// the bridge's elicitation.
const (
	ViaMCP         = "mcp"
	ViaConsole     = "console"
	ViaElicitation = "elicitation"
)

// Denials is the part of the store that records operator denials.
type Denials interface {
	Denied(previewID string) (inflight.Denial, bool, error)
	DenyPreview(ctx context.Context, previewID, who string) error
}

// Approvals brings an operator's answer to motion_confirm by routes other
// than the console: denials recorded in the store, and MCP elicitation of
// the client's user where the client supports it. A nil *Approvals means
// neither; the console stays the only way to approve.
type Approvals struct {
	// Key signs the request state of an elicitation round, so an answer is
	// only ever applied to the preview it was asked about.
	Key     []byte
	Denials Denials // may be nil
	Now     func() time.Time
	// Elicit allows asking the MCP client's user where policy says operator.
	Elicit bool
}

// approvalPrefix versions the approval token format.
const approvalPrefix = "ap1"

// Approval decisions a token can carry.
const (
	decisionAsk     = "ask"     // the bridge asked; the answer is still to come
	decisionApprove = "approve" // the client's user approved
)

// sign makes "ap1.<decision>.<preview>.<expiry>.<mac>": an HMAC over the
// preview id and the decision, valid until the preview expires.
func (a *Approvals) sign(decision, previewID string, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	return strings.Join([]string{approvalPrefix, decision, previewID, e, a.mac(decision, previewID, e)}, ".")
}

func (a *Approvals) mac(decision, previewID, exp string) string {
	h := hmac.New(sha256.New, a.Key)
	for _, part := range []string{approvalPrefix, decision, previewID, exp} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// errApprovalMismatch: a token that is forged, altered, expired, or names
// another preview or decision.
var errApprovalMismatch = errors.New("approval does not belong to this preview")

// verify checks that tok is an unexpired token of this decision for this preview.
func (a *Approvals) verify(tok, decision, previewID string, now time.Time) error {
	p := strings.Split(tok, ".")
	if len(p) != 5 || p[0] != approvalPrefix || p[1] != decision || p[2] != previewID {
		return errApprovalMismatch
	}
	if !hmac.Equal([]byte(a.mac(p[1], p[2], p[3])), []byte(p[4])) {
		return errApprovalMismatch
	}
	exp, err := strconv.ParseInt(p[3], 10, 64)
	if err != nil || !now.Before(time.Unix(exp, 0)) {
		return errApprovalMismatch
	}
	return nil
}

func (a *Approvals) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// refusal is the error for a preview an operator denied, or nil. A store
// that cannot answer yields nil: the denial moved the preview's expiry, so
// confirm refuses it anyway.
func (a *Approvals) refusal(pv inflight.Preview) *Error {
	if a == nil || a.Denials == nil {
		return nil
	}
	d, ok, err := a.Denials.Denied(pv.ID)
	if err != nil || !ok {
		return nil
	}
	e := RuleError(CodePermissionDenied, "operator_denied", "preview_id",
		fmt.Sprintf("denied by %s at %s: this preview can never run; nothing was sent", d.By, d.At.UTC().Format(time.RFC3339)))
	e.Retryable = false
	return e.WithHint("do not retry it: ask the operator what should change, then preview a different motion")
}

// approve asks the MCP client's user to approve pv, through the call's
// elicitation round (see elicitationRound). It returns false and no error
// when nobody can be asked, so the caller refuses as policy says. The first
// round ends the call with confirmation_required while the client asks; the
// retry carries the answer and the signed request state, which must name pv.
// A recovery is never asked about: the planner's own client would answer,
// and only the operator (console or operator token) may approve one.
// It returns true when the user approved (then the operator confirmed, not
// the planner whose call carried it), and DenialElicitation as the second
// value when the user declined.
func (a *Approvals) approve(ctx context.Context, c *Call, pv inflight.Preview, previewID string) (bool, string, *Error) {
	r, _ := ctx.Value(roundKey{}).(*elicitRound)
	if a == nil || !a.Elicit || r == nil || !r.canAsk || isRecovery(pv) {
		return false, "", nil
	}
	now := a.now()
	reqID := "operator_approval_" + pv.ID
	if !r.retry() {
		r.ask(reqID, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(pv, previewID), RequestedSchema: approvalSchema()},
			a.sign(decisionAsk, pv.ID, pv.ExpiresAt))
		e := RuleError(CodeConfirmationRequired, "operator_confirms", "preview_id",
			"policy: an operator confirms "+pv.Actuator+" motions; the MCP client is asking its user; nothing was sent")
		return false, "", e.WithHint("answer the client's approval request; the call is retried with the answer")
	}
	if err := a.verify(r.state, decisionAsk, pv.ID, now); err != nil {
		e := RuleError(CodePermissionDenied, "approval_bound_to_preview", "preview_id",
			"the approval answer sent with this call was not asked for this preview (or has expired); nothing was sent")
		e.Retryable = false
		return false, "", e.WithHint("call motion_confirm(" + previewID + ") again without an answer to be asked about this preview")
	}
	res, _ := r.response(reqID).(*mcp.ElicitResult)
	switch {
	case res != nil && res.Action == "accept" && res.Content["approve"] == true:
		// The decision is re-signed and checked before use, so only an
		// approval of this very preview can let the confirm through.
		if err := a.verify(a.sign(decisionApprove, pv.ID, pv.ExpiresAt), decisionApprove, pv.ID, now); err != nil {
			return false, "", RuleError(CodePermissionDenied, "approval_bound_to_preview", "preview_id", err.Error()+"; nothing was sent")
		}
		return true, "", nil
	case res != nil && (res.Action == "decline" || res.Action == "accept"):
		who := "the MCP client's user"
		if c.Session != "" {
			who += " (session " + c.Session + ")"
		}
		if a.Denials != nil {
			_ = a.Denials.DenyPreview(ctx, pv.ID, who)
		}
		e := RuleError(CodePermissionDenied, "operator_confirms", "preview_id", who+" declined this preview; it can never run; nothing was sent")
		e.Retryable = false
		return false, DenialElicitation, e.WithHint("ask the user what should change, then preview a different motion")
	}
	e := RuleError(CodePermissionDenied, "operator_confirms", "preview_id", "the approval request was dismissed; nothing was sent")
	return false, "", e.WithHint("call motion_confirm(" + previewID + ") again to be asked once more, or have the operator approve it at the console")
}

// isRecovery says whether pv is a way back from outside a limit (its
// summary says recovery: true, as previews.go writes it).
func isRecovery(pv inflight.Preview) bool {
	var s struct {
		Recovery bool `json:"recovery"`
	}
	_ = json.Unmarshal(pv.Summary, &s)
	return s.Recovery
}

func approvalSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"approve": map[string]any{"type": "boolean", "title": "Run this motion",
				"description": "True runs exactly the motion described; false denies it for good."},
		},
		"required": []string{"approve"},
	}
}

// approvalMessage says what would move, from the stored preview summary.
func approvalMessage(pv inflight.Preview, previewID string) string {
	var s struct {
		DurationS float64  `json:"duration_s"`
		Warnings  []string `json:"warnings"`
		Joints    []struct {
			Joint string  `json:"joint"`
			From  float64 `json:"from"`
			To    float64 `json:"to"`
		} `json:"joints"`
		From any `json:"from"`
		To   any `json:"to"`
	}
	_ = json.Unmarshal(pv.Summary, &s)
	var b strings.Builder
	fmt.Fprintf(&b, "Operator approval needed: %s on the %s, %.1f s (preview %s).", pv.Tool, pv.Actuator, s.DurationS, previewID)
	var moves []string
	for _, j := range s.Joints {
		if j.From != j.To {
			moves = append(moves, fmt.Sprintf("%s %.3f → %.3f", j.Joint, j.From, j.To))
		}
	}
	if len(moves) == 0 && s.To != nil {
		f, _ := json.Marshal(s.From)
		t, _ := json.Marshal(s.To)
		moves = append(moves, fmt.Sprintf("from %s to %s", f, t))
	}
	if len(moves) > 0 {
		b.WriteString(" Moves: " + strings.Join(moves, "; ") + ".")
	}
	if len(s.Warnings) > 0 {
		b.WriteString(" Warnings: " + strings.Join(s.Warnings, "; ") + ".")
	}
	fmt.Fprintf(&b, " Expires %s. Approve to run exactly this motion.", pv.ExpiresAt.UTC().Format(time.RFC3339))
	return clipRunes(b.String(), 2000)
}

// elicitRound is one MCP tools/call as approvals see it: whether the client
// can ask its user, the answers and request state it sent back, and the
// input requests this round adds (then the call returns them, not a result).
type elicitRound struct {
	canAsk    bool
	state     string
	responses mcp.InputResponseMap

	mu      sync.Mutex
	pending *mcp.CallToolResult
}

type roundKey struct{}

// elicitationRound attaches an elicitation round for req to ctx. Batches
// never ask: a retried batch would rerun its other calls.
func elicitationRound(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *elicitRound) {
	r := &elicitRound{}
	if req != nil && req.Params != nil {
		caps := req.ClientCapabilities()
		r.canAsk = req.Params.Name != "tools_batch" && caps != nil && caps.Elicitation != nil &&
			(caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
		r.state, r.responses = req.Params.RequestState, req.Params.InputResponses
	}
	return context.WithValue(ctx, roundKey{}, r), r
}

func (r *elicitRound) retry() bool { return r.state != "" || len(r.responses) > 0 }

func (r *elicitRound) response(id string) mcp.InputResponse { return r.responses[id] }

func (r *elicitRound) ask(id string, p *mcp.ElicitParams, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: state}
	}
	r.pending.InputRequests[id] = p
}

// inputRequired is the result to return instead of the tool's, if this
// round asked the client for input.
func (r *elicitRound) inputRequired() *mcp.CallToolResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending
}
