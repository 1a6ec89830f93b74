package ddspeers

import (
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// cppTypes writes the two files fastpeer.cpp includes: a header declaring
// one reader per struct (read before the generic readers, which call
// them), and their definitions with the table of types the peer knows.
// idlBase is the base name of the IDL fastddsgen read.
func cppTypes(roots []*cdr.Struct, idlBase string) (header, body string) {
	var h, b strings.Builder
	// fastddsgen 4 (Fast DDS 3) names its headers .hpp, fastddsgen 2 .h.
	fmt.Fprintf(&h, "#if FASTDDS3\n#include \"%[1]s.hpp\"\n#include \"%[1]sPubSubTypes.hpp\"\n#else\n#include \"%[1]s.h\"\n#include \"%[1]sPubSubTypes.h\"\n#endif\n", idlBase)
	for _, s := range ordered(roots) {
		cls := DDSTypeName(s.Name())
		fmt.Fprintf(&h, "static void rd(%s &s);\n", cls)
		fmt.Fprintf(&b, "\nstatic void rd(%s &s)\n{\n", cls)
		for i := range s.NumField() {
			f := s.Field(i)
			switch f.Type.Collection {
			case cdr.Array:
				fmt.Fprintf(&b, "  rd_len(%d, %q);\n", f.Type.Len, f.Name)
			case cdr.Sequence:
				fmt.Fprintf(&b, "  s.%s().resize(rd_len(%d, %q));\n", f.Name, -f.Type.Len, f.Name)
			}
			fmt.Fprintf(&b, "  rd(s.%s());\n", f.Name)
		}
		b.WriteString("}\n")
	}
	b.WriteString("\nstatic const PeerType peer_types[] = {\n")
	for _, s := range roots {
		cls := DDSTypeName(s.Name())
		fmt.Fprintf(&b, "  { %q, %q, &dump_sample<%s>, &make_type<%sPubSubType>, &read_sample<%s>, &write_sample<%s>, &free_sample<%s>, &take_sample<%s> },\n",
			s.Name(), cls, cls, cls, cls, cls, cls, cls)
	}
	b.WriteString("};\n")
	return h.String(), b.String()
}
