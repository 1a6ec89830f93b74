package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
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
	// Registry, when set, holds service_call: when the transport learns
	// service types at run time (ros2: from a node's type description),
	// service_call is replaced there with the new types' request fields,
	// and the MCP fronts listing it tell their clients.
	Registry *Registry

	mu  sync.Mutex      // orders the catalogue's rebuilds and their replacements
	cat *serviceCatalog // what service_call was last built from
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

func (rt *ROSTools) paramReadable(name string) bool {
	if _, ok := rt.Policy.ParamRead.Match(name); ok {
		return true
	}
	_, ok := rt.paramRule(name)
	return ok
}

func (rt *ROSTools) paramRule(name string) (ParamRule, bool) {
	for _, r := range rt.Policy.ParamSet {
		if allowlist.Matches(r.Pattern, name) {
			return r, true
		}
	}
	return ParamRule{}, false
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

func (rt *ROSTools) readPatterns() []string {
	out := append([]string{}, rt.Policy.ParamRead...)
	for _, r := range rt.Policy.ParamSet {
		out = append(out, r.Pattern)
	}
	return out
}

func (rt *ROSTools) setPatterns() []string {
	var out []string
	for _, r := range rt.Policy.ParamSet {
		out = append(out, r.Pattern+" ("+r.Type+")")
	}
	return out
}

func (rt *ROSTools) servicePatterns() []string {
	var out []string
	for _, r := range rt.Policy.Services {
		out = append(out, r.Pattern)
	}
	return out
}

// actionService reports whether name is one of an action's hidden services
// (ROS 2 puts them under <action>/_action/).
func actionService(name string) bool {
	return strings.Contains(name+"/", "/_action/")
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

func (rt *ROSTools) paramsGet() *Tool {
	return &Tool{
		Name: "params_get", Group: "params", Tier: TierRead, Title: "Read ROS parameters", TouchesRobot: true, Idempotent: true,
		Description: Describe("Reads allowlisted ROS parameters: one by name, or every allowlisted one under a prefix, sorted by name and paginated. With the operator's token every parameter is readable and listed, each with planner_allowed.",
			"you need a configuration value (controller gains, camera settings, robot limits) before acting or before params_set.",
			"joint values or sensor data (joints_read, topic_sample); parameters outside the allowlist (refused with permission_denied; robot_describe lists the allowlist).",
			"none; asks the ROS master.",
			fmt.Sprintf("{items: [{name, type, value}], total, next_cursor}; values over %d bytes are written to a file (path, read with output_read) and summarised.", maxParamValueBytes)),
		Input: Object("", map[string]*Schema{
			"name":   {Type: "string", Description: "One parameter, e.g. /simrobot/led/brightness (ROS 2: /<node>/<parameter.name>). Default: use prefix.", MaxLength: Int(256), Pattern: paramNamePattern},
			"prefix": {Type: "string", Description: "Every allowlisted parameter whose name starts with this. Default / (all allowlisted).", MaxLength: Int(256), Pattern: `^/[A-Za-z0-9_/~.]*$`},
			"limit":  Integer("Items per page. Default 20.", 1, 100),
			"cursor": Str("next_cursor from the previous page. Default: first page.", 512),
		}),
		Output: pageOut("Parameters: name, type (bool, int, double, string, list, dict, binary), value (operator: also planner_allowed)."),
		Errors: []Code{CodeInvalidArgument, CodeNotFound, CodePermissionDenied, CodeUnavailable, CodeInternal},
		Semantic: func(_ context.Context, c *Call) error {
			name, _ := c.Values["name"].(string)
			if _, hasPrefix := c.Values["prefix"]; name != "" && hasPrefix {
				return RuleError(CodeInvalidArgument, "name_or_prefix", "prefix", "give name or prefix, not both")
			}
			if name != "" && !listed(c.Role, rt.paramReadable(name)) {
				return notAllowed("param_read_allowed", "name", "parameter", name, "access.params.read", rt.readPatterns()).
					WithHint("robot_describe lists the readable parameters; params_get with a prefix lists the allowed ones that exist")
			}
			return nil
		},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Name, Prefix, Cursor string
				Limit                int
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 20
			}
			if in.Name != "" {
				v, err := rt.ROS.GetParam(ctx, in.Name)
				if err != nil {
					return nil, rosUnavailable(accessError(err, "name"), "reading "+in.Name)
				}
				item, ierr := rt.paramItem(c.Role, in.Name, v)
				if ierr != nil {
					return nil, ierr
				}
				return Page[map[string]any]{Items: []map[string]any{item}, Total: 1}, nil
			}
			if in.Prefix == "" {
				in.Prefix = "/"
			}
			all, err := rt.ROS.ParamNames(ctx)
			if err != nil {
				return nil, rosUnavailable(accessError(err, "prefix"), "listing parameters")
			}
			var names []string
			for _, n := range all {
				if strings.HasPrefix(n, in.Prefix) && listed(c.Role, rt.paramReadable(n)) {
					names = append(names, n)
				}
			}
			page, perr := Paginate(names, func(s string) string { return s }, in.Cursor, QueryKey("params", in.Prefix, c.Role), in.Limit)
			if perr != nil {
				return nil, perr
			}
			out := Page[map[string]any]{Items: []map[string]any{}, Total: page.Total, NextCursor: page.NextCursor}
			for _, n := range page.Items {
				v, err := rt.ROS.GetParam(ctx, n)
				if err != nil {
					out.Items = append(out.Items, markReach(map[string]any{"name": n, "error": clipRunes(AsError(accessError(err, "name")).Message, 200)}, c.Role, rt.paramReadable(n)))
					continue
				}
				item, ierr := rt.paramItem(c.Role, n, v)
				if ierr != nil {
					return nil, ierr
				}
				out.Items = append(out.Items, item)
			}
			return out, nil
		},
	}
}

