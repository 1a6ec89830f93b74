package bridge

import (
	"fmt"
	"regexp"
	"strings"
)

// Globs is an allowlist of ROS name patterns, first match wins: `*` matches
// within one name segment, `**` across segments, `?` one character of a
// segment. "/camera/*" allows /camera/image but not /camera/left/image;
// "/camera/**" allows both. An empty list allows nothing.
type Globs []string

// globRE is what a pattern may contain: an absolute ROS name with wildcards.
var globRE = regexp.MustCompile(`^/[A-Za-z0-9_/~*?]*$`)

// CheckGlob reports why a pattern is not usable, or nil.
func CheckGlob(p string) error {
	if !globRE.MatchString(p) || strings.Contains(p, "//") || strings.Contains(p, "***") {
		return fmt.Errorf("%q is not a pattern: an absolute ROS name with * (one segment), ** (any depth) or ?", p)
	}
	return nil
}

// Match returns the first pattern name matches.
func (g Globs) Match(name string) (string, bool) {
	for _, p := range g {
		if GlobMatch(p, name) {
			return p, true
		}
	}
	return "", false
}

// GlobMatch reports whether name matches pattern p (see Globs).
func GlobMatch(p, name string) bool {
	for len(p) > 0 {
		switch {
		case strings.HasPrefix(p, "**"):
			rest := p[2:]
			for i := 0; i <= len(name); i++ {
				if GlobMatch(rest, name[i:]) {
					return true
				}
			}
			return false
		case p[0] == '*':
			rest := p[1:]
			for i := 0; i <= len(name); i++ {
				if GlobMatch(rest, name[i:]) {
					return true
				}
				if i < len(name) && name[i] == '/' {
					return false
				}
			}
			return false
		case p[0] == '?':
			if name == "" || name[0] == '/' {
				return false
			}
		default:
			if name == "" || name[0] != p[0] {
				return false
			}
		}
		p, name = p[1:], name[1:]
	}
	return name == ""
}

// notAllowed is the permission_denied refusal for a name outside a list;
// it names the rule, the config key that would allow it, and what is allowed.
func notAllowed(rule, field, what, name, configKey string, allowed []string) *Error {
	e := RuleError(CodePermissionDenied, rule, field,
		fmt.Sprintf("%s %s is not on the allowlist (%s in the robot config); nothing was sent", what, quote(name), configKey))
	e.Retryable = false
	e.Actual = quote(name)
	if len(allowed) == 0 {
		e.Expected = "nothing: this robot config allows no " + what + "s"
	} else {
		e.Expected = "a " + what + " matching one of: " + clipRunes(strings.Join(allowed, ", "), 300)
	}
	return e
}
