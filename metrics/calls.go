package metrics

import (
	"github.com/actbridge/actbridge/bridge"
)

// ObserveCall counts one finished call (bridge.Observer); it never blocks.
// Previews, confirmations, denials and replays are derived from the record,
// counted under the tool that issued the preview (rec.PreviewOf).
func (m *Metrics) ObserveCall(rec bridge.CallRecord) {
	tt := m.tools.Load()
	tool, tier := tt.label(rec.Tool)
	if rec.Denial != "" {
		m.previewsDenied.WithLabelValues(tt.previewLabel(rec.PreviewOf), denialLabel(rec.Denial)).Inc()
	}
	m.calls.WithLabelValues(tool, tier, outcomeLabel(rec.Outcome)).Inc()
	m.latency.WithLabelValues(tool).Observe(rec.Latency.Seconds())
	switch rec.Outcome {
	case "error":
		m.errors.WithLabelValues(tool, codeLabel(rec.Code)).Inc()
		if l := validationLayer(rec.Layer); l != "" {
			m.validation.WithLabelValues(l, roleLabel(rec.Role)).Inc()
		}
		if tool == ConfirmTool {
			switch rec.Code {
			case bridge.CodePreviewExpired:
				m.previewsExpired.Inc()
			case bridge.CodeStalePreview:
				m.previewsStale.Inc()
			}
		}
	case "replay":
		m.replays.WithLabelValues(tool).Inc()
	case "ok":
		// A call that issued a preview names its tool (a service_call of a
		// read or write service issues none); a motion_confirm of a motion
		// already confirmed is a replay.
		switch {
		case tool == ConfirmTool:
			if m.firstConfirm(rec.MotionID) {
				m.previewsConfirmed.WithLabelValues(tt.previewLabel(rec.PreviewOf), roleLabel(confirmer(rec))).Inc()
			} else {
				m.replays.WithLabelValues(tool).Inc()
			}
		case rec.PreviewOf != "" && rec.Denial == "":
			m.previewsIssued.WithLabelValues(tt.previewLabel(rec.PreviewOf)).Inc()
		}
	}
}

// confirmer is the role that confirmed: an approval by elicitation is the
// operator's, though the planner's call carried it.
func confirmer(rec bridge.CallRecord) bridge.Role {
	if rec.Via == bridge.ViaElicitation {
		return bridge.RoleOperator
	}
	return rec.Role
}

// firstConfirm reports whether motion id is confirmed for the first time
// this process has seen. Motions.Confirm answers a repeated confirm "ok"
// with replay: true in the result, which the CallRecord does not carry.
func (m *Metrics) firstConfirm(id string) bool {
	if id == "" {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.confirmed.add(id)
}
