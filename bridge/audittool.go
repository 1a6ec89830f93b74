package bridge

import (
	"context"

	"github.com/actbridge/actbridge/inflight"
)

// AuditLog is the audit part of the store.
type AuditLog interface {
	AuditList(cursor string, limit int) ([]inflight.AuditRecord, string, error)
}

// AuditListTool pages through the audit log, oldest first.
func AuditListTool(log AuditLog) *Tool {
	return &Tool{
		Name: "audit_list", Group: "audit", Tier: TierRead, Quick: true, Title: "Read the audit log", Idempotent: true,
		Description: Describe("Lists audited tool calls, oldest first: time, role, tool, argument digest (and clipped arguments), outcome, error code, latency and motion id.",
			"you need to know what was called and what happened, e.g. after a restart or to explain a refusal.",
			"motion state (motion_status, motions_list).",
			"none.",
			"{items, next_cursor}; at most `limit` entries (default 20), each under 2.5 KB."),
		Input: Object("", map[string]*Schema{
			"limit":  Integer("Entries per page. Default 20.", 1, 100),
			"cursor": Str("next_cursor from the previous page. Default: the oldest entry.", 512),
		}),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"items":       {Type: "array", Description: "Audit entries."},
			"next_cursor": {Type: "string", Description: "Cursor of the next page; empty at the end."},
		}, Required: []string{"items", "next_cursor"}},
		Errors: []Code{CodeInvalidArgument, CodeUnavailable, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Limit  int    `json:"limit"`
				Cursor string `json:"cursor"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 20
			}
			items, next, err := log.AuditList(in.Cursor, in.Limit)
			if err != nil && in.Cursor == "" {
				return nil, storeUnavailable(err)
			}
			if err != nil {
				e := RuleError(CodeInvalidArgument, "cursor_valid", "cursor", "invalid cursor: "+err.Error())
				return nil, e.WithHint("omit the cursor to start from the oldest entry")
			}
			if items == nil {
				items = []inflight.AuditRecord{}
			}
			return map[string]any{"items": items, "next_cursor": next}, nil
		},
	}
}

// Audit is the call as the audit log keeps it.
func (r CallRecord) Audit() inflight.AuditRecord {
	return inflight.AuditRecord{Time: r.Started, Role: string(r.Role), Via: r.Via, Tool: r.Tool,
		ArgsDigest: r.ArgsDigest, Args: r.Args, Outcome: r.Outcome, Code: string(r.Code),
		LatencyMicros: r.Latency.Microseconds(), MotionID: r.MotionID}
}
