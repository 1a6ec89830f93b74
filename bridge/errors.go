package bridge

import (
	"errors"
	"fmt"
)

// Code is one of the enumerated error codes a tool can return; planners
// branch on it, so the set is closed and documented per tool.
type Code string

// The error codes of DESIGN.md. Adding one is a contract change.
const (
	CodeInvalidArgument      Code = "invalid_argument"
	CodeLimitViolation       Code = "limit_violation"
	CodeNotFound             Code = "not_found"
	CodePermissionDenied     Code = "permission_denied"
	CodeConfirmationRequired Code = "confirmation_required"
	CodeStalePreview         Code = "stale_preview"
	CodePreviewExpired       Code = "preview_expired"
	CodeBusy                 Code = "busy"
	CodeEstopLatched         Code = "estop_latched"
	CodeUnavailable          Code = "unavailable"
	// CodeAmbiguousServer: more than one server of the actuator's action
	// (or of the service), or more than one publisher of its state, where
	// one is expected and the config names none; the message names their
	// nodes and participants. Nothing was sent. Not retryable: it holds
	// until one is left or the config names the node (server_node,
	// state_node).
	CodeAmbiguousServer Code = "ambiguous_server"
	CodeInternal        Code = "internal"
)

// AllCodes lists every code in a stable order (schemas, docs, metrics).
var AllCodes = []Code{
	CodeInvalidArgument, CodeLimitViolation, CodeNotFound, CodePermissionDenied,
	CodeConfirmationRequired, CodeStalePreview, CodePreviewExpired, CodeBusy,
	CodeEstopLatched, CodeUnavailable, CodeAmbiguousServer, CodeInternal,
}

// retryableByDefault says whether the same call may succeed later unchanged
// (busy, unavailable) or after the planner fixes its input (invalid_argument).
var retryableByDefault = map[Code]bool{
	CodeInvalidArgument: true, CodeBusy: true, CodeUnavailable: true,
	CodeStalePreview: true, CodePreviewExpired: true, CodeConfirmationRequired: true,
}

// Layer names which validation layer refused a call (metrics, audit).
type Layer string

// Validation layers of the call pipeline.
const (
	LayerNone      Layer = ""
	LayerSchema    Layer = "schema"
	LayerSemantic  Layer = "semantic"
	LayerResource  Layer = "resource"
	LayerExecution Layer = "execution"
)

// Error is the one object every failure is: schema errors fill field,
// expected and actual; semantic errors name the rule; resource errors name
// the current state and the release condition.
type Error struct {
	Code      Code   `json:"code"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
	Expected  string `json:"expected,omitempty"`
	Actual    string `json:"actual,omitempty"`
	Rule      string `json:"rule,omitempty"`
	State     string `json:"state,omitempty"`
	Release   string `json:"release,omitempty"`
	Retryable bool   `json:"retryable"`
	Hint      string `json:"hint,omitempty"`
	// Details carries structured evidence (limit violations, the motion a
	// replay refers to); its shape is documented by the tool.
	Details any `json:"details,omitempty"`

	layer Layer
}

func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Field != "" {
		s += fmt.Sprintf(" (field %s: expected %s, got %s)", e.Field, e.Expected, e.Actual)
	}
	return s
}

// Layer reports which validation layer produced the error, if any.
func (e *Error) Layer() Layer { return e.layer }

// Errf builds an error with the code's default retryability.
func Errf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: retryableByDefault[code]}
}

// FieldError is a layer-1 (schema) refusal naming field, expected and actual.
func FieldError(field, expected, actual, msg string) *Error {
	return &Error{Code: CodeInvalidArgument, Message: msg, Field: field, Expected: expected,
		Actual: actual, Retryable: true, layer: LayerSchema}
}

// RuleError is a layer-2 (semantic) refusal naming the rule that was hit.
func RuleError(code Code, rule, field, msg string) *Error {
	return &Error{Code: code, Message: msg, Rule: rule, Field: field,
		Retryable: retryableByDefault[code], layer: LayerSemantic}
}

// StateError is a layer-3 (resource) refusal naming the current state and
// the condition that releases it.
func StateError(code Code, state, release, msg string) *Error {
	return &Error{Code: code, Message: msg, State: state, Release: release,
		Retryable: retryableByDefault[code], layer: LayerResource}
}

// WithLayer tags an error with the layer that produced it.
func (e *Error) WithLayer(l Layer) *Error { e.layer = l; return e }

// WithHint sets a hint and returns the error.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// WithDetails attaches structured evidence and returns the error.
func (e *Error) WithDetails(d any) *Error { e.Details = d; return e }

// AsError converts any error into the structured object; unknown errors are
// internal and keep only their message.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error(), layer: LayerExecution}
}

// ambiguousError is the refusal of a call to actuator (or service) name
// while more than one server or publisher is found where one is expected;
// why names them.
func ambiguousError(name, why string) *Error {
	e := StateError(CodeAmbiguousServer, why,
		"when one server (or publisher) is left, or the config names the node to use (server_node, state_node)",
		"more than one server for "+name+", nothing was sent: "+why)
	return e.WithHint("stop the stray node, give each robot its own namespace, or name the node in the actuator's config")
}
