package bridge

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry holds every tool by name, in a stable order (group, then name),
// so tools/list is the same on every connection. It is safe for concurrent
// use. A registered tool never changes; a tool with a Listing shows the
// shape it was last set to, and the fronts that list tools are told
// (Watch).
type Registry struct {
	mu     sync.RWMutex
	tools  map[string]*Tool
	sorted []*Tool // never changed in place: a new slice on every change
	core   map[string]bool
	// watchers are read without mu: Listing.Set tells them while it holds
	// the listing's lock, which Add takes under mu.
	watchers atomic.Pointer[[]func(*Tool)]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*Tool{}, core: map[string]bool{}}
}

// Add registers a tool after checking its contract; a broken contract is a
// programming error reported at start-up, never at call time.
func (r *Registry) Add(t *Tool) error {
	if err := CheckContract(t); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %s registered twice", t.Name)
	}
	if t.Listing != nil {
		if err := t.Listing.bind(t, func() { r.changed(t) }); err != nil {
			return err
		}
	}
	r.tools[t.Name] = t
	sorted := append(append(make([]*Tool, 0, len(r.sorted)+1), r.sorted...), t)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return a.Name < b.Name
	})
	r.sorted = sorted
	return nil
}

// Watch registers w to be told of every tool whose Listing changes from
// now on, and returns the tools as they are at that moment: a front lists
// those and then follows w (reading Tool.Shape). w must not call
// Listing.Set.
func (r *Registry) Watch(w func(*Tool)) []*Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ws []func(*Tool)
	if old := r.watchers.Load(); old != nil {
		ws = append(ws, *old...)
	}
	ws = append(ws, w)
	r.watchers.Store(&ws)
	return r.sorted
}

// changed tells every watcher that t's listing changed.
func (r *Registry) changed(t *Tool) {
	if ws := r.watchers.Load(); ws != nil {
		for _, w := range *ws {
			w(t)
		}
	}
}

// MustAdd is Add for start-up code with fixed tools.
func (r *Registry) MustAdd(tools ...*Tool) {
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}
}

// SetCore marks the tools listed in lazy discovery mode.
func (r *Registry) SetCore(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		r.core[n] = true
	}
}

// IsCore reports whether a tool is listed in lazy mode.
func (r *Registry) IsCore(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.core[name]
}

// Lookup returns a tool by name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Tools returns every tool in stable order. The slice is the caller's to
// read; it does not follow later changes.
func (r *Registry) Tools() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sorted
}

// Names returns every tool name in stable order.
func (r *Registry) Names() []string {
	tools := r.Tools()
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// Groups returns the group names in stable order.
func (r *Registry) Groups() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range r.Tools() {
		if !seen[t.Group] {
			seen[t.Group] = true
			out = append(out, t.Group)
		}
	}
	return out
}

// NotFound is the error for a tool name the registry does not hold, with
// the closest names as a hint (planners hallucinate names).
func (r *Registry) NotFound(name string) *Error {
	e := RuleError(CodeNotFound, "tool_exists", "name", fmt.Sprintf("no tool named %s", quote(name)))
	e.Expected = "a tool name from tools/list or tools_search"
	e.Actual = quote(name)
	if near := r.nearest(name, 3); len(near) > 0 {
		e.Hint = "did you mean: " + strings.Join(near, ", ")
	}
	return e
}

