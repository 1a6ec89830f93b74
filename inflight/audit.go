package inflight

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// AuditArgsLimit is how many bytes of arguments an audit line keeps; the
// digest still names the full arguments.
const AuditArgsLimit = 2048

// auditTextLimit bounds the other free-text fields (tool, role, code).
const auditTextLimit = 256

// Audit outcomes.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"
	OutcomePreview = "preview"
	OutcomeReplay  = "replay"
)

// AuditRecord is one audited tool call. Seq is the log's order, assigned by
// Append. When ArgsBytes is set, Args was clipped or not JSON: it is then a
// JSON string of the first AuditArgsLimit bytes of the ArgsBytes given.
type AuditRecord struct {
	Version int       `json:"v"`
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"` // when the call started; zero means now
	Role    string    `json:"role,omitempty"`
	// Via is how the call came when not by the caller's own MCP request:
	// console, or elicitation (a confirm the client's user approved).
	Via           string          `json:"via,omitempty"`
	Tool          string          `json:"tool"`
	ArgsDigest    string          `json:"args_digest,omitempty"`
	Args          json.RawMessage `json:"args,omitempty"`
	ArgsBytes     int             `json:"args_bytes,omitempty"`
	Outcome       string          `json:"outcome"` // ok, error, preview, replay
	Code          string          `json:"code,omitempty"`
	LatencyMicros int64           `json:"latency_us"`
	MotionID      string          `json:"motion_id,omitempty"`
}

// AppendAll adds rs to the audit log in order, in one commit: a writer that
// drains a queue pays one fsync per drain, not one per record.
func (s *Store) AppendAll(ctx context.Context, rs []AuditRecord) error {
	if len(rs) == 0 {
		return nil
	}
	for i := range rs {
		rs[i] = s.auditable(rs[i])
	}
	return s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		for _, r := range rs {
			if err := putAudit(tx, r); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// auditable is r as the log stores it: stamped, clipped, versioned.
func (s *Store) auditable(r AuditRecord) AuditRecord {
	if r.Time.IsZero() {
		r.Time = s.now()
	}
	r.Time = r.Time.UTC()
	r.Version = recordVersion
	r.LatencyMicros = max(r.LatencyMicros, 0)
	r.Args, r.ArgsBytes = clipArgs(r.Args)
	// A refused call is audited with whatever name the planner sent.
	r.Tool, r.Role, r.Code, r.MotionID = clipText(r.Tool), clipText(r.Role), clipText(r.Code), clipText(r.MotionID)
	r.Via = clipText(r.Via)
	return r
}

// putAudit appends r under the log's next sequence number.
func putAudit(tx *bolt.Tx, r AuditRecord) error {
	audit, err := bucket(tx, bucketAudit)
	if err != nil {
		return err
	}
	// Keys only ever grow: fill pages instead of splitting them in half.
	audit.FillPercent = 0.9
	seq, err := audit.NextSequence()
	if err != nil {
		return err
	}
	r.Seq = seq
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return audit.Put(seqKey(seq), b)
}

// clipArgs keeps small valid JSON as is (compacted); anything else becomes
// a JSON string of its first AuditArgsLimit bytes plus the original size.
func clipArgs(args json.RawMessage) (json.RawMessage, int) {
	if len(args) == 0 {
		return nil, 0
	}
	if json.Valid(args) {
		var buf bytes.Buffer
		_ = json.Compact(&buf, args)
		if buf.Len() <= AuditArgsLimit {
			return buf.Bytes(), 0
		}
		args = buf.Bytes()
	}
	cut := min(len(args), AuditArgsLimit)
	for cut > 0 && cut < len(args) && !utf8.RuneStart(args[cut]) {
		cut-- // do not split a UTF-8 sequence
	}
	s, _ := json.Marshal(string(args[:cut]))
	return s, len(args)
}

// clipText bounds a free-text audit field at auditTextLimit bytes, on a
// rune boundary.
func clipText(s string) string {
	if len(s) <= auditTextLimit {
		return s
	}
	cut := auditTextLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// AuditList returns up to limit lines in append order from cursor ("" is
// the oldest) and the cursor of the next page ("" when there is none yet).
func (s *Store) AuditList(cursor string, limit int) ([]AuditRecord, string, error) {
	start, err := decodeCursor(cursorAudit, cursor, func(k []byte) bool { return len(k) == 8 })
	if err != nil {
		return nil, "", err
	}
	limit = pageLimit(limit)
	var out []AuditRecord
	var next string
	err = s.view(func(tx *bolt.Tx) error {
		audit, err := bucket(tx, bucketAudit)
		if err != nil {
			return err
		}
		c := audit.Cursor()
		k, v := c.First()
		if start != nil {
			k, v = c.Seek(start)
		}
		for ; k != nil; k, v = c.Next() {
			if len(out) == limit {
				next = encodeCursor(cursorAudit, k)
				return nil
			}
			r, err := decodeAudit(k, v)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func decodeAudit(k, v []byte) (AuditRecord, error) {
	var r AuditRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return AuditRecord{}, fmt.Errorf("%w: audit line %x: %v", ErrCorrupt, k, err)
	}
	if r.Version > recordVersion {
		return AuditRecord{}, fmt.Errorf("%w: audit line %d is record version %d", ErrNewerFormat, r.Seq, r.Version)
	}
	r.Seq = binary.BigEndian.Uint64(k)
	return r, nil
}