// paramItem renders one value: a namespace (dict) keeps only allowlisted
// leaves for the planner, every leaf for the operator; a large value goes
// to a file.
func (rt *ROSTools) paramItem(role Role, name string, v any) (map[string]any, *Error) {
	if m, ok := v.(map[string]any); ok && role != RoleOperator {
		v = rt.filterDict(strings.TrimSuffix(name, "/"), m)
	}
	item := markReach(map[string]any{"name": name, "type": paramType(v)}, role, rt.paramReadable(name))
	b, err := json.Marshal(v)
	if err != nil {
		return nil, Errf(CodeInternal, "parameter %s not encodable: %v", name, err)
	}
	if len(b) <= maxParamValueBytes {
		item["value"] = v
		return item, nil
	}
	p, serr := Spill(filepath.Join(rt.DataDir, "outputs"), "param", b)
	if serr != nil {
		return nil, Errf(CodeInternal, "could not store a large value: %v", serr)
	}
	sum, _ := Clip(string(b), maxParamValueBytes/4)
	item["truncated"], item["path"], item["summary"], item["bytes"] = true, p, sum, len(b)
	return item, nil
}

func (rt *ROSTools) filterDict(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		full := prefix + "/" + k
		if sub, ok := v.(map[string]any); ok {
			if f := rt.filterDict(full, sub); len(f) > 0 {
				out[k] = f
			}
			continue
		}
		if rt.paramReadable(full) {
			out[k] = v
		}
	}
	return out
}

func paramType(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case int, int32, int64:
		return "int"
	case float64:
		return "double"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case []byte:
		return "binary"
	}
	return fmt.Sprintf("%T", v)
}

