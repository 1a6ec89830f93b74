package bridge

import (
	"slices"
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

func TestOnlyTheCanonicalSpellingOfAPreviewIDIsAccepted(t *testing.T) {
	s := PreviewSigner{Key: []byte("k")}
	// "arm1" is 4 bytes: its last base64 digit carries 4 unused bits.
	b := previewBinding{Actuator: "arm1", Tool: "arm_move_joints", ArgsDigest: "a", StateDigest: "s", Expires: time.Unix(2000000000, 0)}
	id := s.Sign(&b)
	parts := strings.Split(id, ".")
	with := func(i int, v string) string {
		p := slices.Clone(parts)
		p[i] = v
		return strings.Join(p, ".")
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	act := parts[3]
	trailing := act[:len(act)-1] + string(alphabet[strings.IndexByte(alphabet, act[len(act)-1])+1])
	for _, tc := range []struct {
		name, id string
		ok       bool
	}{
		{"as issued", id, true},
		{"expiry with a plus sign", with(2, "+"+parts[2]), false},
		{"expiry with a leading zero", with(2, "0"+parts[2]), false},
		{"expiry with a plus sign and a leading zero", with(2, "+0"+parts[2]), false},
		{"uuid in upper case", with(1, strings.ToUpper(parts[1])), false},
		{"uuid without hyphens", with(1, strings.ReplaceAll(parts[1], "-", "")), false},
		{"uuid in braces", with(1, "{"+parts[1]+"}"), false},
		{"uuid as a urn", with(1, "urn:uuid:"+parts[1]), false},
		{"actuator with nonzero trailing bits", with(3, trailing), false},
		{"actuator padded", with(3, act+"=="), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parsePreviewID(tc.id)
			if !tc.ok {
				if err == nil || err.Code != CodeInvalidArgument {
					t.Fatalf("%q parsed: %+v, %v", tc.id, p, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e := s.Verify(p, b); e != nil {
				t.Fatal(e)
			}
		})
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
		if id != p.Key || formatPreviewID(p.UUID, p.Expires, p.Actuator, p.MAC) != id {
			t.Fatal("the id is not the canonical encoding of its parts")
		}
		if e := s.Verify(p, previewBinding{Tool: "x", ArgsDigest: "y", StateDigest: "z"}); e == nil {
			t.Fatalf("forged id %q verified", id)
		}
	})
}
