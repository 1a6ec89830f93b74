package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/allowlist"
)

// ParamRule allows setting the parameters its pattern matches, with a type
// and, for numbers, a range.
type ParamRule struct {
	Pattern   string   `json:"name"`
	Type      string   `json:"type"` // bool, int, double or string
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
	MaxLength int      `json:"max_length,omitempty"` // strings; 0 means 256
}

// ServiceRule allows calling the services its pattern matches at a tier.
type ServiceRule struct {
	Pattern string        `json:"name"`
	Tier    Tier          `json:"tier"`                   // read, write or irreversible
	Confirm Role          `json:"confirmed_by,omitempty"` // irreversible: who confirms
	Type    string        `json:"type,omitempty"`         // when set, the service must have this type
	Timeout time.Duration `json:"-"`
}

// AccessPolicy is what the guarded ROS tools may reach. Anything a list
// does not match is refused with permission_denied before ROS is asked.
type AccessPolicy struct {
	Topics    allowlist.Globs // sampled by topic_sample, camera_snapshot and conditions
	ParamRead allowlist.Globs
	ParamSet  []ParamRule
	Services  []ServiceRule
}

// ROSTools are the tools over ROSAccess: parameters, services, camera
// frames and the event log.
type ROSTools struct {
	ROS     ROSAccess
	Policy  AccessPolicy
	DataDir string
	// Previewer issues service previews (confirmed by motion_confirm).
	Previewer *Previewer
	Images    *Images

	mu  sync.Mutex      // orders the catalogue's rebuilds and the listings they set
	cat *serviceCatalog // what service_call checks requests against now
	// listing is service_call's description and input schema: when the
	// transport learns service types at run time (ros2: from a node's type
	// description), the catalogue grows and service_call's listing is set
	// to the new types' request fields; the MCP fronts tell their clients.
	listing *Listing
}

// Budgets of the ROS tools.
const (
	maxParamValueBytes    = 2048
	defaultServiceTimeout = 5 * time.Second
	maxSnapshotFiles      = 100
	defaultImageBytes     = 64 << 10
)

var rosNamePattern = `^/[A-Za-z][A-Za-z0-9_/~]*$`

// paramNamePattern also admits dots: a ROS 2 parameter is named
// /<node>/<parameter> with the parameter's dots kept
// (/joint_trajectory_controller/constraints.goal_time).
var paramNamePattern = `^/[A-Za-z][A-Za-z0-9_/~.]*$`

// Tools returns params_get, params_set, services_list, service_call and
// camera_snapshot.
func (rt *ROSTools) Tools() []*Tool {
	return []*Tool{rt.paramsGet(), rt.paramsSet(), rt.servicesList(), rt.serviceCall(), rt.cameraSnapshot()}
}

func (rt *ROSTools) serviceRule(name string) (ServiceRule, bool) { return rt.Policy.serviceRule(name) }

func (p AccessPolicy) serviceRule(name string) (ServiceRule, bool) {
	for _, r := range p.Services {
		if allowlist.Matches(r.Pattern, name) {
			return r, true
		}
	}
	return ServiceRule{}, false
}

// rosUnavailable wraps a ROS failure that is not already a refusal.
func rosUnavailable(err error, what string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return StateError(CodeUnavailable, what+": no answer in time", "retry shortly", what+" failed")
	}
	return StateError(CodeUnavailable, what+": "+clipRunes(err.Error(), 200), "when ROS answers again", what+" failed")
}

// Confirmer extends an actuator policy to services: a service's calls are
// confirmed by the role its rule names (operator unless it says planner).
func (p AccessPolicy) Confirmer(next func(actuator string) Role) func(actuator string) Role {
	return func(a string) Role {
		if name, ok := isServiceActuator(a); ok {
			if rule, ok := p.serviceRule(name); ok {
				return confirmRole(rule)
			}
			return RoleOperator
		}
		return next(a)
	}
}

// Describe is the access policy as robot_describe shows it.
func (rt *ROSTools) Describe() map[string]any {
	svcs := make([]map[string]any, 0, len(rt.Policy.Services))
	for _, r := range rt.Policy.Services {
		s := map[string]any{"name": r.Pattern, "tier": string(r.Tier)}
		if r.Tier == TierIrreversible {
			s["confirmed_by"] = string(confirmRole(r))
		}
		if r.Type != "" {
			s["type"] = r.Type
		}
		svcs = append(svcs, s)
	}
	types := slices.Clone(rt.services().offered)
	set := rt.Policy.ParamSet
	if set == nil {
		set = []ParamRule{}
	}
	return map[string]any{
		"topics":        nonNil(rt.Policy.Topics),
		"params":        map[string]any{"read": nonNil(rt.Policy.ParamRead), "set": set},
		"services":      svcs,
		"service_types": types,
		"events":        map[string]any{"resource": EventsURI, "motion_resource": MotionURIPrefix + "{motion_id}", "tool": "events_read"},
		"patterns":      "* matches within one name segment, ** across segments; anything not listed is refused",
	}
}

func nonNil(g allowlist.Globs) []string {
	if g == nil {
		return []string{}
	}
	return g
}

// notAllowed is the permission_denied refusal for a name outside a list;
// it names the rule, the config key that would allow it, and what is allowed.
func notAllowed(rule, field, what, name, configKey string, allowed []string) *Error {
	e := RuleError(CodePermissionDenied, rule, field,
		fmt.Sprintf("%s %s is not on the allowlist (%s in the robot config); nothing was sent", what, quote(name), configKey))
	e.Retryable = false
	e.Actual = quote(name)
	if len(allowed) == 0 {
		e.Expected = "nothing: this robot config allows no " + what + "s"
	} else {
		e.Expected = "a " + what + " matching one of: " + clipRunes(strings.Join(allowed, ", "), 300)
	}
	return e
}
