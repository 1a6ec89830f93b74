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
	authToken = "token" // bearer tokens are configured
	authNone  = "none"  // no tokens: loopback demo, every caller is the operator
)

// caller is who a request comes from, as far as the console can tell.
type caller struct {
	role bridge.Role // "" when not authenticated
	mode string
}

// identify applies the console's rules: with tokens, a request carries the
// planner or the operator token (else 401); without tokens, only loopback
// peers addressing the bridge by a loopback name are served, and they act
// as the operator. Tokens are compared in constant time and never logged.
func (c *Console) identify(r *http.Request) (caller, *bridge.Error, int) {
	if !c.tokens.Any() {
		// The Host check guards against DNS rebinding: a page of another
		// site that resolves to 127.0.0.1 still sends its own name.
		if !loopbackPeer(r.RemoteAddr) || !bridge.LoopbackHost(r.Host) {
			return caller{mode: authNone}, bridge.Errf(bridge.CodePermissionDenied,
				"this bridge has no tokens configured, so its console only serves http://127.0.0.1 or http://localhost on the bridge's machine"), http.StatusForbidden
		}
		return caller{role: bridge.RoleOperator, mode: authNone}, nil, 0
	}
	role, ok := c.tokens.RoleFor(r.Header)
	if !ok {
		return caller{mode: authToken}, bridge.Errf(bridge.CodePermissionDenied,
			"a valid bearer token is required: enter the operator token on the page"), http.StatusUnauthorized
	}
	return caller{role: role, mode: authToken}, nil, 0
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
		e := bridge.RuleError(bridge.CodePermissionDenied, "operator_only", "",
			"approve, deny and e-stop reset need the operator token; this request carries the planner's")
		writeError(w, e.WithHint("enter the operator token on the page"))
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
