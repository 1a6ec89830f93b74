package msgdef

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// corpusDir is where Debian's ros2-test-interface-files puts rosidl's test corpus.
const corpusDir = "/usr/share/test_interface_files"

func TestParseFieldForms(t *testing.T) {
	tests := []struct {
		line string
		want FieldDef
	}{
		{"float64 x", FieldDef{Name: "x", Type: TypeRef{Primitive: "float64"}}},
		{"string<=22 s", FieldDef{Name: "s", Type: TypeRef{Primitive: "string", StringBound: 22}}},
		{"int32[3] a", FieldDef{Name: "a", Type: TypeRef{Primitive: "int32", Collection: cdr.Array, Len: 3}}},
		{"byte[] b", FieldDef{Name: "b", Type: TypeRef{Primitive: "byte", Collection: cdr.Sequence}}},
		{"char[<=4] c", FieldDef{Name: "c", Type: TypeRef{Primitive: "char", Collection: cdr.Sequence, Len: 4}}},
		{"string<=5[<=2] names", FieldDef{Name: "names", Type: TypeRef{Primitive: "string", StringBound: 5, Collection: cdr.Sequence, Len: 2}}},
		{"std_msgs/Header header", FieldDef{Name: "header", Type: TypeRef{Package: "std_msgs", Name: "Header"}}},
		{"Point[] points  # same package", FieldDef{Name: "points", Type: TypeRef{Package: "pkg", Name: "Point", Collection: cdr.Sequence}}},
		{"int8 i -50", FieldDef{Name: "i", Type: TypeRef{Primitive: "int8"}, Default: int8(-50)}},
		{"bool b true", FieldDef{Name: "b", Type: TypeRef{Primitive: "bool"}, Default: true}},
		{"uint64 u 18446744073709551615", FieldDef{Name: "u", Type: TypeRef{Primitive: "uint64"}, Default: uint64(18446744073709551615)}},
		{`string s "a # not a comment"`, FieldDef{Name: "s", Type: TypeRef{Primitive: "string"}, Default: "a # not a comment"}},
		{`string s 'Hello\'world!'`, FieldDef{Name: "s", Type: TypeRef{Primitive: "string"}, Default: "Hello'world!"}},
		{"string s bare words", FieldDef{Name: "s", Type: TypeRef{Primitive: "string"}, Default: "bare words"}},
		{"float32[3] f [1.125, 0.0, -1.125]", FieldDef{Name: "f", Type: TypeRef{Primitive: "float32", Collection: cdr.Array, Len: 3}, Default: []float32{1.125, 0, -1.125}}},
		{`string[] s ["", "a,b", 'c']`, FieldDef{Name: "s", Type: TypeRef{Primitive: "string", Collection: cdr.Sequence}, Default: []string{"", "a,b", "c"}}},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			d, err := ParseMsg("t.msg", "pkg", "T", []byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Line = 1
			if len(d.Fields) != 1 || !reflect.DeepEqual(d.Fields[0], tc.want) {
				t.Fatalf("got %#v", d.Fields)
			}
		})
	}
}