func (r *Registry) nearest(name string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, t := range r.Tools() {
		cs = append(cs, cand{t.Name, editDistance(strings.ToLower(name), t.Name)})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for _, c := range cs {
		if len(out) == n || c.d > len(c.name)/2+2 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

func editDistance(a, b string) int {
	if len(a) > 64 {
		a = a[:64]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Description markers every tool description must carry, so the planner
// always learns when to use a tool, when not, its effects and result size.
const (
	markUse     = "Use when:"
	markNot     = "Not for:"
	markEffects = "Side effects:"
	markResult  = "Result:"
)

// Describe builds a description with the four required parts.
func Describe(summary, use, notFor, effects, result string) string {
	return summary + "\n" + markUse + " " + use + "\n" + markNot + " " + notFor + "\n" +
		markEffects + " " + effects + "\n" + markResult + " " + result
}

// CheckContract reports the first rule a tool breaks: name pattern and group
// prefix, description parts, strict input schema (closed, described, bounded,
// at most 7 properties), an object output shape, and documented error codes.
func CheckContract(t *Tool) error {
	if !nameRE.MatchString(t.Name) {
		return fmt.Errorf("tool %q: name must match %s", t.Name, nameRE)
	}
	first := strings.SplitN(t.Name, "_", 2)[0]
	if t.Group == "" || (first != t.Group && first+"s" != t.Group && first != t.Group+"s") {
		return fmt.Errorf("tool %s: name must start with its group %q", t.Name, t.Group)
	}
	if !strings.Contains(t.Name, "_") {
		return fmt.Errorf("tool %s: name must be verb_object or group_verb_object", t.Name)
	}
	switch t.Tier {
	case TierRead, TierWrite, TierIrreversible, TierStop:
	default:
		return fmt.Errorf("tool %s: unknown tier %q", t.Name, t.Tier)
	}
	if t.Listing != nil && (t.Description != "" || t.Input != nil) {
		return fmt.Errorf("tool %s: declares a Listing and a description or input schema beside it", t.Name)
	}
	if err := checkShape(t, t.Shape()); err != nil {
		return err
	}
	if t.Output == nil || t.Output.Type != "object" {
		return fmt.Errorf("tool %s: output schema must be an object", t.Name)
	}
	if len(t.Errors) == 0 {
		return fmt.Errorf("tool %s: no error codes declared", t.Name)
	}
	for _, c := range t.Errors {
		if !contains(AllCodes, c) {
			return fmt.Errorf("tool %s: undocumented error code %q", t.Name, c)
		}
	}
	for _, c := range []Code{CodeInvalidArgument, CodeInternal} {
		if !contains(t.Errors, c) {
			return fmt.Errorf("tool %s: every tool can return %s; declare it", t.Name, c)
		}
	}
	if t.Call == nil {
		return fmt.Errorf("tool %s: no Call", t.Name)
	}
	return nil
}

// checkShape reports the first rule a description and input schema of t
// break: the four description parts, and a strict input schema.
func checkShape(t *Tool, s Shape) error {
	for _, m := range []string{markUse, markNot, markEffects, markResult} {
		if !strings.Contains(s.Description, m) {
			return fmt.Errorf("tool %s: description lacks %q", t.Name, m)
		}
	}
	in := s.Input
	if in == nil || in.Type != "object" || in.Additional != nil || in.Open {
		return fmt.Errorf("tool %s: input schema must be a closed object", t.Name)
	}
	if len(in.Properties) > 7 {
		return fmt.Errorf("tool %s: %d input properties, at most 7", t.Name, len(in.Properties))
	}
	for _, r := range in.Required {
		if _, ok := in.Properties[r]; !ok {
			return fmt.Errorf("tool %s: required %q is not a property", t.Name, r)
		}
	}
	if err := checkInputSchema(t, "", in, true); err != nil {
		return err
	}
	for name, p := range in.Properties {
		if !contains(in.Required, name) && p.Default == nil && !strings.Contains(strings.ToLower(p.Description), "default") {
			return fmt.Errorf("tool %s: optional %q must state its default", t.Name, name)
		}
	}
	return nil
}

func checkInputSchema(t *Tool, path string, s *Schema, root bool) error {
	where := t.Name + ": " + fieldName(path)
	if !root && strings.TrimSpace(s.Description) == "" {
		return fmt.Errorf("%s: property has no description", where)
	}
	switch s.Type {
	case "object":
		if s.Open {
			return fmt.Errorf("%s: input objects must be closed", where)
		}
		for k, p := range s.Properties {
			if err := checkInputSchema(t, join(path, k), p, false); err != nil {
				return err
			}
		}
		if s.Additional != nil {
			if err := checkInputSchema(t, join(path, "*"), s.Additional, false); err != nil {
				return err
			}
		}
	case "array":
		if s.MaxItems == nil || s.Items == nil {
			return fmt.Errorf("%s: arrays need items and maxItems", where)
		}
		if err := checkInputSchema(t, path+"[]", s.Items, false); err != nil {
			return err
		}
	case "string":
		if len(s.Enum) == 0 && s.MaxLength == nil && s.Pattern == "" {
			return fmt.Errorf("%s: strings need an enum, a pattern or maxLength", where)
		}
	case "number", "integer":
		if s.Minimum == nil || s.Maximum == nil {
			return fmt.Errorf("%s: numbers need minimum and maximum", where)
		}
	case "boolean":
	case "":
		if len(s.AnyOf) > 0 { // a union: every alternative is strict itself
			for i, a := range s.AnyOf {
				if err := checkInputSchema(t, fmt.Sprintf("%s|%d", path, i), a, false); err != nil {
					return err
				}
			}
			return nil
		}
		// Any value: only for tools that pass arguments on to another tool,
		// whose own schema then checks them.
		if !t.Delegates {
			return fmt.Errorf("%s: untyped values are only allowed for delegating tools", where)
		}
	default:
		return fmt.Errorf("%s: type %q outside the strict subset", where, s.Type)
	}
	return nil
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
