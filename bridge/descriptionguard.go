package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
)

// DescriptionGuard holds every motion while the robot publishes a URDF
// other than the one its limits were loaded from: limits that silently
// stop matching the robot are worse than no motion. An operator may accept
// the new description only when its limits are the ones in force; any
// other change needs a restart, which loads them. Safe for concurrent use.
type DescriptionGuard struct {
	loaded string // digest of the URDF the limits came from
	pinned bool   // the config's urdf_sha256 names loaded
	// differs reports the joints whose limits a URDF would change (nil:
	// the same limits), or why it cannot be read as limits.
	differs func(urdf string) ([]string, error)
	now     func() time.Time

	mu        sync.Mutex
	accepted  string          // digest motions run under: loaded, or one an operator accepted
	pending   *descriptionRun // a different URDF seen, not accepted
	ambiguous string          // the publishers, when more than one publishes the description
}

// descriptionRun is one URDF seen on the robot that differs from the
// accepted one.
type descriptionRun struct {
	digest, source string
	at             time.Time
	joints         []string // joints whose limits it changes
	unreadable     string   // why its limits could not be loaded
}

// URDFDigest is the hex SHA-256 of a URDF text: what urdf_sha256 pins and
// robot_describe shows.
func URDFDigest(urdf string) string {
	s := sha256.Sum256([]byte(urdf))
	return hex.EncodeToString(s[:])
}

// NewDescriptionGuard starts from the URDF the limits were loaded from.
// differs compares another URDF's limits with those in force.
func NewDescriptionGuard(loaded string, pinned bool, differs func(urdf string) ([]string, error), now func() time.Time) *DescriptionGuard {
	if now == nil {
		now = time.Now
	}
	d := URDFDigest(loaded)
	return &DescriptionGuard{loaded: d, pinned: pinned, differs: differs, now: now, accepted: d}
}

// Observe takes one robot description seen at run time, from source (who
// published it). The accepted URDF clears a pending change; any other
// holds motions until it is accepted or the bridge restarts.
func (g *DescriptionGuard) Observe(urdf, source string) {
	d := URDFDigest(urdf)
	g.mu.Lock()
	if d == g.accepted || (g.pending != nil && g.pending.digest == d) {
		if d == g.accepted {
			g.pending = nil
		}
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	run := &descriptionRun{digest: d, source: source, at: g.now()}
	joints, err := g.differs(urdf) // parses a URDF: outside the lock
	if err != nil {
		run.unreadable = err.Error()
	}
	run.joints = joints
	g.mu.Lock()
	defer g.mu.Unlock()
	if d != g.accepted {
		g.pending = run
	}
}

// SetAmbiguous says who publishes the description when more than one
// participant does and the config names none ("" when one is left):
// limits from one of several sources are a guess, so motions are held.
func (g *DescriptionGuard) SetAmbiguous(why string) {
	g.mu.Lock()
	g.ambiguous = why
	g.mu.Unlock()
}

// Hold is nil while motions may run, or the refusal naming the change.
func (g *DescriptionGuard) Hold() *Error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	p := g.pending
	accepted, ambiguous := g.accepted, g.ambiguous
	g.mu.Unlock()
	if ambiguous != "" {
		e := StateError(CodeAmbiguousServer, ambiguous,
			"when one publisher is left, or the config names its node (description_node)",
			"more than one participant publishes the robot description the limits come from; nothing was sent")
		return e.WithHint("stop the stray publisher, give each robot its own namespace, or set description_node")
	}
	if p == nil {
		return nil
	}
	what := "its limits are unchanged"
	release := "an operator accepts it (console or robot_description_accept), or the bridge restarts"
	switch {
	case p.unreadable != "":
		what = "it cannot be read as limits (" + p.unreadable + ")"
		release = "the robot publishes a readable URDF and the bridge restarts"
	case len(p.joints) > 0:
		what = "it changes the limits of " + strings.Join(p.joints, ", ")
		release = "the bridge restarts, which loads the new limits"
	}
	e := StateError(CodeUnavailable, fmt.Sprintf("robot description changed at %s from %s to %s (published by %s)",
		p.at.UTC().Format(time.RFC3339), short(accepted), short(p.digest), p.source), release,
		"the robot publishes a different URDF than the one the limits were loaded from; "+what+"; nothing was sent")
	e.Rule, e.Retryable = "robot_description_unchanged", false
	return e.WithHint("tell the operator; read robot_describe's urdf for both digests").
		WithDetails(map[string]any{"urdf_sha256": accepted, "published_sha256": p.digest, "changed_joints": p.joints})
}

