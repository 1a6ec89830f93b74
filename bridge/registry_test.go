package bridge

import (
	"strings"
	"testing"
	"time"
)

// A tool whose shape grows is declared once: setting its Listing changes
// what it shows, never the registered value (the same tool, still rate
// limited), and a shape that breaks the contract is refused and changes
// nothing.
func TestAListingChangesTheShapeNeverTheRegisteredTool(t *testing.T) {
	r := newROSRig(t)
	r.p.Limiter = NewRateLimiter(RateLimits{Tools: map[string]float64{ServiceCallTool: 1}}, time.Now)
	declared := mustLookup(t, r.p.Registry, ServiceCallTool)
	grown := declared.Shape()
	grown.Description += " More."
	if err := declared.Listing.Set(grown); err != nil {
		t.Fatal(err)
	}
	if tl := mustLookup(t, r.p.Registry, ServiceCallTool); tl != declared || !strings.HasSuffix(tl.Shape().Description, " More.") {
		t.Fatal("setting the listing replaced the tool or did not change its shape")
	}
	mustOK(t, r, RolePlanner, ServiceCallTool, `{"service":"/sim/status"}`)
	mustRefuse(t, r, ServiceCallTool, `{"service":"/sim/status"}`, CodeBusy, "rate_limit")
	if err := declared.Listing.Set(Shape{Description: grown.Description, Input: &Schema{Type: "object", Open: true}}); err == nil {
		t.Fatal("an open input schema was taken")
	}
	if err := declared.Listing.Set(Shape{Description: "Calls a service.", Input: grown.Input}); err == nil {
		t.Fatal("a description without its four parts was taken")
	}
	if got := mustLookup(t, r.p.Registry, ServiceCallTool).Shape(); got.Description != grown.Description || got.Input != grown.Input {
		t.Fatal("the refused shapes changed the tool")
	}
}

// A tool declares its shape in one place: a Listing beside a description
// or input schema is refused at registration, and so is a listing that
// another tool already shows.
func TestAToolDeclaresItsShapeOnce(t *testing.T) {
	r := newROSRig(t)
	declared := mustLookup(t, r.p.Registry, ServiceCallTool)
	twice := *declared
	twice.Name, twice.Description = "service_call_again", declared.Shape().Description
	twice.Listing = NewListing(declared.Shape())
	if err := NewRegistry().Add(&twice); err == nil || !strings.Contains(err.Error(), "Listing") {
		t.Fatalf("a Listing beside a description: %v", err)
	}
	shared := *declared
	shared.Name = "service_call_again"
	if err := NewRegistry().Add(&shared); err == nil || !strings.Contains(err.Error(), "listing") {
		t.Fatalf("a listing shown by two tools: %v", err)
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
