package metrics

import (
	"slices"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// Label values outside the known sets collapse into these, so a planner
// inventing tool names or a stray actuator cannot grow the series count.
const (
	// UnregisteredTool is the tool label of calls to names not in the registry.
	UnregisteredTool = "unregistered"
	// NoTier is the tier label of calls to names not in the registry.
	NoTier = "none"
	// Other is the label of any other out-of-set value (actuator, code, role).
	Other = "other"
	// Anonymous is the role label of calls without a role.
	Anonymous = "anonymous"
)

// ConfirmTool is the tool that turns a preview into a motion; every other
// irreversible tool returns a preview.
const ConfirmTool = "motion_confirm"

var (
	outcomes         = []string{"ok", "error", "replay"}
	validationLayers = []string{string(bridge.LayerSchema), string(bridge.LayerSemantic), string(bridge.LayerResource)}
	roles            = []string{string(bridge.RolePlanner), string(bridge.RoleOperator), Anonymous}
	confirmRoles     = []string{string(bridge.RolePlanner), string(bridge.RoleOperator)}
	denials          = []string{bridge.DenialConsole, bridge.DenialElicitation}
	terminalStates   = []inflight.State{inflight.StateSucceeded, inflight.StateAborted, inflight.StatePreempted, inflight.StateRejected, inflight.StateRecalled}
)

// ToolInfo is what the metrics need to know of a registered tool.
type ToolInfo struct {
	Name  string
	Tier  bridge.Tier
	Codes []bridge.Code // the error codes it documents (series start at zero)
}

// ToolsOf lists a registry's tools for Options.Tools or SetTools.
func ToolsOf(r *bridge.Registry) []ToolInfo {
	var out []ToolInfo
	for _, t := range r.Tools() {
		out = append(out, ToolInfo{Name: t.Name, Tier: t.Tier, Codes: t.ErrorCodes()})
	}
	return out
}

// toolTable is the registry as the labels see it; SetTools swaps it whole.
type toolTable struct {
	tier map[string]bridge.Tier
}

func (t *toolTable) label(name string) (tool, tier string) {
	if tr, ok := t.tier[name]; ok {
		return name, string(tr)
	}
	return UnregisteredTool, NoTier
}

// previews reports whether a registered tool answers with a preview.
func (t *toolTable) previews(name string) bool {
	return name != ConfirmTool && t.tier[name] == bridge.TierIrreversible
}

// previewLabel is the tool label of a preview's issuer: a registered
// preview tool, or other.
func (t *toolTable) previewLabel(name string) string {
	if t.previews(name) {
		return name
	}
	return Other
}

// SetTools bounds the tool label to these tools and starts their series at
// zero. Calls before the first SetTools count as "unregistered".
func (m *Metrics) SetTools(tools []ToolInfo) {
	tt := &toolTable{tier: map[string]bridge.Tier{}}
	for _, t := range tools {
		tt.tier[t.Name] = t.Tier
	}
	m.tools.Store(tt)
	for _, t := range tools {
		for _, o := range outcomes {
			m.calls.WithLabelValues(t.Name, string(t.Tier), o)
		}
		for _, c := range t.Codes {
			m.errors.WithLabelValues(t.Name, codeLabel(c))
		}
		m.latency.WithLabelValues(t.Name)
		switch {
		case tt.previews(t.Name):
			m.previewsIssued.WithLabelValues(t.Name)
			for _, r := range confirmRoles {
				m.previewsConfirmed.WithLabelValues(t.Name, r)
			}
			for _, d := range denials {
				m.previewsDenied.WithLabelValues(t.Name, d)
			}
		case t.Name == ConfirmTool || t.Tier == bridge.TierWrite:
			m.replays.WithLabelValues(t.Name)
		}
	}
}

func codeLabel(c bridge.Code) string {
	if slices.Contains(bridge.AllCodes, c) {
		return string(c)
	}
	return Other
}

func roleLabel(r bridge.Role) string {
	switch r {
	case "":
		return Anonymous
	case bridge.RolePlanner, bridge.RoleOperator:
		return string(r)
	}
	return Other
}

func denialLabel(d string) string {
	if slices.Contains(denials, d) {
		return d
	}
	return Other
}

func outcomeLabel(o string) string {
	if slices.Contains(outcomes, o) {
		return o
	}
	return Other
}

// validationLayer is the layer label of a refusal, or "" when the call got
// past validation (execution errors, or no layer recorded).
func validationLayer(l bridge.Layer) string {
	if slices.Contains(validationLayers, string(l)) {
		return string(l)
	}
	return ""
}

func (m *Metrics) actuatorLabel(name string) string {
	if m.known[name] {
		return name
	}
	return Other
}
