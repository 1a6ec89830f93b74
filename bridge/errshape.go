package bridge

// ErrorSchema is the JSON shape of Error. Every tool's outputSchema admits
// it, because MCP clients validate structuredContent against outputSchema
// even when isError is true and drop what does not fit.
func ErrorSchema() *Schema {
	codes := make([]string, len(AllCodes))
	for i, c := range AllCodes {
		codes[i] = string(c)
	}
	s := func(d string) *Schema { return &Schema{Type: "string", Description: d} }
	return &Schema{
		Type:        "object",
		Description: "The error object every failure returns (isError true).",
		Properties: map[string]*Schema{
			"code":      {Type: "string", Enum: codes, Description: "Enumerated error code."},
			"message":   s("What went wrong, for the planner."),
			"field":     s("The argument at fault (schema errors)."),
			"expected":  s("What the field should be."),
			"actual":    s("What it was."),
			"rule":      s("The semantic rule that was hit."),
			"state":     s("The current state of the resource that refused."),
			"release":   s("When or how that state frees."),
			"retryable": {Type: "boolean", Description: "Whether a retry (after fixing input, or after waiting) can succeed."},
			"hint":      s("What to do instead."),
			"details":   {Description: "Structured evidence, documented per tool (for example limit violations)."},
		},
		Required: []string{"code", "message", "retryable"},
	}
}

// OutputSchemaFor is the outputSchema a tool advertises: an object that is
// either its result shape or the error object.
func OutputSchemaFor(t *Tool) *Schema {
	return &Schema{Type: "object", Open: true, AnyOf: []*Schema{openShape(t.Output), ErrorSchema()}}
}

// openShape copies a result shape with every object open: results declare
// the fields a planner relies on and may carry more.
func openShape(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	c := &Schema{Type: s.Type, Description: s.Description, Enum: s.Enum, Minimum: s.Minimum, Maximum: s.Maximum,
		MinLength: s.MinLength, MaxLength: s.MaxLength, Pattern: s.Pattern, MinItems: s.MinItems, MaxItems: s.MaxItems,
		Required: s.Required, Default: s.Default, Open: true, Items: openShape(s.Items), Additional: openShape(s.Additional)}
	if s.Properties != nil {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = openShape(v)
		}
	}
	for _, a := range s.AnyOf {
		c.AnyOf = append(c.AnyOf, openShape(a))
	}
	return c
}