// Accept lets motions run under the pending description named by digest,
// which must leave every limit as it is.
func (g *DescriptionGuard) Accept(digest string) *Error {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pending
	switch {
	case p == nil && digest == g.accepted:
		return nil // already accepted: idempotent
	case p == nil:
		e := RuleError(CodeInvalidArgument, "description_pending", "urdf_sha256", "no changed robot description is waiting for acceptance")
		e.Expected, e.Actual = "the published_sha256 robot_describe shows under urdf", digest
		return e
	case p.digest != digest:
		e := RuleError(CodeInvalidArgument, "description_pending", "urdf_sha256", "this is not the description the robot publishes now")
		e.Expected, e.Actual = p.digest, digest
		return e
	case g.pinned:
		e := RuleError(CodeLimitViolation, "urdf_pinned", "urdf_sha256",
			"the config pins urdf_sha256 to the URDF the limits came from; another one is never accepted at run time")
		e.Expected, e.Actual = g.loaded, digest
		return e.WithHint("compare the two URDFs, set urdf_sha256 to the new digest in the config, and restart the bridge")
	case p.unreadable != "" || len(p.joints) > 0:
		e := RuleError(CodeLimitViolation, "description_same_limits", "urdf_sha256",
			"the new description changes limits; accepting it would keep limits the robot no longer has")
		e.Expected, e.Actual = "a description whose limits equal those in force", "changed: "+strings.Join(p.joints, ", ")+p.unreadable
		return e.WithHint("restart the bridge to load the new limits (update urdf_sha256 in the config if it pins one)")
	}
	g.accepted, g.pending = p.digest, nil
	return nil
}

// Describe is robot_describe's urdf entry.
func (g *DescriptionGuard) Describe() map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]any{"sha256": g.accepted, "limits_sha256": g.loaded, "pinned": g.pinned}
	if g.ambiguous != "" {
		out["ambiguous"] = g.ambiguous
	}
	if p := g.pending; p != nil {
		c := map[string]any{"published_sha256": p.digest, "source": p.source, "at": p.at.UTC().Format(time.RFC3339),
			"changed_joints": p.joints, "acceptable": !g.pinned && p.unreadable == "" && len(p.joints) == 0}
		if p.unreadable != "" {
			c["unreadable"] = p.unreadable
		}
		out["changed"] = c
	}
	return out
}

// DescriptionAcceptTool lets the operator accept a changed description
// whose limits are those in force.
func DescriptionAcceptTool(g *DescriptionGuard) *Tool {
	return &Tool{
		Name: "robot_description_accept", Group: "robot", Tier: TierWrite, Title: "Accept a changed robot description",
		Roles: []Role{RoleOperator}, TouchesRobot: true,
		Description: Describe("Accepts the URDF the robot publishes now, after it changed while the bridge ran, so motions may run again. Only a description whose limits equal those in force can be accepted. Operator only.",
			"robot_describe's urdf.changed shows acceptable: true and the operator knows why the description changed.",
			"the planner (permission_denied); a description that changes limits (restart the bridge to load them).",
			"lets motions run again; moves nothing.",
			"{urdf_sha256} (under 100 bytes)."),
		Input: Object("", map[string]*Schema{
			"urdf_sha256": {Type: "string", Description: "The published_sha256 robot_describe shows under urdf.changed.", Pattern: "^[0-9a-f]{64}$"},
		}, "urdf_sha256"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"urdf_sha256": {Type: "string", Description: "The description motions now run under."},
		}, Required: []string{"urdf_sha256"}},
		Errors: []Code{CodeInvalidArgument, CodeLimitViolation, CodePermissionDenied, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Digest string `json:"urdf_sha256"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if e := g.Accept(in.Digest); e != nil {
				return nil, e
			}
			return map[string]any{"urdf_sha256": in.Digest}, nil
		},
	}
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}
