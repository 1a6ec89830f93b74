package bridge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// previewIDPrefix versions the preview id format.
const previewIDPrefix = "pv1"

// PreviewSigner makes and checks preview ids: "pv1.<uuid>.<expiry>.<mac>",
// where the MAC binds the id to the tool, the canonical arguments and the
// robot state digest the preview was computed on. A forged or altered id
// fails the MAC before the store is even consulted.
type PreviewSigner struct {
	Key []byte
}

// previewBinding is what a preview id's MAC covers.
type previewBinding struct {
	ID, Tool, ArgsDigest, StateDigest string
	Expires                           time.Time
}

func (s PreviewSigner) mac(b previewBinding) string {
	h := hmac.New(sha256.New, s.Key)
	for _, part := range []string{previewIDPrefix, b.ID, strconv.FormatInt(b.Expires.Unix(), 10), b.Tool, b.ArgsDigest, b.StateDigest} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// Sign issues a new preview id for the binding (its ID is filled in).
func (s PreviewSigner) Sign(b *previewBinding) string {
	b.ID = uuid.NewString()
	return previewIDPrefix + "." + b.ID + "." + strconv.FormatInt(b.Expires.Unix(), 10) + "." + s.mac(*b)
}

// parsedPreviewID is a preview id split into its parts, not yet verified.
type parsedPreviewID struct {
	Key     string // the store key (the whole id)
	UUID    string
	Expires time.Time
	MAC     string
}

// parsePreviewID splits an id; anything malformed is invalid_argument.
func parsePreviewID(id string) (parsedPreviewID, *Error) {
	bad := func(why string) (parsedPreviewID, *Error) {
		e := RuleError(CodeInvalidArgument, "preview_id_authentic", "preview_id", "not a preview id this bridge issued: "+why)
		e.Expected, e.Actual = "a preview_id returned by a preview tool, unchanged", quote(id)
		e.Hint = "call the motion tool again to get a fresh preview"
		return parsedPreviewID{}, e
	}
	parts := strings.Split(id, ".")
	if len(parts) != 4 || parts[0] != previewIDPrefix {
		return bad("wrong format")
	}
	if _, err := uuid.Parse(parts[1]); err != nil {
		return bad("wrong format")
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || exp <= 0 {
		return bad("wrong format")
	}
	return parsedPreviewID{Key: id, UUID: parts[1], Expires: time.Unix(exp, 0), MAC: parts[3]}, nil
}

// Verify checks the MAC against the stored binding.
func (s PreviewSigner) Verify(p parsedPreviewID, b previewBinding) *Error {
	b.ID, b.Expires = p.UUID, p.Expires
	if !hmac.Equal([]byte(s.mac(b)), []byte(p.MAC)) {
		e := RuleError(CodeInvalidArgument, "preview_id_authentic", "preview_id", "preview id signature does not match: it was altered or forged")
		e.Expected, e.Actual = "a preview_id returned by a preview tool, unchanged", quote(p.Key)
		e.Hint = "call the motion tool again to get a fresh preview"
		return e
	}
	return nil
}
