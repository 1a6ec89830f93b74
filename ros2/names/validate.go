package names

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by this package; each is wrapped with the name and the
// position of the first offending byte.
var (
	// ErrInvalidName reports a topic, service or action name rcl or rmw refuses.
	ErrInvalidName = errors.New("names: invalid name")
	// ErrInvalidNodeName reports a node name rmw refuses.
	ErrInvalidNodeName = errors.New("names: invalid node name")
	// ErrInvalidNamespace reports a node namespace rmw refuses.
	ErrInvalidNamespace = errors.New("names: invalid namespace")
	// ErrUnknownSubstitution reports a {…} substitution other than {node}, {ns} and {namespace}.
	ErrUnknownSubstitution = errors.New("names: unknown substitution")
	// ErrInvalidType reports a ROS type name that is not pkg/msg|srv|action/Type.
	ErrInvalidType = errors.New("names: invalid type name")
	// ErrNotROS reports a DDS topic or type name that no ROS 2 entity maps to.
	ErrNotROS = errors.New("names: not a ROS 2 DDS name")
)

// Length limits of rmw (validate_full_topic_name.h and friends): DDS
// allows 256 bytes and rmw keeps 8 for the "rt"/"rq"/"rr" prefixes and
// the Request/Reply suffixes.
const (
	MaxNameLength      = 255 - 8
	MaxNamespaceLength = MaxNameLength - 2
	MaxNodeNameLength  = 255
)

func invalid(err error, name string, at int, why string) error {
	return fmt.Errorf("%w %q at %d: %s", err, name, at, why)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// ValidateNodeName checks a node name as rmw_validate_node_name does:
// letters, digits and _, not starting with a digit, at most 255 bytes.
func ValidateNodeName(name string) error {
	if name == "" {
		return invalid(ErrInvalidNodeName, name, 0, "empty")
	}
	for i := 0; i < len(name); i++ {
		if !isAlnum(name[i]) && name[i] != '_' {
			return invalid(ErrInvalidNodeName, name, i, "only letters, digits and _ are allowed")
		}
	}
	if isDigit(name[0]) {
		return invalid(ErrInvalidNodeName, name, 0, "starts with a digit")
	}
	if len(name) > MaxNodeNameLength {
		return invalid(ErrInvalidNodeName, name, MaxNodeNameLength-1, "too long")
	}
	return nil
}

// ValidateNamespace checks a node namespace as rmw_validate_namespace
// does: "/" or a fully qualified name, at most MaxNamespaceLength bytes.
func ValidateNamespace(ns string) error {
	if ns == "/" {
		return nil
	}
	if err := validateFull(ErrInvalidNamespace, ns); err != nil {
		return err
	}
	if len(ns) > MaxNamespaceLength {
		return invalid(ErrInvalidNamespace, ns, MaxNamespaceLength-1, "too long")
	}
	return nil
}

// ValidateFullName checks a fully qualified topic, service or action name
// as rmw_validate_full_topic_name does: absolute, tokens of letters,
// digits and _ that do not start with a digit, separated by single
// slashes, no trailing slash, at most MaxNameLength bytes.
func ValidateFullName(name string) error {
	if err := validateFull(ErrInvalidName, name); err != nil {
		return err
	}
	if len(name) > MaxNameLength {
		return invalid(ErrInvalidName, name, MaxNameLength-1, "too long")
	}
	return nil
}

func validateFull(kind error, name string) error {
	switch {
	case name == "":
		return invalid(kind, name, 0, "empty")
	case name[0] != '/':
		return invalid(kind, name, 0, "not absolute")
	case name[len(name)-1] == '/':
		return invalid(kind, name, len(name)-1, "ends with /")
	}
	for i := 0; i < len(name); i++ {
		if !isAlnum(name[i]) && name[i] != '_' && name[i] != '/' {
			return invalid(kind, name, i, "only letters, digits, _ and / are allowed")
		}
	}
	for i := 0; i < len(name)-1; i++ {
		if name[i] != '/' {
			continue
		}
		if name[i+1] == '/' {
			return invalid(kind, name, i+1, "repeated /")
		}
		if isDigit(name[i+1]) {
			return invalid(kind, name, i+1, "a token starts with a digit")
		}
	}
	return nil
}

// ValidateName checks a topic, service or action name as a node is given
// it, before expansion (rcl_validate_topic_name): relative, absolute or
// private ("~" or "~/…"), with {…} substitutions. It is stricter than
// rcl in one case: "~a", which rcl lets through, is refused.
func ValidateName(name string) error {
	switch {
	case name == "":
		return invalid(ErrInvalidName, name, 0, "empty")
	case isDigit(name[0]):
		return invalid(ErrInvalidName, name, 0, "starts with a digit")
	case name[len(name)-1] == '/':
		return invalid(ErrInvalidName, name, len(name)-1, "ends with /")
	}
	open := -1
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isAlnum(c):
			if isDigit(c) && open >= 0 && i == open+1 {
				return invalid(ErrInvalidName, name, i, "a substitution starts with a digit")
			}
		case c == '_':
		case c == '/' && open < 0:
		case c == '~':
			if i != 0 {
				return invalid(ErrInvalidName, name, i, "~ is allowed only at the start")
			}
		case c == '{' && open < 0:
			open = i
		case c == '}':
			if open < 0 {
				return invalid(ErrInvalidName, name, i, "unmatched }")
			}
			open = -1
		case open >= 0:
			return invalid(ErrInvalidName, name, i, "only letters, digits and _ are allowed in a substitution")
		default:
			return invalid(ErrInvalidName, name, i, "only letters, digits, _, /, ~, { and } are allowed")
		}
	}
	if open >= 0 {
		return invalid(ErrInvalidName, name, open, "unmatched {")
	}
	// rcl's own loop misses "~a" (it skips the last byte); we refuse it.
	if len(name) > 1 && name[0] == '~' && name[1] != '/' {
		return invalid(ErrInvalidName, name, 1, "~ is not followed by /")
	}
	for i := 0; i < len(name)-1; i++ {
		if name[i] == '/' && isDigit(name[i+1]) {
			return invalid(ErrInvalidName, name, i+1, "a token starts with a digit")
		}
	}
	return nil
}

