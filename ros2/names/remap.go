package names

import (
	"fmt"
	"strings"
)

// RuleKind says which names a remapping rule applies to.
type RuleKind int

// Rule kinds, as rcl's remap types.
const (
	RemapName      RuleKind = iota // "from:=to": topics and services
	RemapTopic                     // "rostopic://from:=to"
	RemapService                   // "rosservice://from:=to"
	RemapNode                      // "__node:=name" (or "__name:=")
	RemapNamespace                 // "__ns:=/ns"
)

// Rule is one `--ros-args -r` remapping rule: [node:]from:=to. Node, when
// set, limits it to the node of that name.
type Rule struct {
	Node     string
	Kind     RuleKind
	From, To string // From is empty for RemapNode and RemapNamespace
}

// ParseRule reads a rule as `ros2 run … --ros-args -r RULE` takes it:
// "chatter:=talk", "talker:chatter:=talk", "rostopic://~/a:=b",
// "__node:=other", "arm:__ns:=/left".
func ParseRule(s string) (Rule, error) {
	from, to, ok := strings.Cut(s, ":=")
	if !ok {
		return Rule{}, fmt.Errorf("%w: remap rule %q has no :=", ErrInvalidName, s)
	}
	var r Rule
	// A node prefix ends at the first ':' not part of a scheme's "://".
	if i := strings.IndexByte(from, ':'); i >= 0 && !strings.HasPrefix(from[i:], "://") {
		r.Node, from = from[:i], from[i+1:]
		if err := ValidateNodeName(r.Node); err != nil {
			return Rule{}, fmt.Errorf("remap rule %q: %w", s, err)
		}
	}
	switch {
	case from == "__node" || from == "__name":
		r.Kind, r.To = RemapNode, to
		if err := ValidateNodeName(to); err != nil {
			return Rule{}, fmt.Errorf("remap rule %q: %w", s, err)
		}
		return r, nil
	case from == "__ns":
		r.Kind, r.To = RemapNamespace, to
		if err := ValidateNamespace(to); err != nil {
			return Rule{}, fmt.Errorf("remap rule %q: %w", s, err)
		}
		return r, nil
	case strings.HasPrefix(from, "rostopic://"):
		r.Kind, from = RemapTopic, strings.TrimPrefix(from, "rostopic://")
	case strings.HasPrefix(from, "rosservice://"):
		r.Kind, from = RemapService, strings.TrimPrefix(from, "rosservice://")
	}
	for _, n := range []string{from, to} {
		if err := ValidateName(n); err != nil {
			return Rule{}, fmt.Errorf("remap rule %q: %w", s, err)
		}
	}
	r.From, r.To = from, to
	return r, nil
}

// Remap is a list of rules; the first that matches wins, as in rcl (list
// a node's own rules before the global ones).
type Remap []Rule

// Resolve expands a topic (service = false) or service name of the node
// (node, ns) and applies the first matching rule, as rcl_node_resolve_name
// does: a rule matches when its From, expanded for the same node, equals
// the expanded name, and the result is its To, expanded likewise.
func (m Remap) Resolve(name, node, ns string, service bool) (string, error) {
	fqn, err := Expand(name, node, ns)
	if err != nil {
		return "", err
	}
	for _, r := range m {
		switch {
		case r.Node != "" && r.Node != node:
			continue
		case r.Kind == RemapNode || r.Kind == RemapNamespace:
			continue
		case r.Kind == RemapTopic && service, r.Kind == RemapService && !service:
			continue
		}
		from, err := Expand(r.From, node, ns)
		if err != nil || from != fqn {
			continue // rcl skips a rule that does not expand for this node
		}
		return Expand(r.To, node, ns)
	}
	return fqn, nil
}

// Node returns the node's name and namespace after the first __node and
// the first __ns rule meant for it.
func (m Remap) Node(node, ns string) (string, string) {
	name, space := node, ns
	var named, spaced bool
	for _, r := range m {
		if r.Node != "" && r.Node != node {
			continue
		}
		switch {
		case r.Kind == RemapNode && !named:
			name, named = r.To, true
		case r.Kind == RemapNamespace && !spaced:
			space, spaced = r.To, true
		}
	}
	return name, space
}