func (rt *ROSTools) paramsSet() *Tool {
	return &Tool{
		Name: "params_set", Group: "params", Tier: TierWrite, Title: "Set a ROS parameter", TouchesRobot: true,
		Description: Describe("Sets one allowlisted ROS parameter to a typed, range-checked value and returns the previous value so the change can be undone (call again with `undo`). Give an idempotency_key to make retries safe.",
			"a node reads a setting from the parameter server (camera label, LED brightness) and it must change.",
			"motions (use the motion tools); parameters outside the allowlist or of another type (refused; robot_describe lists each settable parameter with its type and range).",
			"changes the parameter on the ROS master (reversible: set it back with `undo`); nodes may read it at any time.",
			"{name, type, value, previous, previous_set, undo} (under 1 KB); undo holds the arguments that restore the previous value."),
		Input: Object("", map[string]*Schema{
			"name":            {Type: "string", Description: "The parameter, e.g. /simrobot/led/brightness (ROS 2: /<node>/<parameter.name>).", MaxLength: Int(256), Pattern: paramNamePattern},
			"number":          Num("The value, for int and double parameters. Default: none (give exactly one of number, boolean, text).", -1e12, 1e12),
			"boolean":         Bool("The value, for bool parameters. Default: none."),
			"text":            Str("The value, for string parameters. Default: none.", 1024),
			"idempotency_key": {Type: "string", Description: "A key naming this change; a retry with the same key and arguments returns the first result. Default none (then read the parameter before retrying).", Pattern: `^[A-Za-z0-9_.:-]{1,128}$`},
		}, "name"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"name":         {Type: "string", Description: "The parameter."},
			"type":         {Type: "string", Description: "bool, int, double or string."},
			"value":        {Description: "The value now stored."},
			"previous":     {Description: "The value before (null when it was not set)."},
			"previous_set": {Type: "boolean", Description: "False when the parameter did not exist before (then undo is null)."},
			"undo":         {Description: "params_set arguments that restore the previous value, or null."},
		}, Required: []string{"name", "type", "value", "previous_set"}},
		Errors: []Code{CodeInvalidArgument, CodePermissionDenied, CodeUnavailable, CodeInternal},
		Semantic: func(_ context.Context, c *Call) error {
			if _, err := rt.paramValue(c); err != nil {
				return err
			}
			return nil
		},
		Call: func(ctx context.Context, c *Call) (any, error) {
			v, verr := rt.paramValue(c)
			if verr != nil {
				return nil, verr
			}
			name := c.Values["name"].(string)
			rule, _ := rt.paramRule(name)
			prev, gerr := rt.ROS.GetParam(ctx, name)
			gerr = accessError(gerr, "name")
			prevSet := gerr == nil
			var e *Error
			if gerr != nil && !(errors.As(gerr, &e) && e.Code == CodeNotFound) {
				return nil, rosUnavailable(gerr, "reading "+name+" before setting it")
			}
			if err := rt.ROS.SetParam(ctx, name, v); err != nil {
				return nil, rosUnavailable(accessError(err, "name"), "setting "+name)
			}
			out := map[string]any{"name": name, "type": rule.Type, "value": v, "previous": prev, "previous_set": prevSet, "undo": nil}
			if prevSet {
				if key := valueKey(rule.Type); key != "" && paramType(prev) != "list" && paramType(prev) != "dict" {
					out["undo"] = map[string]any{"name": name, key: prev}
				}
			} else {
				out["note"] = "the parameter did not exist before; params_set cannot delete it again"
			}
			return out, nil
		},
	}
}

func valueKey(typ string) string {
	switch typ {
	case "bool":
		return "boolean"
	case "int", "double":
		return "number"
	case "string":
		return "text"
	}
	return ""
}

// paramValue checks a params_set call against the allowlist rule: exactly
// the value field of the rule's type, within its range.
func (rt *ROSTools) paramValue(c *Call) (any, *Error) {
	name, _ := c.Values["name"].(string)
	rule, ok := rt.paramRule(name)
	if !ok {
		return nil, notAllowed("param_set_allowed", "name", "settable parameter", name, "access.params.set", rt.setPatterns()).
			WithHint("robot_describe lists the settable parameters with their types and ranges")
	}
	key := valueKey(rule.Type)
	var given []string
	for _, k := range []string{"number", "boolean", "text"} {
		if _, ok := c.Values[k]; ok {
			given = append(given, k)
		}
	}
	if len(given) != 1 || given[0] != key {
		e := RuleError(CodeInvalidArgument, "param_type", key, fmt.Sprintf("%s is a %s parameter: give its value as `%s` and nothing else", name, rule.Type, key))
		e.Expected, e.Actual = "exactly one of number, boolean, text: "+key, "given: "+strings.Join(given, ", ")
		if len(given) == 0 {
			e.Actual = "no value"
		}
		return nil, e
	}
	v := c.Values[key]
	switch rule.Type {
	case "bool":
		return v, nil
	case "string":
		s := v.(string)
		maxLen := rule.MaxLength
		if maxLen == 0 {
			maxLen = 256
		}
		if n := len([]rune(s)); n > maxLen {
			e := RuleError(CodeInvalidArgument, "param_in_range", "text", fmt.Sprintf("%s takes at most %d characters", name, maxLen))
			e.Expected, e.Actual = fmt.Sprintf("at most %d characters", maxLen), fmt.Sprintf("%d characters", n)
			return nil, e
		}
		return s, nil
	}
	n, _ := v.(json.Number)
	f, err := n.Float64()
	if err != nil {
		return nil, FieldError("number", "a number", string(n), "not a number")
	}
	expected := rangeText(rule)
	if rule.Type == "int" && (f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32) {
		e := RuleError(CodeInvalidArgument, "param_type", "number", name+" is an int parameter")
		e.Expected, e.Actual = "a 32-bit integer "+expected, string(n)
		return nil, e
	}
	if (rule.Min != nil && f < *rule.Min) || (rule.Max != nil && f > *rule.Max) {
		e := RuleError(CodeInvalidArgument, "param_in_range", "number", fmt.Sprintf("%s must be in %s; nothing was set", name, expected))
		e.Expected, e.Actual = rule.Type+" in "+expected, string(n)
		return nil, e
	}
	if rule.Type == "int" {
		return int(f), nil
	}
	return f, nil
}

