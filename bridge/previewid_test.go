package bridge

import (
	"strings"
	"testing"
	"time"
)

func TestPreviewIDBindsToolArgumentsAndState(t *testing.T) {
	s := PreviewSigner{Key: []byte("k")}
	b := previewBinding{Actuator: "service:/a.b", Tool: "arm_move_joints", ArgsDigest: "a", StateDigest: "s", Expires: time.Unix(2000000000, 0)}
	id := s.Sign(&b)
	p, err := parsePreviewID(id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Actuator != b.Actuator {
		t.Fatalf("actuator read from the id: %q, want %q", p.Actuator, b.Actuator)
	}
	if e := s.Verify(p, b); e != nil {
		t.Fatal(e)
	}
	for name, other := range map[string]previewBinding{
		"other actuator": {Actuator: "arm", Tool: "arm_move_joints", ArgsDigest: "a", StateDigest: "s"},
		"other tool":     {Actuator: b.Actuator, Tool: "gripper_move", ArgsDigest: "a", StateDigest: "s"},
		"other args":     {Actuator: b.Actuator, Tool: "arm_move_joints", ArgsDigest: "b", StateDigest: "s"},
		"other state":    {Actuator: b.Actuator, Tool: "arm_move_joints", ArgsDigest: "a", StateDigest: "t"},
	} {
		if s.Verify(p, other) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	renamed := p
	renamed.Actuator = "arm"
	if s.Verify(renamed, b) == nil {
		t.Error("accepted an id naming another actuator than the stored preview's")
	}
	if (PreviewSigner{Key: []byte("other key")}).Verify(p, b) == nil {
		t.Error("accepted under another key")
	}
}

func FuzzParsePreviewID(f *testing.F) {
	s := PreviewSigner{Key: []byte("k")}
	b := previewBinding{Tool: "t", ArgsDigest: "a", StateDigest: "s", Expires: time.Unix(2000000000, 0)}
	f.Add(s.Sign(&b))
	f.Add("pv2....")
	f.Add("pv2.00000000-0000-4000-8000-000000000000.-1.YXJt.x")
	f.Add("pv2.00000000-0000-4000-8000-000000000000.1.YXJt=.x")
	f.Add(strings.Repeat("pv2.", 100))
	f.Fuzz(func(t *testing.T, id string) {
		p, err := parsePreviewID(id)
		if err != nil {
			if err.Code != CodeInvalidArgument {
				t.Fatalf("code %s", err.Code)
			}
			return
		}
		// A parsed id that was not signed by us must never verify.
		if id != p.Key {
			t.Fatal("key differs from id")
		}
		if e := s.Verify(p, previewBinding{Tool: "x", ArgsDigest: "y", StateDigest: "z"}); e == nil {
			t.Fatalf("forged id %q verified", id)
		}
	})
}
