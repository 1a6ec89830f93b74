package msgdef

import (
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// FuzzParseMsg feeds arbitrary text to the parser: it must never panic,
// and whatever it accepts (nested types aside) must resolve into a type
// whose default value encodes.
func FuzzParseMsg(f *testing.F) {
	for _, s := range []string{
		"int32 x\n", "string<=3[<=2] s ['a', \"b\"]\n", "float64[3] f [1, 2.5, -3]\n",
		"uint8 C=7\nbyte[] data\n", "Point[] p\npkg/Other o\n", "# only a comment\n",
		"wstring w \"ハロー\"\nbool[2] b [true, false]\n", "int32 a\n---\nint32 b\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := ParseMsg("f.msg", "pkg", "F", []byte(src))
		if err != nil {
			return
		}
		for _, fd := range d.Fields {
			if fd.Type.Primitive == "" {
				return
			}
		}
		r := NewRegistry()
		if err := r.Add(d); err != nil {
			t.Fatal(err)
		}
		m, err := r.Message("pkg/F")
		if err != nil {
			t.Fatalf("accepted definition does not resolve: %v", err)
		}
		if _, err := cdr.Encode(m, cdr.BigEndian); err != nil {
			t.Fatalf("defaults of an accepted definition do not encode: %v", err)
		}
	})
}