func rangeText(r ParamRule) string {
	lo, hi := "-inf", "+inf"
	if r.Min != nil {
		lo = fmt.Sprint(*r.Min)
	}
	if r.Max != nil {
		hi = fmt.Sprint(*r.Max)
	}
	return "[" + lo + ", " + hi + "]"
}

func (rt *ROSTools) servicesList() *Tool {
	return &Tool{
		Name: "services_list", Group: "services", Tier: TierRead, Title: "List callable ROS services", TouchesRobot: true, Idempotent: true,
		Description: Describe("Lists the allowlisted ROS services that are running now, with their type, tier and whether the bridge can call that type; sorted by name, paginated.",
			"before service_call, to learn names, types and tiers.",
			"services outside the allowlist (never listed); calling one (service_call).",
			"none; asks the ROS master and probes each listed service for its type (no request to it is sent; over ROS 2 a type outside the distro's set is asked of its node's ~/get_type_description, read-only).",
			"{items: [{name, type, tier, callable, confirmed_by}], total, next_cursor}; at most `limit` (default 20) per page. With the operator's token every service is listed, each with planner_allowed (tier only on allowed ones)."),
		Input: Object("", map[string]*Schema{
			"prefix": {Type: "string", Description: "Only services whose name starts with this. Default all.", MaxLength: Int(256), Pattern: `^/[A-Za-z0-9_/~]*$`},
			"limit":  Integer("Items per page. Default 20.", 1, 100),
			"cursor": Str("next_cursor from the previous page. Default: first page.", 512),
		}),
		Output: pageOut("Services: name, type, tier, callable, confirmed_by (operator: also planner_allowed)."),
		Errors: []Code{CodeInvalidArgument, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Prefix, Cursor string
				Limit          int
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 20
			}
			all, err := rt.ROS.Services(ctx)
			if err != nil {
				return nil, rosUnavailable(accessError(err, ""), "listing services")
			}
			var sel []actuators.ServiceInfo
			for _, s := range all {
				if _, ok := rt.serviceRule(s.Name); listed(c.Role, ok) && strings.HasPrefix(s.Name, in.Prefix) {
					sel = append(sel, s)
				}
			}
			page, perr := Paginate(sel, func(s actuators.ServiceInfo) string { return s.Name }, in.Cursor, QueryKey("services", in.Prefix, c.Role), in.Limit)
			if perr != nil {
				return nil, perr
			}
			out := Page[map[string]any]{Items: []map[string]any{}, Total: page.Total, NextCursor: page.NextCursor}
			for _, s := range page.Items {
				rule, allowed := rt.serviceRule(s.Name)
				item := markReach(map[string]any{"name": s.Name, "providers": s.Providers}, c.Role, allowed)
				if allowed {
					item["tier"] = string(rule.Tier)
				}
				pctx, cancel := context.WithTimeout(ctx, time.Second)
				typ, terr := rt.ROS.ServiceType(pctx, s.Name)
				cancel()
				item["type"] = typ
				if terr != nil {
					item["note"] = "type probe failed: " + clipRunes(AsError(accessError(terr, "service")).Message, 120)
				}
				if allowed && rule.Tier == TierIrreversible {
					item["confirmed_by"] = string(confirmRole(rule))
				}
				out.Items = append(out.Items, item)
			}
			// The probes may have taught the transport new types. A failed
			// probe left the type empty: not callable.
			cat := rt.services()
			for _, item := range out.Items {
				typ, _ := item["type"].(string)
				_, item["callable"] = cat.exact[typ]
				if why, ok := cat.refused[typ]; ok {
					item["note"] = "not callable: " + clipRunes(why, 200)
				}
			}
			return out, nil
		},
	}
}

