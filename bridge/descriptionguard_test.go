package bridge

import (
	"errors"
	"strings"
	"testing"
)

const (
	urdfLoaded   = `<robot name="r"><!-- as loaded --></robot>`
	urdfCosmetic = `<robot name="r"><!-- a comment changed --></robot>`
	urdfLimits   = `<robot name="r"><!-- j1 narrower --></robot>`
	urdfBroken   = `<robot`
)

// differsFake stands in for the config's limit loader: urdfLimits changes
// j1, urdfBroken does not parse, anything else keeps every limit.
func differsFake(urdf string) ([]string, error) {
	switch urdf {
	case urdfLimits:
		return []string{"j1"}, nil
	case urdfBroken:
		return nil, errors.New("urdf: unexpected EOF")
	}
	return nil, nil
}

// descriptionRig is the rig with a description guard on its motions.
func descriptionRig(t *testing.T) (*rig, *DescriptionGuard) {
	r := newRig(t)
	g := NewDescriptionGuard(urdfLoaded, false, differsFake, r.clock)
	r.m.Description = g
	r.p.Registry.MustAdd(DescriptionAcceptTool(g))
	return r, g
}

func TestChangedDescriptionRefusesPreviewAndConfirmUntilAccepted(t *testing.T) {
	r, g := descriptionRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	g.Observe(urdfCosmetic, "writer B")

	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e == nil || e.Rule != "robot_description_unchanged" || e.Retryable {
		t.Fatalf("confirm after the description changed: %+v, want robot_description_unchanged, not retryable", e)
	}
	if _, e := r.call(t, RolePlanner, "gripper_move", `{"position":0.04}`); e == nil || e.Code != CodeUnavailable {
		t.Fatalf("preview after the description changed: %+v, want unavailable", e)
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals sent while the description differed", n)
	}
	if _, e := r.call(t, RolePlanner, "robot_description_accept", `{"urdf_sha256":"`+URDFDigest(urdfCosmetic)+`"}`); e == nil || e.Code != CodePermissionDenied {
		t.Fatalf("the planner accepted a description: %+v", e)
	}
	if _, e := r.call(t, RoleOperator, "robot_description_accept", `{"urdf_sha256":"`+URDFDigest(urdfLoaded)+`"}`); e == nil || e.Rule != "description_pending" {
		t.Fatalf("accepting a digest the robot does not publish: %+v", e)
	}
	if _, e := r.call(t, RoleOperator, "robot_description_accept", `{"urdf_sha256":"`+URDFDigest(urdfCosmetic)+`"}`); e != nil {
		t.Fatalf("operator accept: %+v", e)
	}
	id = preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e != nil {
		t.Fatalf("confirm after acceptance: %+v", e)
	}
	if d := g.Describe(); d["sha256"] != URDFDigest(urdfCosmetic) || d["limits_sha256"] != URDFDigest(urdfLoaded) || d["changed"] != nil {
		t.Fatalf("describe after acceptance: %v", d)
	}
}

func TestDescriptionThatChangesLimitsCannotBeAccepted(t *testing.T) {
	for _, tc := range []struct{ name, urdf, want string }{
		{"limits changed", urdfLimits, "changes the limits of j1"},
		{"unreadable", urdfBroken, "cannot be read as limits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, g := descriptionRig(t)
			g.Observe(tc.urdf, "writer B")
			e := g.Hold()
			if e == nil || !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Release, "restart") {
				t.Fatalf("hold: %+v, want %q and a restart to release", e, tc.want)
			}
			if _, e := r.call(t, RoleOperator, "robot_description_accept", `{"urdf_sha256":"`+URDFDigest(tc.urdf)+`"}`); e == nil || e.Code != CodeLimitViolation {
				t.Fatalf("accepting a description with other limits: %+v, want limit_violation", e)
			}
			if g.Hold() == nil {
				t.Fatal("a refused acceptance released the hold")
			}
		})
	}
}

func TestDescriptionBackToTheLoadedOneReleasesTheHold(t *testing.T) {
	_, g := descriptionRig(t)
	g.Observe(urdfCosmetic, "writer B")
	if g.Hold() == nil {
		t.Fatal("no hold after a change")
	}
	g.Observe(urdfLoaded, "writer A")
	if e := g.Hold(); e != nil {
		t.Fatalf("hold after the loaded URDF came back: %+v", e)
	}
	g.Observe(urdfLoaded, "writer A") // the same again changes nothing
	if e := g.Hold(); e != nil {
		t.Fatalf("hold after the same URDF twice: %+v", e)
	}
}

func TestSecondPublisherOfAnotherDescriptionHoldsMotions(t *testing.T) {
	// Two writers alternate: the one the limits came from and another.
	// Whichever spoke last, the hold stays until the other one is gone
	// and the loaded one is heard again.
	_, g := descriptionRig(t)
	g.Observe(urdfLoaded, "writer A")
	g.Observe(urdfCosmetic, "writer B")
	if e := g.Hold(); e == nil || !strings.Contains(e.State, "writer B") {
		t.Fatalf("hold: %+v, want it to name writer B", e)
	}
}

// More than one publisher of the description holds every motion with
// ambiguous_server naming them, until one is left.
func TestTwoDescriptionPublishersHoldMotionsUntilOneIsLeft(t *testing.T) {
	r, g := descriptionRig(t)
	g.SetAmbiguous("publishers of /robot_description: /a on participant 01; /b on participant 02")
	if _, e := r.call(t, RolePlanner, "gripper_move", `{"position":0.04}`); e == nil || e.Code != CodeAmbiguousServer || !strings.Contains(e.State, "/b on participant 02") {
		t.Fatalf("preview with two description publishers: %+v, want ambiguous_server naming them", e)
	}
	if d := g.Describe(); d["ambiguous"] == nil {
		t.Fatalf("describe does not show the ambiguity: %v", d)
	}
	g.SetAmbiguous("")
	if _, e := r.call(t, RolePlanner, "gripper_move", `{"position":0.04}`); e != nil {
		t.Fatalf("preview once one publisher is left: %+v", e)
	}
}

// With urdf_sha256 pinned, no other description is accepted at run time,
// however alike: the pin is changed in the config, then the bridge restarts.
func TestPinnedDescriptionIsNeverAcceptedAtRunTime(t *testing.T) {
	r := newRig(t)
	g := NewDescriptionGuard(urdfLoaded, true, differsFake, r.clock)
	r.m.Description = g
	r.p.Registry.MustAdd(DescriptionAcceptTool(g))
	g.Observe(urdfCosmetic, "writer B")
	if _, e := r.call(t, RoleOperator, "robot_description_accept", `{"urdf_sha256":"`+URDFDigest(urdfCosmetic)+`"}`); e == nil || e.Rule != "urdf_pinned" {
		t.Fatalf("accepting under a pin: %+v, want urdf_pinned", e)
	}
	if g.Hold() == nil {
		t.Fatal("a refused acceptance released the hold")
	}
}
