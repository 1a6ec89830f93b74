package console

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/actbridge/actbridge/bridge"
)

// Auth modes the page is told about.
const (
	authToken = "token" // every caller needs a token
	authDemo  = "demo"  // loopback demo: no token is the planner; the operator still needs one
)

// caller is who a request comes from, as far as the console can tell.
type caller struct {
	role bridge.Role // "" when not authenticated
	mode string
}

// identify applies the console's rules: a request is the role whose token
// it carries (else 401). In the loopback demo (Tokens.OpenPlanner) a
// request without a token is the planner, if it comes from a loopback peer
// addressing the bridge by a loopback name. The operator always needs the
// operator token: without one, no process on the machine is the operator.
// Tokens are compared in constant time and never logged.
func (c *Console) identify(r *http.Request) (caller, *bridge.Error, int) {
	mode := authToken
	if c.tokens.OpenPlanner {
		mode = authDemo
	}
	role, ok := c.tokens.RoleFor(r.Header)
	if ok && c.tokens.Open(r.Header) && (!loopbackPeer(r.RemoteAddr) || !bridge.LoopbackHost(r.Host)) {
		// The Host check guards against DNS rebinding: a page of another
		// site that resolves to 127.0.0.1 still sends its own name.
		return caller{mode: mode}, bridge.Errf(bridge.CodePermissionDenied,
			"this bridge has no tokens configured, so its console only serves http://127.0.0.1 or http://localhost on the bridge's machine"), http.StatusForbidden
	}
	if !ok {
		return caller{mode: mode}, bridge.Errf(bridge.CodePermissionDenied,
			"a valid bearer token is required: enter the operator token on the page"), http.StatusUnauthorized
	}
	return caller{role: role, mode: mode}, nil, 0
}

// authorized identifies the caller and writes the refusal if there is one.
// operatorOnly refuses the planner token with permission_denied.
func (c *Console) authorized(w http.ResponseWriter, r *http.Request, operatorOnly bool) (caller, bool) {
	who, e, status := c.identify(r)
	if e != nil {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="actbridge console"`)
		}
		writeJSON(w, status, e)
		return who, false
	}
	if operatorOnly && who.role != bridge.RoleOperator {
		msg, hint := "approve, deny and e-stop reset need the operator token; this request carries the planner's", "enter the operator token on the page"
		if c.tokens.Open(r.Header) {
			msg = "approve, deny and e-stop reset need the operator token; this request carries none"
			hint = "enter the operator token on the page (no token was configured: the bridge wrote one to operator.token in its data directory)"
		}
		e := bridge.RuleError(bridge.CodePermissionDenied, "operator_only", "", msg)
		writeError(w, e.WithHint(hint))
		return who, false
	}
	return who, true
}

// sameOrigin refuses what a page of another site could send from the
// operator's browser: a POST must be JSON (never a "simple" cross-site
// request) and, when the browser names its origin, come from this host.
func sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, bridge.Errf(bridge.CodeInvalidArgument, "console actions take Content-Type: application/json"))
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			writeJSON(w, http.StatusForbidden, bridge.Errf(bridge.CodePermissionDenied, "cross-origin console requests are refused"))
			return false
		}
	}
	return true
}

func loopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
