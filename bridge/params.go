package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/actbridge/actbridge/allowlist"
)

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
