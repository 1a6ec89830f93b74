package bridge

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"unicode"
)

// synonyms map words planners use to words the tools use, so "open the
// hand" finds the gripper group.
var synonyms = map[string][]string{
	"hand": {"gripper"}, "claw": {"gripper"}, "grasp": {"gripper"}, "grab": {"gripper"},
	"pick": {"gripper"}, "release": {"gripper"}, "open": {"gripper"}, "close": {"gripper"},
	"fingers": {"gripper"}, "finger": {"gripper"},
	"drive": {"base"}, "wheels": {"base"}, "go": {"base", "navigate"}, "navigation": {"base"},
	"move": {"arm", "base", "gripper"}, "joint": {"arm", "joints"}, "pose": {"arm", "base"},
	"halt": {"stop"}, "emergency": {"stop", "estop"}, "abort": {"cancel", "stop"},
	"estop": {"stop", "estop"}, "freeze": {"stop"},
	"approve": {"confirm"}, "execute": {"confirm"}, "run": {"confirm"},
	"state": {"status", "describe", "read"}, "position": {"joints", "read"},
	"history": {"audit", "motions"}, "log": {"audit"}, "speed": {"speed", "scale"},
	"slow": {"speed"}, "fast": {"speed"}, "topic": {"topics"}, "sensor": {"topics"},
	"picture": {"camera", "snapshot"}, "image": {"camera", "snapshot"}, "photo": {"camera", "snapshot"},
	"look": {"camera"}, "see": {"camera"}, "param": {"params"}, "parameter": {"params"}, "setting": {"params"},
	"config": {"params"}, "service": {"services"}, "call": {"service"}, "happened": {"events"},
	"notification": {"events"}, "event": {"events"},
}

// GroupMatch is one group found by tools_search, with full schemas so the
// planner can call its tools through tools_invoke.
type GroupMatch struct {
	Group string      `json:"group"`
	Score int         `json:"score"`
	Tools []ToolEntry `json:"tools"`
}

