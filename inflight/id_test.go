package inflight

import (
	"testing"

	"github.com/google/uuid"
)

func TestMotionNamespaceIsDerivedFromTheProjectURL(t *testing.T) {
	want := uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/actbridge/actbridge/inflight#motion"))
	if motionNamespace != want.String() {
		t.Fatalf("motionNamespace = %s, want %s", motionNamespace, want)
	}
}

func TestMotionIDIsABusinessKey(t *testing.T) {
	// The bridge canonicalises arguments; MotionID hashes the bytes given.
	args := []byte(`{"joints":[0.1,0.2],"speed":1}`)
	base := MotionID("arm_move_joints", args, "task-7")
	if id, err := uuid.Parse(base); err != nil || id.Version() != 5 {
		t.Fatalf("MotionID = %s (%v), want a UUIDv5", base, err)
	}
	cases := []struct {
		name        string
		tool        string
		args        []byte
		scope       string
		sameAsFirst bool
	}{
		{"same call again", "arm_move_joints", args, "task-7", true},
		{"other tool", "arm_move_cartesian", args, "task-7", false},
		{"other arguments", "arm_move_joints", []byte(`{"joints":[0.1,0.3],"speed":1}`), "task-7", false},
		{"other task", "arm_move_joints", args, "task-8", false},
		{"no task", "arm_move_joints", args, "", false},
		// Framing: moving bytes between parts must change the id.
		{"tool bytes moved into the scope", "arm_move_joint", args, "stask-7", false},
	}
	for _, tc := range cases {
		if got := MotionID(tc.tool, tc.args, tc.scope); (got == base) != tc.sameAsFirst {
			t.Errorf("%s: MotionID = %s, base %s; want same=%v", tc.name, got, base, tc.sameAsFirst)
		}
	}
	if MotionID("ab", []byte("c"), "") == MotionID("a", []byte("bc"), "") {
		t.Error(`("ab","c") and ("a","bc") collide`)
	}
}

func TestDigestIsHexSHA256(t *testing.T) {
	if got := Digest([]byte("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("Digest(abc) = %s", got)
	}
}