func TestParseConstants(t *testing.T) {
	src := "int32 X=-3\nstring S=\"Hello world!\"\nfloat64 PI = 3.14  # spaces around =\nint32 x\n"
	d, err := ParseMsg("c.msg", "pkg", "C", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Constant{
		{Name: "X", Type: "int32", Value: int32(-3), Line: 1},
		{Name: "S", Type: "string", Value: "Hello world!", Line: 2},
		{Name: "PI", Type: "float64", Value: 3.14, Line: 3},
	}
	if !reflect.DeepEqual(d.Constants, want) || len(d.Fields) != 1 {
		t.Fatalf("constants %#v fields %#v", d.Constants, d.Fields)
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		src, where string
	}{
		{"int32 ok\nfloat65 x", "m.msg:2:"},
		{"int32", "m.msg:1:"},
		{"int32 Bad", "m.msg:1:"},
		{"int32 a__b", "m.msg:1:"},
		{"int32 a_", "m.msg:1:"},
		{"int32 x\nint32 x", "m.msg:2:"},
		{"int8 x 300", "m.msg:1:"},
		{"uint8 x -1", "m.msg:1:"},
		{"int32[2] x [1, 2, 3]", "m.msg:1:"},
		{"int32[<=2] x [1, 2, 3]", "m.msg:1:"},
		{"string<=3 x toolong", "m.msg:1:"},
		{"int32<=3 x", "m.msg:1:"},
		{"int32[0] x", "m.msg:1:"},
		{"int32[99999999999] x", "m.msg:1:"},
		{"int32[3 x", "m.msg:1:"},
		{"int32[] X=1", "m.msg:1:"},
		{"int32 lower=1", "m.msg:1:"},
		{"bool b maybe", "m.msg:1:"},
		{"Header h 1", "m.msg:1:"},
		{"pkg/bad_type x", "m.msg:1:"},
		{`string s "open`, "m.msg:1:"},
		{"int32 a\n---\nint32 b", "m.msg:2:"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			_, err := ParseMsg("m.msg", "pkg", "M", []byte(tc.src))
			if !errors.Is(err, ErrSyntax) || !strings.HasPrefix(err.Error(), tc.where) {
				t.Fatalf("err = %v, want ErrSyntax at %s", err, tc.where)
			}
		})
	}
}

