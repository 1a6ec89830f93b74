package inflight

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/google/uuid"
)

// motionNamespace is uuid.NewSHA1(uuid.NameSpaceURL,
// "https://github.com/actbridge/actbridge/inflight#motion"). Changing it
// changes every motion id, so a retry after an upgrade would move twice.
const motionNamespace = "1ad01d1f-0b26-53a0-a4af-9cc0b7505f7a"

// MotionID is the motion's business key: a UUIDv5 over the tool, its
// canonical arguments and the planner's scope (task id), never a timestamp,
// so a retried request maps to the motion it already started. canonicalArgs
// must come from Canonical, or equal arguments spelled differently get
// different ids.
func MotionID(tool string, canonicalArgs []byte, scope string) string {
	// Length-prefixed parts: ("ab","c") and ("a","bc") must not collide.
	b := make([]byte, 0, 24+len(tool)+len(canonicalArgs)+len(scope))
	for _, part := range [][]byte{[]byte(tool), canonicalArgs, []byte(scope)} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(part)))
		b = append(b, part...)
	}
	return uuid.NewSHA1(uuid.MustParse(motionNamespace), b).String()
}

// Digest is the hex SHA-256 of canonical JSON: the key that binds a preview,
// an idempotency key or an audit line to exact arguments.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
