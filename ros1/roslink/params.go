package roslink

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bluenviron/goroslib/v2"
)

// SetParamString stores a string parameter. goroslib writes strings into
// XML-RPC unescaped, so a URDF would be rejected by the master; this escapes
// it first. Strings with characters XML cannot carry are refused.
func SetParamString(n *goroslib.Node, name, value string) error {
	esc, err := escapeXMLText(value)
	if err != nil {
		return fmt.Errorf("roslink: set param %s: %w", name, err)
	}
	if err := n.ParamSetString(name, esc); err != nil {
		return fmt.Errorf("roslink: set param %s: %w", name, err)
	}
	return nil
}

// GetParamString reads a string parameter. goroslib's XML decoder already
// resolves entities on the way in, so the value is returned as is;
// unescaping again would corrupt a value that contains "&amp;" literally.
// A carriage return comes back as a newline (XML end-of-line handling).
func GetParamString(n *goroslib.Node, name string) (string, error) {
	v, err := n.ParamGetString(name)
	if err != nil {
		return "", fmt.Errorf("roslink: get string param %s: %w", name, err)
	}
	return v, nil
}

// HasParam reports whether the master has a parameter of that name.
func HasParam(n *goroslib.Node, name string) (bool, error) {
	ok, err := n.ParamIsSet(name)
	if err != nil {
		return false, fmt.Errorf("roslink: has param %s: %w", name, err)
	}
	return ok, nil
}

// GetParamBool reads a bool parameter.
func GetParamBool(n *goroslib.Node, name string) (bool, error) {
	v, err := n.ParamGetBool(name)
	if err != nil {
		return false, fmt.Errorf("roslink: get bool param %s: %w", name, err)
	}
	return v, nil
}

// SetParamBool stores a bool parameter.
func SetParamBool(n *goroslib.Node, name string, value bool) error {
	if err := n.ParamSetBool(name, value); err != nil {
		return fmt.Errorf("roslink: set param %s: %w", name, err)
	}
	return nil
}

// GetParamInt reads an int parameter (XML-RPC i4, so 32 bits on the wire).
func GetParamInt(n *goroslib.Node, name string) (int, error) {
	v, err := n.ParamGetInt(name)
	if err != nil {
		return 0, fmt.Errorf("roslink: get int param %s: %w", name, err)
	}
	return v, nil
}

// SetParamInt stores an int parameter; XML-RPC carries only 32-bit ints,
// so larger values are refused rather than wrapped by the master.
func SetParamInt(n *goroslib.Node, name string, value int) error {
	if value < -1<<31 || value > 1<<31-1 {
		return fmt.Errorf("roslink: set param %s: %d does not fit in XML-RPC's 32-bit int", name, value)
	}
	if err := n.ParamSetInt(name, value); err != nil {
		return fmt.Errorf("roslink: set param %s: %w", name, err)
	}
	return nil
}

// GetParamFloat64 reads a double parameter.
func GetParamFloat64(n *goroslib.Node, name string) (float64, error) {
	v, err := n.ParamGetFloat64(name)
	if err != nil {
		return 0, fmt.Errorf("roslink: get float param %s: %w", name, err)
	}
	return v, nil
}

// SetParamFloat64 stores a double parameter.
func SetParamFloat64(n *goroslib.Node, name string, value float64) error {
	if err := n.ParamSetFloat64(name, value); err != nil {
		return fmt.Errorf("roslink: set param %s: %w", name, err)
	}
	return nil
}

// escapeXMLText makes s safe as XML character data. A carriage return is
// written as a reference because XML parsers turn a raw one into a newline.
func escapeXMLText(s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return "", fmt.Errorf("invalid UTF-8 at byte %d", i)
		}
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#13;")
		case !isXMLChar(r):
			return "", fmt.Errorf("character %U at byte %d cannot be sent in XML-RPC", r, i)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), nil
}

// isXMLChar is the XML 1.0 Char production.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}