func TestServiceAndActionSplitIntoParts(t *testing.T) {
	req, resp, err := ParseSrv("a.srv", "pkg", "AddTwoInts", []byte("int64 a\nint64 b\n---\nint64 sum\n"))
	if err != nil {
		t.Fatal(err)
	}
	if req.FullName() != "pkg/srv/AddTwoInts_Request" || len(req.Fields) != 2 ||
		resp.FullName() != "pkg/srv/AddTwoInts_Response" || resp.Fields[0].Name != "sum" {
		t.Fatalf("request %+v response %+v", req, resp)
	}
	g, r, f, err := ParseAction("f.action", "pkg", "Fib", []byte("int32 order\n---\nint32[] sequence\n---\nint32[] partial\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "Fib_Goal" || r.Name != "Fib_Result" || f.Name != "Fib_Feedback" || f.Fields[0].Name != "partial" {
		t.Fatalf("%v %v %v", g, r, f)
	}
	if _, _, err := ParseSrv("b.srv", "pkg", "B", []byte("int32 a\n")); !errors.Is(err, ErrSyntax) {
		t.Fatalf("service without ---: %v", err)
	}
	if _, _, _, err := ParseAction("c.action", "pkg", "C", []byte("---\n---\n---\n")); !errors.Is(err, ErrSyntax) {
		t.Fatalf("action with four parts: %v", err)
	}
}

// testRegistry holds the bridge types of testdata.
func testRegistry(t testing.TB) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := r.AddTree("testdata"); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegistryResolvesNestedTypesAcrossPackages(t *testing.T) {
	r := testRegistry(t)
	s, err := r.Struct("trajectory_msgs/JointTrajectory")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "trajectory_msgs/msg/JointTrajectory" || s.NumField() != 3 {
		t.Fatalf("struct %s with %d fields", s.Name(), s.NumField())
	}
	pts := s.Field(2).Type
	if pts.Kind != cdr.StructKind || pts.Collection != cdr.Sequence || pts.Struct.Name() != "trajectory_msgs/msg/JointTrajectoryPoint" {
		t.Fatalf("points: %+v", pts)
	}
	tfs := pts.Struct.Field(4).Type.Struct
	if tfs.Name() != "builtin_interfaces/msg/Duration" {
		t.Fatalf("time_from_start: %s", tfs.Name())
	}
	hdr := s.Field(0).Type.Struct
	if again, _ := r.Struct("std_msgs/msg/Header"); again != hdr {
		t.Fatal("Header resolved twice into different structs")
	}
}

func TestRegistryReportsUnknownTypesAndCycles(t *testing.T) {
	r := NewRegistry()
	a, _ := ParseMsg("A.msg", "p", "A", []byte("B b"))
	b, _ := ParseMsg("B.msg", "p", "B", []byte("A[] a"))
	c, _ := ParseMsg("C.msg", "p", "C", []byte("int32 x\nq/Missing m"))
	if err := r.Add(a, b, c); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Struct("p/A"); !errors.Is(err, ErrCycle) {
		t.Fatalf("cycle: %v", err)
	}
	_, err := r.Struct("p/C")
	if !errors.Is(err, ErrUnknownType) || !strings.Contains(err.Error(), "C.msg:2") {
		t.Fatalf("unknown: %v", err)
	}
	if err := r.Add(a); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestEmptyMessageGetsOneByteDummyField(t *testing.T) {
	r := NewRegistry()
	e, _ := ParseMsg("Empty.msg", "p", "Empty", []byte("# nothing\n"))
	_ = r.Add(e)
	m, err := r.Message("p/Empty")
	if err != nil {
		t.Fatal(err)
	}
	b, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil || string(b) != "\x00\x01\x00\x00\x00" {
		t.Fatalf("encoded %x, %v", b, err)
	}
	if m.Type.Field(0).Name != DummyField {
		t.Fatalf("field %q", m.Type.Field(0).Name)
	}
}

func TestMessageStartsFromDefaultsWithoutSharingThem(t *testing.T) {
	r := NewRegistry()
	d, _ := ParseMsg("D.msg", "p", "D", []byte("int32[2] a [5, -6]\nstring s 'x'\nInner in\n"))
	in, _ := ParseMsg("Inner.msg", "p", "Inner", []byte("float64 f 1.5\n"))
	_ = r.Add(d, in)
	m, err := r.Message("p/D")
	if err != nil {
		t.Fatal(err)
	}
	got := string(m.AppendJSON(nil))
	if got != `{"a":[5,-6],"s":"x","in":{"f":1.5}}` {
		t.Fatalf("got %s", got)
	}
	m.Fields[0].([]int32)[0] = 99
	m2, _ := r.Message("p/D")
	if m2.Fields[0].([]int32)[0] != 5 {
		t.Fatal("a message shares its default slice with the definition")
	}
}

// TestCorpusParsesAndResolves reads rosidl's own test corpus, the richest
// set of .msg forms there is (from Debian's ros2-test-interface-files).
func TestCorpusParsesAndResolves(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		if os.Getenv("ACTBRIDGE_REQUIRE_DDS_PEERS") != "" {
			t.Fatalf("%s missing (Debian package ros2-test-interface-files): %v", corpusDir, err)
		}
		t.Skipf("%s missing: install ros2-test-interface-files", corpusDir)
	}
	r := testRegistry(t) // the derived action types nest UUID and Time
	if err := r.AddPackage("test_interface_files", corpusDir); err != nil {
		t.Fatal(err)
	}
	var corpus []string
	for _, n := range r.Names() {
		if strings.HasPrefix(n, "test_interface_files/") {
			corpus = append(corpus, n)
		}
	}
	// 12 messages, 3 services of 2 parts, 1 action of 3 parts and 5 derived types.
	if len(corpus) != 12+2*3+3+5 {
		t.Fatalf("%d definitions: %v", len(corpus), corpus)
	}
	for _, n := range corpus {
		m, err := r.Message(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if _, err := cdr.Encode(m, cdr.LittleEndian); err != nil {
			t.Fatalf("%s defaults do not encode: %v", n, err)
		}
	}
	strs := r.Definition("test_interface_files/msg/Strings")
	if got := strs.Fields[5].Default; got != `Hello"world!` {
		t.Fatalf("string_value_default5 = %q", got)
	}
	if c := strs.Constants[0]; c.Name != "STRING_CONST" || c.Value != "Hello world!" {
		t.Fatalf("constant %+v", c)
	}
}
