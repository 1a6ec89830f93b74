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
	return &Schema{Type: "object", Open: true, AnyOf: []*Schema{t.Output, ErrorSchema()}}
}
