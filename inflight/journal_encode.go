package inflight

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// appendJournalLine appends l as json.Marshal would write it, without its
// reflection and without re-compacting the raw JSON fields: on a confirm's
// path those copies of the goal, arguments and summary were most of the
// claim's CPU before its fdatasync. Raw fields must be valid JSON (validate
// and transitioned see to it); one holding a newline, which would split the
// line, and anything else unusual take json.Marshal's path.
func appendJournalLine(dst []byte, l journalLine) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"k":`...)
	dst = appendString(dst, l.Kind)
	var ok bool
	if l.Motion != nil {
		dst = append(dst, `,"m":`...)
		if dst, ok = appendMotion(dst, l.Motion); !ok {
			return marshalLine(dst[:start], l)
		}
	}
	if l.Preview != nil {
		dst = append(dst, `,"p":`...)
		if dst, ok = appendPreview(dst, l.Preview); !ok {
			return marshalLine(dst[:start], l)
		}
	}
	return append(dst, '}'), nil
}

// journalLineSize is room for a line of m and p with its newline and NUL,
// so neither the encoder nor the append copies it again.
func journalLineSize(m *Motion, p *Preview) int {
	n := 256
	if m != nil {
		n += 512 + len(m.Args) + len(m.Goal) + len(m.Result) + len(m.ErrorText) + 128*len(m.History)
	}
	if p != nil {
		n += 512 + len(p.Args) + len(p.Goal) + len(p.Summary)
	}
	return n
}

func marshalLine(dst []byte, l journalLine) ([]byte, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func appendMotion(b []byte, m *Motion) ([]byte, bool) {
	if !plainRaw(m.Args) || !plainRaw(m.Goal) || !plainRaw(m.Result) || math.IsNaN(m.Progress) || math.IsInf(m.Progress, 0) {
		return b, false
	}
	var ok bool
	b = appendHead(b, m.Version, m.ID, m.Tool, m.Actuator)
	b = appendOptField(b, "scope", m.Scope)
	b = appendOptField(b, "preview_id", m.PreviewID)
	b = appendField(b, "args_digest", m.ArgsDigest)
	b = appendRawField(b, "args", m.Args)
	b = append(b, `,"goal":`...)
	b = appendRaw(b, m.Goal)
	b = appendField(b, "state", string(m.State))
	b = append(b, `,"progress":`...)
	b = appendFloat(b, m.Progress)
	b = appendRawField(b, "result", m.Result)
	b = appendOptField(b, "error", m.ErrorText)
	b = appendOptField(b, "role", m.Role)
	if b, ok = appendTimeField(b, "created_at", m.CreatedAt); !ok {
		return b, false
	}
	if b, ok = appendTimeField(b, "updated_at", m.UpdatedAt); !ok {
		return b, false
	}
	b = append(b, `,"history":`...)
	if m.History == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range m.History {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"from":`...)
			b = appendString(b, string(t.From))
			b = appendField(b, "to", string(t.To))
			if b, ok = appendTimeField(b, "at", t.At); !ok {
				return b, false
			}
			b = appendOptField(b, "note", t.Note)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendPreview(b []byte, p *Preview) ([]byte, bool) {
	if !plainRaw(p.Args) || !plainRaw(p.Goal) || !plainRaw(p.Summary) {
		return b, false
	}
	var ok bool
	b = appendHead(b, p.Version, p.ID, p.Tool, p.Actuator)
	b = appendField(b, "args_digest", p.ArgsDigest)
	b = appendRawField(b, "args", p.Args)
	b = appendRawField(b, "goal", p.Goal)
	b = appendField(b, "state_digest", p.StateDigest)
	b = appendRawField(b, "summary", p.Summary)
	b = appendOptField(b, "role", p.Role)
	if b, ok = appendTimeField(b, "created_at", p.CreatedAt); !ok {
		return b, false
	}
	if b, ok = appendTimeField(b, "expires_at", p.ExpiresAt); !ok {
		return b, false
	}
	b = appendOptField(b, "used_by", p.UsedBy)
	if !p.UsedAt.IsZero() {
		if b, ok = appendTimeField(b, "used_at", p.UsedAt); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendHead opens a record with the fields motions and previews share.
func appendHead(b []byte, version int, id, tool, actuator string) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(version), 10)
	b = appendField(b, "id", id)
	b = appendField(b, "tool", tool)
	return appendField(b, "actuator", actuator)
}

// appendRawField writes an omitempty raw JSON field.
func appendRawField(b []byte, name string, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return append(b, raw...)
}

// plainRaw reports whether raw JSON can be copied into a line as it is:
// no newline (valid JSON has one only as whitespace, which json.Marshal
// would compact away).
func plainRaw(raw json.RawMessage) bool { return bytes.IndexByte(raw, '\n') < 0 }

// appendRaw is a raw field that is always written: null when empty, as
// json.Marshal writes a nil RawMessage.
func appendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendOptField writes an omitempty string field.
func appendOptField(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	return appendField(b, name, v)
}

func appendField(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

// appendTimeField writes t as time.Time's MarshalJSON does; false for a
// time it refuses (a year past 9999, a zone offset of 24 hours or more).
func appendTimeField(b []byte, name string, t time.Time) ([]byte, bool) {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":"`...)
	b, err := t.AppendText(b)
	if err != nil {
		return b, false
	}
	return append(b, '"'), true
}

// appendString writes s as encoding/json does; anything but plain
// printable ASCII goes through json.Marshal for its exact escaping.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s) // a string always marshals
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat writes a finite f as encoding/json does (ES6 number form).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
