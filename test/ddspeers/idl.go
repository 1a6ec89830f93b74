package ddspeers

import (
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// ordered returns the structs and every struct they nest, each once, a
// nested type before the types that use it (as IDL needs).
func ordered(roots []*cdr.Struct) []*cdr.Struct {
	var out []*cdr.Struct
	seen := map[*cdr.Struct]bool{}
	var visit func(s *cdr.Struct)
	visit = func(s *cdr.Struct) {
		if seen[s] {
			return
		}
		seen[s] = true
		for i := range s.NumField() {
			if n := s.Field(i).Type.Struct; n != nil {
				visit(n)
			}
		}
		out = append(out, s)
	}
	for _, s := range roots {
		visit(s)
	}
	return out
}

// IDL writes the structs and the structs they nest as the DDS IDL rmw's
// type names imply, one module block per struct (IDL lets modules reopen).
func IDL(roots []*cdr.Struct) (string, error) {
	var b strings.Builder
	for _, s := range ordered(roots) {
		pkg, ns, name, err := splitName(s.Name())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "module %s { module %s { module dds_ {\nstruct %s_ {\n", pkg, ns, name)
		for i := range s.NumField() {
			f := s.Field(i)
			// A leading _ escapes a keyword in IDL, so that a field named
			// "sequence" (Fibonacci's) keeps its name in C and C++.
			if idlKeyword(f.Name) {
				f.Name = "_" + f.Name
			}
			elem, err := idlElem(f.Type)
			if err != nil {
				return "", fmt.Errorf("ddspeers: %s.%s: %w", s.Name(), f.Name, err)
			}
			switch {
			case f.Type.Collection == cdr.Array:
				fmt.Fprintf(&b, "  %s %s[%d];\n", elem, f.Name, f.Type.Len)
			case f.Type.Collection == cdr.Sequence && f.Type.Len > 0:
				fmt.Fprintf(&b, "  sequence<%s, %d> %s;\n", elem, f.Type.Len, f.Name)
			case f.Type.Collection == cdr.Sequence:
				fmt.Fprintf(&b, "  sequence<%s> %s;\n", elem, f.Name)
			default:
				fmt.Fprintf(&b, "  %s %s;\n", elem, f.Name)
			}
		}
		b.WriteString("};\n}; }; };\n")
	}
	return b.String(), nil
}

func idlElem(t cdr.Type) (string, error) {
	switch t.Kind {
	case cdr.Bool:
		return "boolean", nil
	case cdr.Byte:
		return "octet", nil
	case cdr.Char:
		return "char", nil
	case cdr.Float32:
		return "float", nil
	case cdr.Float64:
		return "double", nil
	case cdr.String:
		if t.StringBound > 0 {
			return fmt.Sprintf("string<%d>", t.StringBound), nil
		}
		return "string", nil
	case cdr.WString:
		return "", fmt.Errorf("wstring: the peers do not carry wide strings")
	case cdr.StructKind:
		return DDSTypeName(t.Struct.Name()), nil
	}
	return t.Kind.String(), nil // int8 … uint64 are IDL 4 names too
}

// idlKeyword reports whether a (lower case) field name is an IDL 4 keyword.
func idlKeyword(name string) bool {
	switch name {
	case "abstract", "any", "alias", "attribute", "bitfield", "bitmask", "bitset",
		"boolean", "case", "char", "component", "connector", "const", "consumes",
		"context", "custom", "default", "double", "exception", "emits", "enum",
		"eventtype", "factory", "false", "finder", "fixed", "float", "getraises",
		"getter", "home", "import", "in", "inout", "interface", "local", "long",
		"manages", "map", "mirrorport", "module", "multiple", "native", "object",
		"octet", "oneway", "out", "primarykey", "private", "port", "porttype",
		"provides", "public", "publishes", "raises", "readonly", "setraises",
		"setter", "sequence", "short", "string", "struct", "supports", "switch",
		"true", "truncatable", "typedef", "typeid", "typename", "typeprefix",
		"unsigned", "union", "uses", "valuebase", "valuetype", "void", "wchar",
		"wstring", "int8", "uint8", "int16", "int32", "int64", "uint16",
		"uint32", "uint64":
		return true
	}
	return false
}