func confirmRole(r ServiceRule) Role {
	if r.Confirm == RolePlanner {
		return RolePlanner
	}
	return RoleOperator
}

func serviceOut() *Schema {
	return &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
		"service":    {Type: "string", Description: "The service."},
		"type":       {Type: "string", Description: "Its type."},
		"tier":       {Type: "string", Description: "read, write or irreversible."},
		"response":   {Description: "The response fields (read and write tiers)."},
		"elapsed_s":  {Type: "number", Description: "How long the call took."},
		"preview_id": {Type: "string", Description: "Irreversible tier: pass to motion_confirm to send exactly this request. Single use."},
		"expires_at": {Type: "string", Description: "Irreversible tier: when the preview expires."},
	}, Required: []string{"service", "type", "tier"}}
}

// services is the catalogue service_call checks requests against, rebuilt
// when the transport lists a type it did not before (a probe taught it);
// with a Registry, service_call is replaced there by one built from it.
func (rt *ROSTools) services() *serviceCatalog {
	types := rt.ROS.ServiceTypes()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cat != nil && rt.cat.covers(types) {
		return rt.cat
	}
	grown := rt.cat != nil
	rt.cat = newServiceCatalog(types)
	if grown && rt.Registry != nil {
		cat := rt.cat
		// Under mu, so the last catalogue built is the one listed. An error
		// leaves the old tool; every call still gets the exact check.
		_ = rt.Registry.Replace(ServiceCallTool, func(t *Tool) {
			t.Description, t.Input = serviceCallDescription(cat), serviceCallInput(cat)
		})
	}
	return rt.cat
}

func serviceCallDescription(cat *serviceCatalog) string {
	return Describe("Calls an allowlisted ROS service with a request checked against the service's type ("+strings.Join(cat.offered, ", ")+"). The robot config gives each service a tier: read and write services are called at once; an irreversible one returns a preview and is sent only by motion_confirm(preview_id), exactly once. services_list learns the types of the robot's services; this list then grows.",
		"a node offers an action as a service (status query, LED switch, odometry reset, set_parameters) and services_list shows it.",
		"motions (use the motion tools); services outside the allowlist or of other types (refused).",
		"read: none; write: whatever the service changes (reversible by design); irreversible: none until confirmed, then what the service does. A request that timed out may still have run: read state before retrying.",
		"read/write: {service, type, tier, response, elapsed_s}; irreversible: a preview {preview_id, service, type, request, expires_at, confirmed_by} (under 1 KB).")
}

func serviceCallInput(cat *serviceCatalog) *Schema {
	return Object("", map[string]*Schema{
		"service":   {Type: "string", Description: "The service, e.g. /simrobot/status.", MaxLength: Int(256), Pattern: rosNamePattern},
		"request":   cat.request,
		"timeout_s": Num("Longest wait for the response in seconds. Default: the service's timeout in the robot config (5 s if none).", 0.1, 60),
	}, "service")
}

