package msgdef

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// maxLen bounds array lengths, sequence and string bounds a definition may
// declare, so that a hostile file cannot describe an absurd type.
const maxLen = 1 << 24

// ParseMsg parses the text of a .msg file defining pkg/msg/name.
func ParseMsg(file, pkg, name string, src []byte) (*Definition, error) {
	parts, err := parseParts(file, pkg, "msg", name, []string{""}, src)
	if err != nil {
		return nil, err
	}
	return parts[0], nil
}

// ParseSrv parses the text of a .srv file defining pkg/srv/name: the
// request and response, split by a "---" line.
func ParseSrv(file, pkg, name string, src []byte) (request, response *Definition, err error) {
	parts, err := parseParts(file, pkg, "srv", name, []string{"_Request", "_Response"}, src)
	if err != nil {
		return nil, nil, err
	}
	return parts[0], parts[1], nil
}

// ParseAction parses the text of a .action file defining pkg/action/name:
// goal, result and feedback, split by "---" lines. The types rosidl
// derives from them for the wire come from ActionTypes.
func ParseAction(file, pkg, name string, src []byte) (goal, result, feedback *Definition, err error) {
	parts, err := parseParts(file, pkg, "action", name, []string{"_Goal", "_Result", "_Feedback"}, src)
	if err != nil {
		return nil, nil, nil, err
	}
	return parts[0], parts[1], parts[2], nil
}

// parseParts parses a file of len(suffixes) parts split by "---" lines;
// part i is named name+suffixes[i].
// ActionTypes returns the types rosidl derives for action pkg/action/name,
// the ones that travel on the wire: name_SendGoal_Request (goal_id, goal),
// name_SendGoal_Response (accepted, stamp), name_GetResult_Request
// (goal_id), name_GetResult_Response (status, result) and
// name_FeedbackMessage (goal_id, feedback). They nest
// unique_identifier_msgs/UUID and builtin_interfaces/Time, which a
// registry must hold to resolve them.
func ActionTypes(pkg, name string) []*Definition {
	uuid := TypeRef{Package: "unique_identifier_msgs", Name: "UUID"}
	part := func(suffix string) TypeRef {
		return TypeRef{Package: pkg, Namespace: "action", Name: name + suffix}
	}
	def := func(suffix string, fields ...FieldDef) *Definition {
		return &Definition{Package: pkg, Namespace: "action", Name: name + suffix, File: "(derived from " + name + ".action)", Fields: fields}
	}
	return []*Definition{
		def("_SendGoal_Request", FieldDef{Name: "goal_id", Type: uuid}, FieldDef{Name: "goal", Type: part("_Goal")}),
		def("_SendGoal_Response", FieldDef{Name: "accepted", Type: TypeRef{Primitive: "bool"}},
			FieldDef{Name: "stamp", Type: TypeRef{Package: "builtin_interfaces", Name: "Time"}}),
		def("_GetResult_Request", FieldDef{Name: "goal_id", Type: uuid}),
		def("_GetResult_Response", FieldDef{Name: "status", Type: TypeRef{Primitive: "int8"}}, FieldDef{Name: "result", Type: part("_Result")}),
		def("_FeedbackMessage", FieldDef{Name: "goal_id", Type: uuid}, FieldDef{Name: "feedback", Type: part("_Feedback")}),
	}
}

func parseParts(file, pkg, ns, name string, suffixes []string, src []byte) ([]*Definition, error) {
	if !validPackage(pkg) {
		return nil, fmt.Errorf("%s: %w: package name %q", file, ErrSyntax, pkg)
	}
	if !validTypeName(name) {
		return nil, fmt.Errorf("%s: %w: type name %q", file, ErrSyntax, name)
	}
	names := make([]string, len(suffixes))
	for i, s := range suffixes {
		names[i] = name + s
	}
	defs := make([]*Definition, 0, len(names))
	cur := &Definition{Package: pkg, Namespace: ns, Name: names[0], File: file}
	seen := map[string]int{}
	lines := strings.Split(string(src), "\n")
	for i, raw := range lines {
		ln := i + 1
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "---" {
			if len(defs)+1 >= len(names) {
				return nil, lineError(file, ln, ErrSyntax, "a %s has %d parts, this separator starts one more", ns, len(names))
			}
			defs = append(defs, cur)
			cur = &Definition{Package: pkg, Namespace: ns, Name: names[len(defs)], File: file}
			seen = map[string]int{}
			continue
		}
		if err := parseLine(cur, file, ln, line, seen); err != nil {
			return nil, err
		}
	}
	if len(defs)+1 != len(names) {
		return nil, lineError(file, len(lines), ErrSyntax, "a %s has %d parts separated by ---, found %d", ns, len(names), len(defs)+1)
	}
	return append(defs, cur), nil
}

