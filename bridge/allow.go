package bridge

import (
	"fmt"
	"strings"
)

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
