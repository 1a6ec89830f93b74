package bridge

import (
	"strings"
	"testing"
	"time"
)

func TestPreviewIDBindsToolArgumentsAndState(t *testing.T) {
	s := PreviewSigner{Key: []byte("k")}
	b := previewBinding{Tool: "arm_move_joints", ArgsDigest: "a", StateDigest: "s", Expires: time.Unix(2000000000, 0)}
	id := s.Sign(&b)
	p, err := parsePreviewID(id)
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Verify(p, b); e != nil {
		t.Fatal(e)
	}
	for name, other := range map[string]previewBinding{
		"other tool":  {Tool: "gripper_move", ArgsDigest: "a", StateDigest: "s"},
		"other args":  {Tool: "arm_move_joints", ArgsDigest: "b", StateDigest: "s"},
		"other state": {Tool: "arm_move_joints", ArgsDigest: "a", StateDigest: "t"},
	} {
		if s.Verify(p, other) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if (PreviewSigner{Key: []byte("other key")}).Verify(p, b) == nil {
		t.Error("accepted under another key")
	}
}

func FuzzParsePreviewID(f *testing.F) {
	s := PreviewSigner{Key: []byte("k")}
	b := previewBinding{Tool: "t", ArgsDigest: "a", StateDigest: "s", Expires: time.Unix(2000000000, 0)}
	f.Add(s.Sign(&b))
	f.Add("pv1...")
	f.Add("pv1.00000000-0000-4000-8000-000000000000.-1.x")
	f.Add(strings.Repeat("pv1.", 100))
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
