package ddspeers

import (
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// cTypes writes the C that cycpeer.c includes after idlc's header: one
// reader per struct, filling a sample from tokens (see appendTokens), and
// the table of types the peer knows.
func cTypes(roots []*cdr.Struct) (string, error) {
	var b strings.Builder
	all := ordered(roots)
	for _, s := range all {
		fmt.Fprintf(&b, "static void rd_%s(%s *s);\n", cName(s.Name()), cName(s.Name()))
	}
	for _, s := range all {
		fmt.Fprintf(&b, "\nstatic void rd_%s(%s *s)\n{\n", cName(s.Name()), cName(s.Name()))
		for i := range s.NumField() {
			f := s.Field(i)
			lv := "s->" + f.Name
			switch f.Type.Collection {
			case cdr.Array:
				fmt.Fprintf(&b, "  rd_len(%d, %q);\n  for (uint32_t i = 0; i < %d; i++) { %s }\n", f.Type.Len, f.Name, f.Type.Len, cElem(f.Type, lv+"[i]"))
			case cdr.Sequence:
				fmt.Fprintf(&b, "  { uint32_t n = rd_len(%d, %q);\n    %s._length = %s._maximum = n; %s._release = true;\n    %s._buffer = calloc(n ? n : 1, sizeof *%s._buffer);\n    for (uint32_t i = 0; i < n; i++) { %s } }\n",
					-f.Type.Len, f.Name, lv, lv, lv, lv, lv, cElem(f.Type, lv+"._buffer[i]"))
			default:
				fmt.Fprintf(&b, "  %s\n", cElem(f.Type, lv))
			}
		}
		b.WriteString("}\n")
	}
	b.WriteString("\nstatic const struct peer_type peer_types[] = {\n")
	for _, s := range roots {
		c := cName(s.Name())
		fmt.Fprintf(&b, "  { %q, %q, &%s_desc, sizeof (%s), (void (*)(void *)) rd_%s },\n", s.Name(), DDSTypeName(s.Name()), c, c, c)
	}
	b.WriteString("  { NULL, NULL, NULL, 0, NULL }\n};\n")
	return b.String(), nil
}

// cElem is the statement reading one element into the lvalue lv.
func cElem(t cdr.Type, lv string) string {
	switch t.Kind {
	case cdr.Bool:
		return lv + " = rd_u() != 0;"
	case cdr.Float32:
		return lv + " = (float) rd_f();"
	case cdr.Float64:
		return lv + " = rd_f();"
	case cdr.Int8, cdr.Int16, cdr.Int32, cdr.Int64:
		return fmt.Sprintf("%s = (%s_t) rd_i();", lv, t.Kind)
	case cdr.String:
		if t.StringBound > 0 {
			return fmt.Sprintf("rd_bstr(%s, sizeof %s);", lv, lv)
		}
		return lv + " = rd_str();"
	case cdr.StructKind:
		return fmt.Sprintf("rd_%s(&%s);", cName(t.Struct.Name()), lv)
	}
	return fmt.Sprintf("%s = (uint%d_t) rd_u();", lv, 8*kindSize(t.Kind))
}

func kindSize(k cdr.Kind) int {
	switch k {
	case cdr.Uint16:
		return 2
	case cdr.Uint32:
		return 4
	case cdr.Uint64:
		return 8
	}
	return 1 // byte, char, uint8
}
