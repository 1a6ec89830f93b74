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
const previewIDPrefix = "pv2"

// maxPreviewID bounds a preview id (motion_confirm's schema): 77 bytes
// and the actuator's name in base64, which a service's name makes long.
const maxPreviewID = 512

// PreviewSigner makes and checks preview ids:
// "pv2.<uuid>.<expiry>.<actuator>.<mac>", the actuator base64url-encoded,
// where the MAC binds the id to the actuator, the tool, the canonical
// arguments and the robot state digest the preview was computed on. The
// actuator is in the id so a confirm picks its lock without reading the
// preview; it is trusted only once the MAC verifies against the stored
// preview, and a forged or altered id fails there.
type PreviewSigner struct {
	Key []byte
}

// previewBinding is what a preview id's MAC covers.
type previewBinding struct {
	ID, Actuator, Tool, ArgsDigest, StateDigest string
	Expires                                     time.Time
}

func (s PreviewSigner) mac(b previewBinding) string {
	h := hmac.New(sha256.New, s.Key)
	var scratch [256]byte // each part as "<len>:<part>", one write each
	for _, part := range [...]string{previewIDPrefix, b.ID, strconv.FormatInt(b.Expires.Unix(), 10), b.Actuator, b.Tool, b.ArgsDigest, b.StateDigest} {
		buf := strconv.AppendInt(scratch[:0], int64(len(part)), 10)
		buf = append(append(buf, ':'), part...)
		h.Write(buf)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// Sign issues a new preview id for the binding (its ID is filled in).
func (s PreviewSigner) Sign(b *previewBinding) string {
	b.ID = uuid.NewString()
	return formatPreviewID(b.ID, b.Expires, b.Actuator, s.mac(*b))
}

// formatPreviewID is the one encoding of a preview id's parts.
func formatPreviewID(id string, expires time.Time, actuator, mac string) string {
	return previewIDPrefix + "." + id + "." + strconv.FormatInt(expires.Unix(), 10) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(actuator)) + "." + mac
}

// parsedPreviewID is a preview id split into its parts, not yet verified.
type parsedPreviewID struct {
	Key      string // the whole id
	UUID     string // the store key
	Expires  time.Time
	Actuator string // unverified until Verify
	MAC      string
}

// parsePreviewID splits an id; anything malformed is invalid_argument. An
// id must be the canonical encoding of its parts (lowercase hyphenated
// uuid, expiry without sign or leading zeros, strict unpadded base64),
// because the MAC covers the parsed values: otherwise several strings would
// verify as the same preview.
// boundPreviewID is motion_confirm's preview_id, read once (Tool.Bind) for
// its lock key and its confirm: as sent, parsed, or why it is no id.
type boundPreviewID struct {
	raw string
	id  parsedPreviewID
	err *Error
}

func bindPreviewID(raw string) boundPreviewID {
	id, err := parsePreviewID(raw)
	return boundPreviewID{raw: raw, id: id, err: err}
}

func parsePreviewID(id string) (parsedPreviewID, *Error) {
	bad := func(why string) (parsedPreviewID, *Error) {
		e := RuleError(CodeInvalidArgument, "preview_id_authentic", "preview_id", "not a preview id this bridge issued: "+why)
		e.Expected, e.Actual = "a preview_id returned by a preview tool, unchanged", quote(id)
		e.Hint = "call the motion tool again to get a fresh preview"
		return parsedPreviewID{}, e
	}
	parts := strings.Split(id, ".")
	if len(parts) != 5 || parts[0] != previewIDPrefix {
		return bad("wrong format")
	}
	u, err := uuid.Parse(parts[1])
	if err != nil {
		return bad("wrong format")
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || exp <= 0 {
		return bad("wrong format")
	}
	actuator, err := base64.RawURLEncoding.Strict().DecodeString(parts[3])
	if err != nil {
		return bad("wrong format")
	}
	p := parsedPreviewID{Key: id, UUID: u.String(), Expires: time.Unix(exp, 0), Actuator: string(actuator), MAC: parts[4]}
	if formatPreviewID(p.UUID, p.Expires, p.Actuator, p.MAC) != id {
		return bad("not in canonical form")
	}
	return p, nil
}

// PreviewStoreKey is the key a preview id's preview is stored under (ok
// false for what is not a well-formed preview id).
func PreviewStoreKey(id string) (key string, ok bool) {
	p, err := parsePreviewID(id)
	return p.UUID, err == nil
}

// Verify checks the MAC against the stored binding (b's Actuator, Tool,
// ArgsDigest and StateDigest, from the stored preview).
func (s PreviewSigner) Verify(p parsedPreviewID, b previewBinding) *Error {
	b.ID, b.Expires = p.UUID, p.Expires
	// The MAC covers the stored actuator; the id must name that one too.
	if !hmac.Equal([]byte(s.mac(b)), []byte(p.MAC)) || p.Actuator != b.Actuator {
		e := RuleError(CodeInvalidArgument, "preview_id_authentic", "preview_id", "preview id signature does not match: it was altered or forged")
		e.Expected, e.Actual = "a preview_id returned by a preview tool, unchanged", quote(p.Key)
		e.Hint = "call the motion tool again to get a fresh preview"
		return e
	}
	return nil
}
