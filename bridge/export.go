package bridge

import (
	"encoding/json"
	"fmt"
)

// Export renders the catalogue in a vendor's tool format: "mcp" (the
// tools/list result), "openai" (function tools, strict where the schema
// allows it) or "anthropic" (tools with input_schema).
func Export(r *Registry, format string) ([]byte, error) {
	switch format {
	case "mcp":
		var tools []any
		for _, t := range r.Tools() {
			tools = append(tools, MCPTool(t))
		}
		return json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
	case "openai":
		var tools []any
		for _, t := range r.Tools() {
			shape := t.Shape()
			params, strict := openAIStrict(shape.Input)
			tools = append(tools, map[string]any{
				"type": "function",
				"function": map[string]any{
					"name": t.Name, "description": shape.Description,
					"parameters": params, "strict": strict,
				},
			})
		}
		return json.MarshalIndent(tools, "", "  ")
	case "anthropic":
		var tools []any
		for _, t := range r.Tools() {
			shape := t.Shape()
			tools = append(tools, map[string]any{"name": t.Name, "description": shape.Description, "input_schema": shape.Input})
		}
		return json.MarshalIndent(tools, "", "  ")
	}
	return nil, fmt.Errorf("unknown format %q (want mcp, openai or anthropic)", format)
}

// openAIStrict converts an input schema to OpenAI's strict mode: every
// property required, optional ones nullable, no defaults. A schema with an
// open map (additionalProperties as a schema) cannot be strict; it is
// exported as is with strict false.
func openAIStrict(s *Schema) (map[string]any, bool) {
	strict := true
	var conv func(s *Schema, optional bool) map[string]any
	conv = func(s *Schema, optional bool) map[string]any {
		m := map[string]any{}
		if s.Description != "" {
			m["description"] = s.Description
		}
		typ := any(s.Type)
		if optional && s.Type != "" {
			typ = []string{s.Type, "null"}
		}
		if s.Type != "" {
			m["type"] = typ
		}
		if len(s.Enum) > 0 {
			e := make([]any, 0, len(s.Enum)+1)
			for _, v := range s.Enum {
				e = append(e, v)
			}
			if optional {
				e = append(e, nil)
			}
			m["enum"] = e
		}
		for k, v := range map[string]*float64{"minimum": s.Minimum, "maximum": s.Maximum} {
			if v != nil {
				m[k] = *v
			}
		}
		for k, v := range map[string]*int{"minItems": s.MinItems, "maxItems": s.MaxItems, "minLength": s.MinLength, "maxLength": s.MaxLength} {
			if v != nil {
				m[k] = *v
			}
		}
		if s.Pattern != "" {
			m["pattern"] = s.Pattern
		}
		if s.Items != nil {
			m["items"] = conv(s.Items, false)
		}
		if len(s.AnyOf) > 0 {
			alts := make([]any, 0, len(s.AnyOf)+1)
			for _, a := range s.AnyOf {
				alts = append(alts, conv(a, false))
			}
			if optional {
				alts = append(alts, map[string]any{"type": "null"})
			}
			m["anyOf"] = alts
		}
		if s.Type == "object" {
			props := map[string]any{}
			req := []string{}
			for _, k := range s.propertyNames() {
				props[k] = conv(s.Properties[k], !contains(s.Required, k))
				req = append(req, k)
			}
			m["properties"] = props
			m["required"] = req
			if s.Additional != nil {
				strict = false
				m["additionalProperties"] = conv(s.Additional, false)
			} else {
				m["additionalProperties"] = false
			}
		}
		return m
	}
	out := conv(s, false)
	return out, strict
}