// Expand turns a topic, service or action name given to the node
// (node, ns) into its fully qualified form, as rcl_expand_topic_name does,
// and checks the result: "~" is the node's own name, {node} and {ns} (or
// {namespace}) are substituted, and a relative name goes under ns.
func Expand(name, node, ns string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	if err := ValidateNodeName(node); err != nil {
		return "", err
	}
	if err := ValidateNamespace(ns); err != nil {
		return "", err
	}
	out := name
	if strings.HasPrefix(out, "~") {
		out = join(ns, node) + out[1:]
	}
	for {
		i := strings.IndexByte(out, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(out[i:], '}') + i
		var repl string
		switch key := out[i+1 : j]; key {
		case "node":
			repl = node
		case "ns", "namespace":
			repl = ns
		default:
			return "", fmt.Errorf("%w {%s} in %q", ErrUnknownSubstitution, key, name)
		}
		out = out[:i] + repl + out[j+1:]
	}
	if !strings.HasPrefix(out, "/") {
		out = join(ns, out)
	}
	if err := ValidateFullName(out); err != nil {
		return "", fmt.Errorf("%q expands to an invalid name: %w", name, err)
	}
	return out, nil
}

// join puts a relative name under a namespace ("/" is the root).
func join(ns, rel string) string {
	if ns == "/" {
		return "/" + rel
	}
	return ns + "/" + rel
}

// NodeFullName is a node's fully qualified name, as `ros2 node list`
// prints it: "/ns/node", or "/node" in the root namespace.
func NodeFullName(node, ns string) (string, error) {
	if err := ValidateNodeName(node); err != nil {
		return "", err
	}
	if err := ValidateNamespace(ns); err != nil {
		return "", err
	}
	return join(ns, node), nil
}