// parseLine adds the field or constant on one line (comments and blank
// lines add nothing).
func parseLine(d *Definition, file string, ln int, line string, seen map[string]int) error {
	line = strings.TrimSpace(stripComment(line))
	if line == "" {
		return nil
	}
	typ, rest := line, ""
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		typ, rest = line[:i], strings.TrimSpace(line[i+1:])
	}
	if rest == "" {
		return lineError(file, ln, ErrSyntax, "%q: want a type and a name", line)
	}
	t, err := parseType(d.Package, typ)
	if err != nil {
		return lineError(file, ln, ErrSyntax, "%v", err)
	}
	// A constant is NAME=value, where NAME is one word.
	if name, value, ok := strings.Cut(rest, "="); ok && !strings.ContainsAny(strings.TrimSpace(name), " \t\"'") {
		name = strings.TrimSpace(name)
		if !validConstantName(name) {
			return lineError(file, ln, ErrSyntax, "constant name %q: want upper case letters, digits and _", name)
		}
		if t.Primitive == "" || t.Collection != cdr.Single {
			return lineError(file, ln, ErrSyntax, "constant %s of type %s: constants are primitives", name, typ)
		}
		v, err := parseValue(t, strings.TrimSpace(value))
		if err != nil {
			return lineError(file, ln, ErrSyntax, "constant %s: %v", name, err)
		}
		if prev, dup := seen[name]; dup {
			return lineError(file, ln, ErrSyntax, "%s already declared on line %d", name, prev)
		}
		seen[name] = ln
		d.Constants = append(d.Constants, Constant{Name: name, Type: t.Primitive, Value: v, Line: ln})
		return nil
	}
	name, def := rest, ""
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		name, def = rest[:i], strings.TrimSpace(rest[i+1:])
	}
	if !validFieldName(name) {
		return lineError(file, ln, ErrSyntax, "field name %q: want lower case letters, digits and single _", name)
	}
	if prev, dup := seen[name]; dup {
		return lineError(file, ln, ErrSyntax, "%s already declared on line %d", name, prev)
	}
	seen[name] = ln
	f := FieldDef{Name: name, Type: t, Line: ln}
	if def != "" {
		if t.Primitive == "" {
			return lineError(file, ln, ErrSyntax, "field %s: nested types take no default value", name)
		}
		if f.Default, err = parseValue(t, def); err != nil {
			return lineError(file, ln, ErrSyntax, "field %s default: %v", name, err)
		}
	}
	d.Fields = append(d.Fields, f)
	return nil
}

// stripComment cuts a # comment, leaving a # inside quotes alone.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}

// parseType reads "float64", "string<=8", "int32[3]", "pkg/Type[<=4]", "Type[]".
func parseType(pkg, s string) (TypeRef, error) {
	var t TypeRef
	base := s
	if i := strings.IndexByte(s, '['); i >= 0 {
		if !strings.HasSuffix(s, "]") {
			return t, fmt.Errorf("type %q: unclosed [", s)
		}
		base = s[:i]
		inner := s[i+1 : len(s)-1]
		switch {
		case inner == "":
			t.Collection = cdr.Sequence
		case strings.HasPrefix(inner, "<="):
			n, err := parseBound(inner[2:])
			if err != nil {
				return t, fmt.Errorf("type %q: %v", s, err)
			}
			t.Collection, t.Len = cdr.Sequence, n
		default:
			n, err := parseBound(inner)
			if err != nil {
				return t, fmt.Errorf("type %q: %v", s, err)
			}
			t.Collection, t.Len = cdr.Array, n
		}
	}
	if b, bound, ok := strings.Cut(base, "<="); ok {
		if b != "string" && b != "wstring" {
			return t, fmt.Errorf("type %q: only strings take a bound", s)
		}
		n, err := parseBound(bound)
		if err != nil {
			return t, fmt.Errorf("type %q: %v", s, err)
		}
		base, t.StringBound = b, n
	}
	if _, ok := primitiveKind(base); ok {
		t.Primitive = base
		return t, nil
	}
	p, name, ok := strings.Cut(base, "/")
	if !ok {
		p, name = pkg, base
	}
	if !validPackage(p) || !validTypeName(name) {
		return t, fmt.Errorf("type %q: want a primitive, Type or package/Type", s)
	}
	t.Package, t.Name = p, name
	return t, nil
}

func parseBound(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > maxLen {
		return 0, fmt.Errorf("bound %q: want a number from 1 to %d", s, maxLen)
	}
	return n, nil
}

