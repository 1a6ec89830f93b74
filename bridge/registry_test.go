package bridge

import (
	"strings"
	"testing"
	"time"
)

// A replaced tool stays rate limited (the limit is the pipeline's, keyed
// by name), and Replace refuses a copy that renames it or breaks the
// contract.
func TestReplaceKeepsTheRateLimitAndTheContract(t *testing.T) {
	r := newROSRig(t)
	r.p.Limiter = NewRateLimiter(RateLimits{Tools: map[string]float64{ServiceCallTool: 1}}, time.Now)
	if err := r.p.Registry.Replace(ServiceCallTool, func(t *Tool) { t.Description += " More." }); err != nil {
		t.Fatal(err)
	}
	mustOK(t, r, RolePlanner, ServiceCallTool, `{"service":"/sim/status"}`)
	mustRefuse(t, r, ServiceCallTool, `{"service":"/sim/status"}`, CodeBusy, "rate_limit")
	if err := r.p.Registry.Replace(ServiceCallTool, func(t *Tool) { t.Name = "service_run" }); err == nil {
		t.Fatal("a renamed replacement was taken")
	}
	if err := r.p.Registry.Replace(ServiceCallTool, func(t *Tool) { t.Input = &Schema{Type: "object", Open: true} }); err == nil {
		t.Fatal("an open input schema was taken")
	}
	if err := r.p.Registry.Replace("no_such_tool", func(*Tool) {}); err == nil {
		t.Fatal("replaced a tool that is not registered")
	}
	tl := mustLookup(t, r.p.Registry, ServiceCallTool)
	if !strings.HasSuffix(tl.Description, " More.") {
		t.Fatal("the refused replacements changed the tool")
	}
}

func mustLookup(t *testing.T, reg *Registry, name string) *Tool {
	t.Helper()
	tl, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	return tl
}
