package bridge

import (
	"encoding/json"
	"strings"
	"testing"
)

func testSchema() *Schema {
	return Object("", map[string]*Schema{
		"mode":   Enum("Mode. Default fast.", "fast", "slow"),
		"speed":  Num("Speed. Default 0.5.", 0, 1),
		"count":  Integer("Count. Default 1.", 1, 10),
		"name":   {Type: "string", Description: "Name.", MaxLength: Int(8), Pattern: `^[a-z_]+$`},
		"flags":  Array("Flags. Default none.", Bool("A flag."), 2),
		"joints": {Type: "object", Description: "Joint targets.", Additional: Num("Target.", -3, 3)},
	}, "name")
}

func TestSchemaErrorsNameFieldExpectedAndActual(t *testing.T) {
	cases := []struct {
		name, args, field, expected, actual string
	}{
		{"missing required", `{}`, "name", "string matching ^[a-z_]+$", "missing"},
		{"unknown field", `{"name":"a","colour":1}`, "colour", "one of: count, flags, joints, mode, name, speed", `"colour"`},
		{"enum", `{"name":"a","mode":"warp"}`, "mode", "one of: fast, slow", `"warp"`},
		{"range", `{"name":"a","speed":1.5}`, "speed", "number in [0, 1]", "1.5"},
		{"integer", `{"name":"a","count":2.5}`, "count", "integer in [1, 10]", "2.5"},
		{"type", `{"name":"a","speed":"fast"}`, "speed", "number in [0, 1]", `string "fast"`},
		{"pattern", `{"name":"A!"}`, "name", "string matching ^[a-z_]+$", `"A!"`},
		{"array size", `{"name":"a","flags":[true,false,true]}`, "flags", "at most 2 items", "3 items"},
		{"array item", `{"name":"a","flags":[1]}`, "flags[0]", "boolean", "number 1"},
		{"map value", `{"name":"a","joints":{"j1":9}}`, "joints.j1", "number in [-3, 3]", "9"},
		{"not object", `[1]`, "(arguments)", "object", "array of 1 items"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, derr := DecodeArgs([]byte(c.args))
			var e *Error
			if derr != nil {
				e = derr
			} else {
				e = testSchema().Validate(v)
			}
			if e == nil {
				t.Fatal("accepted invalid arguments")
			}
			if e.Code != CodeInvalidArgument || !e.Retryable || e.Layer() != LayerSchema {
				t.Fatalf("code %s retryable %v layer %s", e.Code, e.Retryable, e.Layer())
			}
			if e.Field != c.field || e.Expected != c.expected || e.Actual != c.actual {
				t.Fatalf("got field=%q expected=%q actual=%q", e.Field, e.Expected, e.Actual)
			}
		})
	}
}

func TestSchemaAcceptsValidArguments(t *testing.T) {
	v, derr := DecodeArgs([]byte(`{"name":"ok","mode":"slow","speed":0.25,"count":3,"flags":[true],"joints":{"j1":-1}}`))
	if derr != nil {
		t.Fatal(derr)
	}
	if e := testSchema().Validate(v); e != nil {
		t.Fatal(e)
	}
}

func TestDecoderRefusesHostileInput(t *testing.T) {
	cases := map[string]string{
		"deep nesting":  strings.Repeat("[", 40) + strings.Repeat("]", 40),
		"duplicate key": `{"a":1,"a":2}`,
		"trailing":      `{"a":1} {"b":2}`,
		"bad json":      `{"a":`,
		"huge":          `{"a":"` + strings.Repeat("x", maxArgBytes) + `"}`,
		"NaN literal":   `{"a":NaN}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, e := DecodeArgs([]byte(in)); e == nil || e.Code != CodeInvalidArgument {
				t.Fatalf("got %v", e)
			}
		})
	}
}

func TestHugeNumbersAreNotFinite(t *testing.T) {
	v, _ := DecodeArgs([]byte(`{"name":"a","speed":1e999}`))
	e := testSchema().Validate(v)
	if e == nil || e.Field != "speed" {
		t.Fatalf("got %v", e)
	}
}

func FuzzDecodeAndValidate(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"a"}`, `{"joints":{"é":1e308}}`, `[[[[]]]]`, `{"flags":[true,1,"x"]}`, `{"speed":-0}`} {
		f.Add([]byte(s))
	}
	s := testSchema()
	f.Fuzz(func(t *testing.T, b []byte) {
		v, e := DecodeArgs(b)
		if e != nil {
			if e.Code != CodeInvalidArgument {
				t.Fatalf("decode error with code %s", e.Code)
			}
			return
		}
		if e := s.Validate(v); e != nil && (e.Code != CodeInvalidArgument || e.Field == "") {
			t.Fatalf("validation error without field: %+v", e)
		}
		_ = canonicalJSON(v)
	})
}

func TestDropNullOptionalsFollowsTheSchema(t *testing.T) {
	inner := Object("", map[string]*Schema{"a": Bool("a"), "b": Bool("b")}, "a")
	s := Object("", map[string]*Schema{
		"o":    inner,
		"list": {Type: "array", Items: inner},
		"x":    Bool("x"),
		"u":    {AnyOf: []*Schema{Bool("u"), inner}},
	}, "o")
	cases := []struct{ in, want string }{
		{`{"x":null}`, `{}`},
		{`{"o":null}`, `{"o":null}`}, // required: left for Validate to refuse
		{`{"o":{"a":null,"b":null}}`, `{"o":{"a":null}}`},
		{`{"list":[{"a":true,"b":null},{"b":null}]}`, `{"list":[{"a":true},{}]}`},
		{`{"u":{"a":true,"b":null}}`, `{"u":{"a":true}}`}, // anyOf: the object alternative's
		{`{"u":null}`, `{}`},
		{`{"zz":null}`, `{"zz":null}`}, // unknown: refused by Validate
	}
	for _, c := range cases {
		v, derr := DecodeArgs([]byte(c.in))
		if derr != nil {
			t.Fatal(derr)
		}
		s.DropNullOptionals(v)
		if got, _ := json.Marshal(v); string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}