func (rt *ROSTools) serviceCall() *Tool {
	cat := rt.services()
	return &Tool{
		Name: ServiceCallTool, Group: "services", Tier: TierIrreversible, Title: "Call a ROS service", TouchesRobot: true,
		Description: serviceCallDescription(cat),
		Input:       serviceCallInput(cat),
		Output:      serviceOut(),
		Errors:      []Code{CodeInvalidArgument, CodeNotFound, CodePermissionDenied, CodeEstopLatched, CodeUnavailable, CodeInternal},
		Semantic: func(_ context.Context, c *Call) error {
			name, _ := c.Values["service"].(string)
			if actionService(name) {
				e := RuleError(CodePermissionDenied, "not_action_internal", "service",
					"an action's own services (send_goal, cancel_goal, get_result) are never called directly, whatever access.services allows: a goal sent there would run untracked, unpreviewed and could be sent twice; nothing was sent")
				e.Expected, e.Actual, e.Retryable = "a service outside any /_action/ namespace", name, false
				return e.WithHint("move actuators with their preview tools and motion_confirm; robot_stop and motion_cancel cancel goals")
			}
			if _, ok := rt.serviceRule(name); !ok {
				return notAllowed("service_allowed", "service", "service", name, "access.services", rt.servicePatterns()).
					WithHint("services_list shows the services you may call")
			}
			return nil
		},
		Ready: func(_ context.Context, c *Call) error {
			rule, _ := rt.serviceRule(c.Values["service"].(string))
			if rule.Tier == TierIrreversible && rt.Previewer != nil {
				return rt.Previewer.estopReady(context.Background(), c)
			}
			return nil
		},
		Call: rt.callService,
	}
}

