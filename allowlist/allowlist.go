// Package allowlist is the syntax of the access lists' patterns over graph
// names and how a name is matched against them. The config checks
// patterns with Check; the tool layer matches names with Globs.
package allowlist

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

// globRE is what a pattern may contain: an absolute ROS name with
// wildcards; dots for ROS 2 parameter names (/node/constraints.goal_time).
var globRE = regexp.MustCompile(`^/[A-Za-z0-9_/~.*?]*$`)

// Check reports why a pattern is not usable, or nil.
func Check(p string) error {
	if !globRE.MatchString(p) || strings.Contains(p, "//") || strings.Contains(p, "***") {
		return fmt.Errorf("%q is not a pattern: an absolute ROS name (dots allowed for ROS 2 parameters) with * (one segment), ** (any depth) or ?", p)
	}
	return nil
}

// Match returns the first pattern name matches.
func (g Globs) Match(name string) (string, bool) {
	for _, p := range g {
		if Matches(p, name) {
			return p, true
		}
	}
	return "", false
}

// Matches reports whether name matches pattern p (see Globs).
func Matches(p, name string) bool {
	for len(p) > 0 {
		switch {
		case strings.HasPrefix(p, "**"):
			rest := p[2:]
			for i := 0; i <= len(name); i++ {
				if Matches(rest, name[i:]) {
					return true
				}
			}
			return false
		case p[0] == '*':
			rest := p[1:]
			for i := 0; i <= len(name); i++ {
				if Matches(rest, name[i:]) {
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