// ToolEntry is a tool's contract as discovery shows it.
type ToolEntry struct {
	Name         string          `json:"name"`
	Tier         Tier            `json:"tier"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

// stopWords carry no meaning for search.
var stopWords = map[string]bool{"the": true, "a": true, "an": true, "to": true, "of": true, "and": true, "or": true,
	"in": true, "on": true, "at": true, "is": true, "it": true, "for": true, "with": true, "my": true, "me": true,
	"please": true, "can": true, "you": true, "i": true, "want": true, "this": true, "that": true, "by": true, "be": true}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Search scores groups by query words (and their synonyms) found in tool
// names, descriptions and parameter names; best first, ties by name.
func (r *Registry) Search(query string, limit int) []GroupMatch {
	var terms []string
	for _, w := range words(query) {
		if len(w) < 2 || stopWords[w] {
			continue
		}
		terms = append(terms, w)
		terms = append(terms, synonyms[w]...)
	}
	tools := r.Tools()
	scores := map[string]int{}
	for _, t := range tools {
		name := words(t.Name)
		shape := t.Shape()
		desc := words(shape.Description)
		var params []string
		for k := range shape.Input.Properties {
			params = append(params, words(k)...)
		}
		for _, q := range terms {
			for _, w := range name {
				if w == q || strings.TrimSuffix(w, "s") == strings.TrimSuffix(q, "s") {
					scores[t.Group] += 5
				}
			}
			for _, w := range params {
				if w == q {
					scores[t.Group] += 2
				}
			}
			for _, w := range desc {
				if w == q && !stopWords[w] {
					scores[t.Group]++
				}
			}
		}
	}
	var out []GroupMatch
	for g, s := range scores {
		if s > 0 {
			out = append(out, GroupMatch{Group: g, Score: s})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Group < out[j].Group
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		for _, t := range tools {
			if t.Group == out[i].Group {
				out[i].Tools = append(out[i].Tools, entryFor(t))
			}
		}
	}
	return out
}

func entryFor(t *Tool) ToolEntry {
	shape := t.Shape()
	in, _ := json.Marshal(shape.Input)
	outS, _ := json.Marshal(OutputSchemaFor(t))
	return ToolEntry{Name: t.Name, Tier: t.Tier, Description: shape.Description, InputSchema: in, OutputSchema: outS}
}

// DiscoveryTools are the core tools every mode lists: search, invoke, batch.
func DiscoveryTools() []*Tool {
	search := &Tool{
		Name: "tools_search", Group: "tools", Tier: TierRead, Quick: true, Title: "Find tool groups",
		Description: Describe("Finds tool groups by words in their names, descriptions and parameters (with synonyms: \"open the hand\" finds the gripper) and returns each group's full schemas.",
			"the tool you need is not in tools/list (lazy discovery mode), or you are unsure which tool fits.",
			"calling a tool: call it directly, or through tools_invoke when it was found here.",
			"none; reads the catalogue only.",
			"up to `limit` groups (default 3), best first, each with its tools' input and output schemas; a few KB per group."),
		Input: Object("", map[string]*Schema{
			"query": {Type: "string", Description: "Words describing what you want to do, e.g. \"open the hand\".", MinLength: Int(1), MaxLength: Int(200)},
			"limit": {Type: "integer", Description: "Most groups to return. Default 3.", Minimum: Float(1), Maximum: Float(10)},
		}, "query"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"groups": {Type: "array", Description: "Matching groups, best first."},
			"total":  {Type: "integer", Description: "How many groups matched."},
		}, Required: []string{"groups", "total"}},
		Errors: []Code{CodeInvalidArgument, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Query string `json:"query"`
				Limit int    `json:"limit"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Limit == 0 {
				in.Limit = 3
			}
			all := c.Pipeline.Registry.Search(in.Query, 0)
			total := len(all)
			if len(all) > in.Limit {
				all = all[:in.Limit]
			}
			if all == nil {
				all = []GroupMatch{}
			}
			return map[string]any{"groups": all, "total": total}, nil
		},
	}
	invoke := &Tool{
		Name: "tools_invoke", Group: "tools", Tier: TierRead, Delegates: true, Title: "Invoke a discovered tool",
		Description: Describe("Calls any tool by name with its arguments, through the same validation, tiers, locks and audit as a direct call.",
			"you found a tool with tools_search that is not in tools/list.",
			"tools already in tools/list (call them directly); running several calls (use tools_batch).",
			"exactly those of the invoked tool (it may preview or stop motions; it never bypasses confirmation).",
			"the invoked tool's own result or error object, unchanged."),
		Input: Object("", map[string]*Schema{
			"name":      {Type: "string", Description: "The tool's name, as tools_search returned it.", Pattern: `^[a-zA-Z0-9_-]{1,64}$`},
			"arguments": {Type: "object", Description: "The tool's arguments; checked against that tool's input schema.", Additional: &Schema{Description: "An argument of the invoked tool."}},
		}, "name", "arguments"),
		Output: &Schema{Type: "object", Open: true, Description: "The invoked tool's result."},
		Errors: AllCodes,
		Call: func(ctx context.Context, c *Call) (any, error) {
			name, _ := c.Values["name"].(string)
			if name == "tools_invoke" || name == "tools_batch" {
				return nil, RuleError(CodeInvalidArgument, "no_nested_invoke", "name", name+" cannot be invoked through tools_invoke")
			}
			args, _ := json.Marshal(c.Values["arguments"])
			out, err := c.Pipeline.Call(ctx, name, args, Invocation{Role: c.Role, Session: c.Session, Progress: c.Progress})
			if err != nil {
				return nil, err
			}
			return out, nil
		},
	}
	batch := &Tool{
		Name: "tools_batch", Group: "tools", Tier: TierRead, Delegates: true, Title: "Run several calls",
		Description: Describe("Runs up to 16 tool calls in one request: reads concurrently, writes one at a time per actuator, results in the original order with each call's own result or error.",
			"you need several independent reads (joints, topics, status) at once, or several previews.",
			"calls that depend on each other's results (make them one after another); tools_batch or tools_invoke inside a batch.",
			"those of the calls inside; a failure of one call does not undo or stop the others.",
			"items[] in call order (ok, result or error), succeeded and failed counts, all_ok; results beyond 64 KB in total are dropped with truncated: true."),
		Input: Object("", map[string]*Schema{
			"calls": {Type: "array", Description: "The calls to run, each {tool, arguments}.", MinItems: Int(1), MaxItems: Int(MaxBatchCalls),
				Items: Object("One call.", map[string]*Schema{
					"tool":      {Type: "string", Description: "Tool name.", Pattern: `^[a-zA-Z0-9_-]{1,64}$`},
					"arguments": {Type: "object", Description: "The tool's arguments.", Additional: &Schema{Description: "An argument of the tool."}},
				}, "tool", "arguments")},
		}, "calls"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"items":     {Type: "array", Description: "One entry per call, in call order."},
			"succeeded": {Type: "integer", Description: "Calls that succeeded."},
			"failed":    {Type: "integer", Description: "Calls that failed."},
			"all_ok":    {Type: "boolean", Description: "True only if every call succeeded."},
		}, Required: []string{"items", "succeeded", "failed", "all_ok"}},
		Errors: []Code{CodeInvalidArgument, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Calls []batchCall `json:"calls"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			return c.Pipeline.RunBatch(ctx, in.Calls, Invocation{Role: c.Role, Session: c.Session}), nil
		},
	}
	return []*Tool{search, invoke, batch}
}