func (rt *ROSTools) callService(ctx context.Context, c *Call) (any, error) {
	var in struct {
		Service  string         `json:"service"`
		Request  map[string]any `json:"request"`
		TimeoutS float64        `json:"timeout_s"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	rule, _ := rt.serviceRule(in.Service)
	timeout := rule.Timeout
	if timeout <= 0 {
		timeout = defaultServiceTimeout
	}
	if in.TimeoutS > 0 {
		timeout = time.Duration(in.TimeoutS * float64(time.Second))
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	typ, err := rt.ROS.ServiceType(pctx, in.Service)
	cancel()
	if err != nil {
		return nil, rosUnavailable(accessError(err, "service"), "asking "+in.Service+" for its type")
	}
	if rule.Type != "" && typ != rule.Type {
		e := RuleError(CodePermissionDenied, "service_type_allowed", "service",
			fmt.Sprintf("%s is of type %s, but the robot config allows it only as %s; nothing was sent", in.Service, typ, rule.Type))
		e.Expected, e.Actual, e.Retryable = rule.Type, typ, false
		return nil, e
	}
	cat := rt.services() // the probe may have taught the transport typ
	exact, ok := cat.exact[typ]
	if !ok {
		why := "which this bridge cannot call"
		if r, refused := cat.refused[typ]; refused {
			why = "which this bridge does not offer: " + clipRunes(r, 200)
		}
		e := RuleError(CodeInvalidArgument, "service_type_supported", "service",
			fmt.Sprintf("%s is of type %s, %s; nothing was sent", in.Service, typ, why))
		e.Expected, e.Actual, e.Retryable = "a service of type "+strings.Join(cat.offered, ", "), typ, false
		return nil, e
	}
	reqVals, _ := c.Values["request"].(map[string]any)
	if reqVals == nil {
		reqVals = map[string]any{}
	}
	exact.DropNullOptionals(reqVals) // a union member's anyOf left them
	if verr := exact.Validate(reqVals); verr != nil {
		if verr.Field == "(arguments)" {
			verr.Field = "request"
		} else {
			verr.Field = "request." + verr.Field
		}
		verr.Message += " (the request does not match " + typ + "); nothing was sent"
		return nil, verr
	}
	req := plainJSON(reqVals).(map[string]any)
	if rule.Tier == TierIrreversible {
		return rt.previewService(ctx, c, in.Service, typ, req, timeout)
	}
	start := time.Now()
	resp, err := rt.ROS.CallService(ctx, in.Service, typ, req, timeout)
	if err != nil {
		if errors.Is(err, actuators.ErrAmbiguousServer) {
			return nil, ambiguousError(in.Service, "request not sent: "+clipRunes(err.Error(), 400))
		}
		if errors.Is(err, actuators.ErrServiceNotSent) {
			return nil, StateError(CodeUnavailable, "request not sent: "+clipRunes(err.Error(), 200), "when the service is provided again", "nothing was sent")
		}
		e := StateError(CodeUnavailable, "no answer from "+in.Service+": "+clipRunes(err.Error(), 200),
			"retry once the service answers", "the request was sent but not answered: it may have run")
		e.Retryable = rule.Tier == TierRead
		return nil, e.WithHint("read the state the service changes before calling it again")
	}
	return map[string]any{"service": in.Service, "type": typ, "tier": string(rule.Tier), "response": resp,
		"elapsed_s": round3(time.Since(start).Seconds())}, nil
}

func (rt *ROSTools) previewService(ctx context.Context, c *Call, name, typ string, req map[string]any, timeout time.Duration) (any, error) {
	if rt.Previewer == nil {
		return nil, StateError(CodeUnavailable, "no preview store", "never", "irreversible services cannot be previewed here")
	}
	g := previewGoal{Start: map[string]float64{}, Service: &serviceGoal{Service: name, Type: typ,
		Definition: definitionNamed(rt.ROS, typ), Request: req, TimeoutS: timeout.Seconds()}}
	return rt.Previewer.issue(ctx, c, ServiceActuator(name), g, map[string]any{
		"service": name, "type": typ, "tier": string(TierIrreversible), "request": req, "duration_s": timeout.Seconds(),
		"warnings": []string{"the bridge cannot undo what this service does"},
		"impact":   map[string]any{"services_called": []string{name}, "actuators_touched": []string{}},
	})
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

func (rt *ROSTools) cameraSnapshot() *Tool {
	return &Tool{
		Name: "camera_snapshot", Group: "camera", Tier: TierRead, Title: "Take a camera snapshot", TouchesRobot: true,
		Description: Describe("Takes the next frame of an allowlisted camera topic (sensor_msgs/Image or CompressedImage) and returns it as MCP image content, scaled down and JPEG- or PNG-encoded to fit max_bytes; the full frame is saved as a file.",
			"you need to see the scene: check where objects are, confirm a grasp, look for obstacles.",
			"numbers a topic already gives (topic_sample); video (one frame per call, rate limited).",
			"none on the robot; a short subscription and a file under the data dir.",
			"the image as image content plus {topic, width, height, image: {format, width, height, bytes, quality}, path, stamp}; the image is at most max_bytes (default 64 KB) encoded, before base64."),
		Input: Object("", map[string]*Schema{
			"topic":     {Type: "string", Description: "Camera topic, e.g. /camera/image_raw.", MinLength: Int(1), MaxLength: Int(256), Pattern: rosNamePattern},
			"max_bytes": Integer(fmt.Sprintf("Largest encoded image in bytes. Default %d.", defaultImageBytes), 4096, 1<<20),
			"max_width": Integer("Widest image in pixels (the frame is scaled down, keeping its aspect). Default 640.", 16, 4096),
			"format":    Enum("Encoding: jpeg (photos) or png (sharp edges, larger). Default jpeg.", "jpeg", "png"),
			"timeout_s": Num("Longest wait for a frame in seconds. Default 3.", 0.1, 10),
		}, "topic"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"topic":     {Type: "string", Description: "The topic."},
			"width":     {Type: "integer", Description: "Width of the full frame."},
			"height":    {Type: "integer", Description: "Height of the full frame."},
			"image":     {Type: "object", Description: "The attached image: format, mime, width, height, bytes, quality."},
			"path":      {Type: "string", Description: "The full frame saved under the data dir."},
			"image_ref": {Type: "string", Description: "Id of the image content attached to this result."},
		}, Required: []string{"topic", "width", "height", "image", "path"}},
		Errors:   []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal, CodePermissionDenied},
		Semantic: topicAllowed(rt.Policy.Topics),
		Call:     rt.snapshot,
	}
}

func (rt *ROSTools) snapshot(ctx context.Context, c *Call) (any, error) {
	var in struct {
		Topic    string  `json:"topic"`
		MaxBytes int     `json:"max_bytes"`
		MaxWidth int     `json:"max_width"`
		Format   string  `json:"format"`
		TimeoutS float64 `json:"timeout_s"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	if in.MaxBytes == 0 {
		in.MaxBytes = defaultImageBytes
	}
	if in.MaxWidth == 0 {
		in.MaxWidth = 640
	}
	if in.TimeoutS == 0 {
		in.TimeoutS = 3
	}
	f, err := rt.ROS.Snapshot(ctx, in.Topic, time.Duration(in.TimeoutS*float64(time.Second)))
	if err != nil {
		return nil, rosUnavailable(accessError(err, "topic"), "reading a frame of "+in.Topic)
	}
	path, serr := rt.saveFrame(f)
	if serr != nil {
		return nil, Errf(CodeInternal, "could not save the frame: %v", serr)
	}
	enc, eerr := EncodeToBudget(f.Image, in.Format, in.MaxWidth, in.MaxBytes)
	if eerr != nil {
		e := RuleError(CodeInvalidArgument, "image_fits_budget", "max_bytes", "the frame does not fit: "+eerr.Error())
		e.Expected = "a larger max_bytes"
		return nil, e
	}
	out := map[string]any{"topic": in.Topic, "type": f.Type, "source_encoding": f.Source,
		"width": f.Image.Bounds().Dx(), "height": f.Image.Bounds().Dy(), "path": path, "frame_id": f.FrameID,
		"image": map[string]any{"format": enc.Format, "mime": enc.MIME, "width": enc.Width, "height": enc.Height, "bytes": len(enc.Data), "quality": enc.Quality},
		"note":  "the image is attached to this result as image content; the full frame is at path"}
	if !f.Stamp.IsZero() {
		out["stamp"] = f.Stamp.UTC().Format(time.RFC3339Nano)
	}
	if rt.Images != nil {
		out["image_ref"] = rt.Images.Put(enc.Data, enc.MIME)
	}
	return out, nil
}

// saveFrame writes the full frame under <data>/snapshots: the bytes as
// received for a compressed image, lossless PNG otherwise. Only the newest
// maxSnapshotFiles are kept.
func (rt *ROSTools) saveFrame(f actuators.Frame) (string, error) {
	dir := filepath.Join(rt.DataDir, "snapshots")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	topic := strings.Trim(strings.ReplaceAll(f.Topic, "/", "_"), "_")
	base := time.Now().UTC().Format("20060102T150405.000Z") + "-" + topic + "-" + hex.EncodeToString(b)
	var path string
	if len(f.Raw) > 0 && f.RawExt != "" {
		path = filepath.Join(dir, base+"."+f.RawExt)
		if err := os.WriteFile(path, f.Raw, 0o640); err != nil {
			return "", err
		}
	} else {
		path = filepath.Join(dir, base+".png")
		fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o640)
		if err != nil {
			return "", err
		}
		werr := png.Encode(fh, f.Image)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", werr
		}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > maxSnapshotFiles {
		for _, old := range ents[:len(ents)-maxSnapshotFiles] { // names start with the time
			_ = os.Remove(filepath.Join(dir, old.Name()))
		}
	}
	return path, nil
}