// parseValue reads a default or constant value of t: one value for a
// single field, "[a, b]" for an array or sequence.
func parseValue(t TypeRef, s string) (any, error) {
	k, _ := primitiveKind(t.Primitive)
	if t.Collection == cdr.Single {
		if k == cdr.String || k == cdr.WString {
			v, err := unquote(s)
			if err != nil {
				return nil, err
			}
			return v, checkStringBound(t, v)
		}
		return parseScalar(k, s)
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("%q: want [a, b, …]", s)
	}
	items, err := splitList(s[1 : len(s)-1])
	if err != nil {
		return nil, err
	}
	switch {
	case t.Collection == cdr.Array && len(items) != t.Len:
		return nil, fmt.Errorf("%d values for an array of %d", len(items), t.Len)
	case t.Collection == cdr.Sequence && t.Len > 0 && len(items) > t.Len:
		return nil, fmt.Errorf("%d values for a sequence of at most %d", len(items), t.Len)
	}
	vals := make([]any, len(items))
	for i, it := range items {
		if k == cdr.String || k == cdr.WString {
			v, err := unquote(it)
			if err == nil {
				err = checkStringBound(t, v)
			}
			if err != nil {
				return nil, err
			}
			vals[i] = v
			continue
		}
		if vals[i], err = parseScalar(k, it); err != nil {
			return nil, err
		}
	}
	return toSlice(k, vals), nil
}

func checkStringBound(t TypeRef, v string) error {
	if t.StringBound > 0 && len(v) > t.StringBound {
		return fmt.Errorf("%q is longer than %d", v, t.StringBound)
	}
	return nil
}

// splitList splits "a, 'b,c', d" at commas outside quotes.
func splitList(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var items []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == ',':
			items = append(items, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in [%s]", s)
	}
	return append(items, strings.TrimSpace(s[start:])), nil
}

// unquote reads a string value: quoted with ' or " (backslash escapes the
// quote and itself), or bare, taken as written.
func unquote(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("%q: NUL inside a string", s)
	}
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return s, nil
	}
	q := s[0]
	if len(s) < 2 || s[len(s)-1] != q {
		return "", fmt.Errorf("%s: unterminated quote", s)
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\\' && i+1 < len(body) && (body[i+1] == q || body[i+1] == '\\') {
			i++
			c = body[i]
		} else if c == q {
			return "", fmt.Errorf("%s: unescaped quote inside", s)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// parseScalar reads one primitive value in the Go form cdr uses for k.
func parseScalar(k cdr.Kind, s string) (any, error) {
	switch k {
	case cdr.Bool:
		switch strings.ToLower(s) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a bool", s)
	case cdr.Float32:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a float32", s)
		}
		return float32(f), nil
	case cdr.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a float64", s)
		}
		return f, nil
	}
	bits, signed := intBits(k)
	if signed {
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%q is not an int%d", s, bits)
		}
		return narrowInt(k, n), nil
	}
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return nil, fmt.Errorf("%q is not a uint%d", s, bits)
	}
	return narrowUint(k, n), nil
}

func intBits(k cdr.Kind) (bits int, signed bool) {
	switch k {
	case cdr.Int8:
		return 8, true
	case cdr.Int16:
		return 16, true
	case cdr.Int32:
		return 32, true
	case cdr.Int64:
		return 64, true
	case cdr.Uint16:
		return 16, false
	case cdr.Uint32:
		return 32, false
	case cdr.Uint64:
		return 64, false
	}
	return 8, false // byte, char, uint8
}

func narrowInt(k cdr.Kind, n int64) any {
	switch k {
	case cdr.Int8:
		return int8(n)
	case cdr.Int16:
		return int16(n)
	case cdr.Int32:
		return int32(n)
	}
	return n
}

func narrowUint(k cdr.Kind, n uint64) any {
	switch k {
	case cdr.Uint16:
		return uint16(n)
	case cdr.Uint32:
		return uint32(n)
	case cdr.Uint64:
		return n
	}
	return uint8(n)
}

// toSlice turns parsed elements into the typed slice cdr uses for k.
func toSlice(k cdr.Kind, vals []any) any {
	switch k {
	case cdr.Bool:
		return typed[bool](vals)
	case cdr.Byte, cdr.Uint8:
		return typed[uint8](vals)
	case cdr.Int8:
		return typed[int8](vals)
	case cdr.Int16:
		return typed[int16](vals)
	case cdr.Uint16:
		return typed[uint16](vals)
	case cdr.Int32:
		return typed[int32](vals)
	case cdr.Uint32:
		return typed[uint32](vals)
	case cdr.Int64:
		return typed[int64](vals)
	case cdr.Uint64:
		return typed[uint64](vals)
	case cdr.Float32:
		return typed[float32](vals)
	case cdr.Float64:
		return typed[float64](vals)
	}
	return typed[string](vals)
}

func typed[T any](vals []any) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i] = v.(T)
	}
	return out
}

func validPackage(s string) bool {
	return lowerName(s) && len(s) <= math.MaxUint8
}

// validFieldName is rosidl's rule: lower case, digits and _, starting with
// a letter, no "__", not ending in "_".
func validFieldName(s string) bool { return lowerName(s) }

func lowerName(s string) bool { return identifier(s, 'a', 'z') }

// validConstantName is validFieldName in upper case.
func validConstantName(s string) bool { return identifier(s, 'A', 'Z') }

// identifier reports whether s is letters from lo to hi, digits and single
// underscores, starting with a letter and not ending in an underscore.
func identifier(s string, lo, hi byte) bool {
	if s == "" || s[0] < lo || s[0] > hi || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= lo && c <= hi || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func validTypeName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