// EventsReadTool reads the event log.
func EventsReadTool(ev *Events) *Tool {
	kinds := make([]string, len(EventKinds))
	copy(kinds, EventKinds)
	return &Tool{
		Name: "events_read", Group: "events", Tier: TierRead, Quick: true, Title: "Read robot events", Idempotent: true,
		Description: Describe("Returns robot events after a cursor: motion state changes, e-stop latched/reset, controllers or the master lost/back, watched topics crossing their configured conditions. The same events are sent as MCP resource updates on "+EventsURI+" to clients that subscribe.",
			"your client cannot subscribe to resources, or you need what happened while you were away; pass the last next_cursor to get only new events.",
			"one motion's state (motion_status waits for it); live sensor values (topic_sample).",
			"none.",
			"{items: [{seq, time, kind, subject, state, detail}], next_cursor, more, missed}; at most `limit` (default 50) events; next_cursor is always set."),
		Input: Object("", map[string]*Schema{
			"cursor": Str("next_cursor of the previous read. Default: from the oldest event kept (the last 1000).", 512),
			"limit":  Integer("Most events to return. Default 50.", 1, 200),
			"kinds":  Array("Only these kinds. Default all.", Enum("An event kind.", kinds...), len(kinds)),
		}),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"items":       {Type: "array", Description: "Events in order."},
			"next_cursor": {Type: "string", Description: "Where the next read resumes."},
			"more":        {Type: "boolean", Description: "True when more events are waiting (read again now)."},
			"missed":      {Type: "integer", Description: "Events dropped from the log before you read them."},
		}, Required: []string{"items", "next_cursor", "more"}},
		Errors: []Code{CodeInvalidArgument, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Cursor string   `json:"cursor"`
				Limit  int      `json:"limit"`
				Kinds  []string `json:"kinds"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			p, err := ev.Read(in.Cursor, in.Limit, in.Kinds)
			if err != nil {
				return nil, err
			}
			return p, nil
		},
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
