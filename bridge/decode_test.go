package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestArgsDigestsDoNotChange pins args digests computed before DecodeArgs
// had its own parser: motion ids are derived from these bytes and stored.
func TestArgsDigestsDoNotChange(t *testing.T) {
	cases := []struct{ name, args, digest string }{
		{"empty", `{}`, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		{"trajectory spellings", `{"joints":["j1_shoulder_pan","j4_elbow"],"points":[{"positions":[0.1,-0.25],"velocities":[0,0.5e-1],"time_from_start":1.0},{"positions":[1e-7,3.14159265358979323846],"accelerations":[-0,1E2],"time_from_start":2}]}`,
			"cc25ec928814f59c854bf0dd5ac17c6280c4e56a9d2908eed668a828af7d448b"},
		{"joint move", `{"positions":{"j1":0.5,"j2":-1.25},"duration_s":3,"speed_fraction":1.0}`, "370a77ea38da66cde842490568ad86666532008eb34eed0084df375329dec7f9"},
		{"number edges", `{"big":12345678901234567890123,"huge":1e400,"tiny":1e-400,"exp":1e22,"neg":-0.0,"int":100e-2}`,
			"579ce17a467d64864c8a511350e5fa78e2b59aa18e60b3caa5936bd8009689c2"},
		{"string edges", `{"s":"\u0041\u00e9\/<&>\t\n\u0001 \ud83d\ude00 \ud800x","k\u0062":"é日本","bad":"` + "\xff\xfe" + `","nested":{"b":[true,false,null,[],{}],"a":"z"}}`,
			"484a0b0ab4dd311d6c4998b86bf8306651d110fbba223821097922d440e3372e"},
		{"escaped quotes", `{"reason":"operator said \"stop\" \\ now","idempotency_key":"step-1","scale":0.25}`,
			"abc7f7fff25867bd207254e94ca0af6ed7e25574adbfd8b70dfd5be8310c5777"},
		{"1000 waypoints", string(trajectoryArgs7(1000)), "966a2642c317357234d84ed17aaaf3b251ce4a44411f52a964094394eda7a991"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, e := DecodeArgs([]byte(tc.args))
			if e != nil {
				t.Fatal(e)
			}
			if got := Digest(canonicalJSON(v)); got != tc.digest {
				t.Errorf("canonicalJSON digest %s, pinned %s", got, tc.digest)
			}
			if got := Digest(canonicalArgs(v)); got != tc.digest {
				t.Errorf("canonicalArgs digest %s, pinned %s", got, tc.digest)
			}
		})
	}
}

// decodesAsEncodingJSON fails unless DecodeArgs accepts exactly the single
// JSON objects without duplicate keys or nesting past maxDepth, and then
// yields the values encoding/json yields (numbers as json.Number), and
// unless its parser refuses bad JSON where encoding/json does, in the same
// words.
func decodesAsEncodingJSON(t *testing.T, raw []byte) {
	t.Helper()
	got, gotErr := DecodeArgs(raw)
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		if gotErr != nil || len(got) != 0 {
			t.Fatalf("DecodeArgs(%q) = %v, %v; want no arguments", raw, got, gotErr)
		}
		return
	}
	refusesWhereEncodingJSONDoes(t, trimmed)
	var want any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	jsonErr := dec.Decode(&want)
	if jsonErr == nil && dec.More() {
		jsonErr = errors.New("trailing data")
	}
	if jsonErr == nil {
		var rest json.RawMessage
		if dec.Decode(&rest) != io.EOF {
			jsonErr = errors.New("trailing data")
		}
	}
	_, isObject := want.(map[string]any)
	if jsonErr != nil || !isObject || len(trimmed) > maxArgBytes {
		if gotErr == nil {
			t.Fatalf("DecodeArgs(%q) accepted what encoding/json refuses (%v) or is not an object", raw, jsonErr)
		}
		if gotErr.Code != CodeInvalidArgument || gotErr.Field != "(arguments)" || gotErr.Expected == "" || gotErr.Actual == "" {
			t.Fatalf("DecodeArgs(%q) refused without saying why: %+v", raw, gotErr)
		}
		return
	}
	if gotErr != nil {
		// Only the two properties the parser adds may refuse it.
		if !strings.Contains(gotErr.Actual, "duplicate key") && !strings.Contains(gotErr.Actual, "nesting deeper") {
			t.Fatalf("DecodeArgs(%q) refused valid JSON: %+v", raw, gotErr)
		}
		return
	}
	if !reflect.DeepEqual(any(got), want) {
		t.Fatalf("DecodeArgs(%q) = %#v; encoding/json: %#v", raw, got, want)
	}
}

// refusesWhereEncodingJSONDoes fails unless a syntax error from the
// parser is json.Unmarshal's, message and offset, and trailing data is
// found where json.Unmarshal finds it.
func refusesWhereEncodingJSONDoes(t *testing.T, data []byte) {
	t.Helper()
	p := argsParser{data: data}
	_, err := p.value(0)
	var want *json.SyntaxError
	jsonErr := json.Unmarshal(data, new(json.RawMessage)) // syntax errors only
	errors.As(jsonErr, &want)
	var got *argsSyntaxError
	p.skipSpace()
	switch {
	case errors.As(err, &got):
		if want == nil || got.msg != want.Error() || int64(got.offset) != want.Offset {
			t.Fatalf("parser refused %q with %q at %d; json.Unmarshal: %v", data, got.msg, got.offset, jsonErr)
		}
	case err != nil: // duplicate key or too deep: encoding/json has no such rule
	case p.pos < len(data):
		if want == nil || !strings.HasSuffix(want.Error(), "after top-level value") || want.Offset != int64(p.pos+1) {
			t.Fatalf("parser found trailing data in %q at %d; json.Unmarshal: %v", data, p.pos, jsonErr)
		}
	case jsonErr != nil:
		t.Fatalf("parser accepted %q; json.Unmarshal: %v", data, jsonErr)
	}
}

var decodeSeeds = []string{
	`{}`, ` {"a" : [ 1 , 2.5e-3 , -0 , "x" ] , "b" : { } } `, `{"a":[],"b":{},"c":null,"d":true,"e":false}`,
	`{"n":[0,-0,0.0,1e400,-1E-400,12345678901234567890123,1.5e+3,0.1]}`,
	`{"s":"plain","u":"\u00e9\ud83d\ude00\ud800\udc00\ud800","esc":"\"\\\/\b\f\n\r\t","raw":"é日本"}`,
	"{\"bad\":\"\xff\xfe\",\"ok\":\"\xc3\xa9\"}", `{"a\u0000b":1}`, `{"\u0061":1,"a":2}`,
	`{"a":1,"a":2}`, `{"a":1} {"b":2}`, `{"a":1}x`, `{"a":`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1,}`, `[1,]`, `[1 2]`,
	`{,}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":NaN}`, `{"a":tru}`, `{"a":nul}`,
	`{"a":truex}`, "{\"a\":\"tab\there\"}", `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{1:2}`, `{"a":1]`, `[1}`,
	`[1]`, `"x"`, `3`, `null`, ``, `  `, "\u00a0{}\u00a0", "{}\x00",
	nested(32, "1"), nested(33, "1"), nested(32, "[]"), nested(33, "{}"), nested(40, ""),
	`{"a":"` + strings.Repeat("x", maxArgBytes) + `"}`,
	// Escapes and surrogates, as encoding/json's unquote treats them.
	`{"s":"\ud83d\ude00 \uDBFF\uDFFF \ude00\ud83d \ud83d\u0041 \ud83d\ud83d\ude00 \ud83dx \ud83d"}`,
	`{"s":"\u0000\u001f\u007f\u00FF\uFFFF\uFFFE\u2028"}`, `{"s":"\ud800\u12"}`, `{"s":"\ud800\"}`, `{"s":"\ud800\\"}`,
	`{"s":"\'"}`, `{"s":"\a"}`, `{"s":"\U0041"}`, `{"s":"\`, `{"s":"\u00`, `{"s":"abc`, `{"s":"\/\/"}`,
	// Invalid UTF-8: each bad byte becomes U+FFFD, valid runes stay.
	"{\"s\":\"\xc3\"}", "{\"s\":\"\xc3\x28\"}", "{\"s\":\"\xe2\x82\"}", "{\"s\":\"\xed\xa0\x80\"}",
	"{\"s\":\"\xf4\x90\x80\x80\"}", "{\"s\":\"\xc0\xaf\"}", "{\"s\":\"\x80\\n\"}", "{\"s\":\"\xf0\x9f\x98\x80\"}",
	"{\"s\":\"a\x1fb\"}", "{\"s\":\"a\x7fb\"}", "{\"s\":\"\xff\\u0041\xfe\"}",
	// Duplicate keys, as the keys read after unescaping.
	`{"a":1,"b":{"a":2}}`, `{"b":{"a":1,"a":2}}`, `{"ab":1,"a\u0062":2}`, `{"\ud800":1,"\ufffd":2}`,
	"{\"\xff\":1,\"\\ufffd\":2}", `{"\ud800":1,"\udc00":2}`, `{"\/":1,"/":2}`, `{"a":1,"a ":2}`, `{"":1,"":2}`,
	// Numbers: encoding/json's grammar, kept as spelt.
	`{"n":[-0,-0.0,0e0,-0E-0,1E+2,1e-2,-1e400,1e-400,123456789012345678901234567890,0.1e1,2.50,100]}`,
	`{"n":-01}`, `{"n":-}`, `{"n":--1}`, `{"n":1e+}`, `{"n":1.e1}`, `{"n":0x1}`, `{"n":1.5e}`, `{"n":Infinity}`,
	`{"n":-Infinity}`, `{"n":1_000}`, `{"n":1}`, `{"n":-1`, `{"n":1.5`, `{"n":1e5`, `{"n":0`,
	// Literals and whitespace.
	`{"a":tRue}`, `{"a":fals}`, `{"a":nulll}`, `{"a":f`, `{"a":n}`, "{\t\"a\"\n:\r1 ,\"b\" :[ ] }\n\n",
	"{\f}", "{\v}", "{\"a\"\u00a0:1}", "{\"a\":1\u00a0}", "\r\n\t{\"a\":[\r\n1\t]}\t\r\n", `{`, `{"a"`, `{"a":1,`, `{"a":[`,
	// Nesting at the bound and one past, objects and arrays mixed.
	nestedObject(32, "1"), nestedObject(33, "1"), `{"a":` + nested(31, "1") + `}`, `{"a":` + nested(32, "1") + `}`,
	`{"a":` + nested(32, "") + `}`, nestedObject(33, "x"), nested(33, "x"),
}

// nestedObject puts inner at depth n under objects with key "a".
func nestedObject(n int, inner string) string {
	return strings.Repeat(`{"a":`, n) + inner + strings.Repeat("}", n)
}

// nested puts inner at depth n (the outermost array is depth 0).
func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// TestDecodeArgsRefusalsSayWhy pins the refusals encoding/json has no
// rule for (duplicate keys after unescaping, depth past maxDepth, trailing
// data, size, not an object) and the structured form every refusal takes.
func TestDecodeArgsRefusalsSayWhy(t *testing.T) {
	cases := []struct{ name, args, expected, actual string }{
		{"duplicate key", `{"a":1,"a":2}`, "a JSON object", `invalid JSON: duplicate key "a"`},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`, "a JSON object", `invalid JSON: duplicate key "a"`},
		{"duplicate replacement rune", "{\"\xff\":1,\"\\udc00\":2}", "a JSON object", "invalid JSON: duplicate key \"\ufffd\""},
		{"duplicate nested", `{"p":[{"x":1,"y":2,"x":3}]}`, "a JSON object", `invalid JSON: duplicate key "x"`},
		{"duplicate before a syntax error", `{"a":1,"a":x}`, "a JSON object", `invalid JSON: duplicate key "a"`},
		{"array one past the bound", `{"a":` + nested(32, "1") + `}`, "a JSON object", "invalid JSON: nesting deeper than 32 levels"},
		{"object one past the bound", nestedObject(33, "1"), "a JSON object", "invalid JSON: nesting deeper than 32 levels"},
		{"deep before a syntax error", nestedObject(33, "x"), "a JSON object", "invalid JSON: nesting deeper than 32 levels"},
		{"syntax", `{"a":01}`, "a JSON object", "invalid JSON: invalid character '1' after object key:value pair at offset 7"},
		{"end of input", `{"a":[1,`, "a JSON object", "invalid JSON: unexpected end of JSON input at offset 8"},
		{"trailing value", `{"a":1} {"b":2}`, "a single JSON object", "trailing data"},
		{"trailing byte", "{}\x00", "a single JSON object", "trailing data"},
		{"array", `[{"a":1}]`, "object", "array of 1 items"},
		{"too large", `{"a":"` + strings.Repeat("x", maxArgBytes) + `"}`, fmt.Sprintf("at most %d bytes", maxArgBytes), fmt.Sprintf("%d bytes", maxArgBytes+8)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, e := DecodeArgs([]byte(tc.args))
			if e == nil {
				t.Fatalf("accepted: %v", v)
			}
			if e.Code != CodeInvalidArgument || e.Field != "(arguments)" || e.Expected != tc.expected || e.Actual != tc.actual || e.Message == "" {
				t.Fatalf("got %+v", e)
			}
		})
	}
}

// TestDecodeArgsAcceptsNestingAtTheBound is the other side of the depth
// refusal: values at depth maxDepth are read.
func TestDecodeArgsAcceptsNestingAtTheBound(t *testing.T) {
	for _, args := range []string{nestedObject(32, "1"), `{"a":` + nested(31, "1") + `}`, `{"a":` + nested(32, "") + `}`} {
		if _, e := DecodeArgs([]byte(args)); e != nil {
			t.Errorf("DecodeArgs(%.40q…) = %+v", args, e)
		}
	}
}

func TestDecodeArgsAgreesWithEncodingJSON(t *testing.T) {
	// Besides the seeds: numbers across many of the parser's copies of the
	// body, and literals longer than one copy.
	long := "1" + strings.Repeat("0", 3*textChunk)
	// The first copy starts at the 1 (offset 6); 123456 starts 2 bytes
	// before that copy ends.
	across := `{"a":[1,"` + strings.Repeat("x", textChunk-7) + `",123456]}`
	big := []string{across, string(trajectoryArgs7(1000)), `{"n":` + long + `}`, `{"n":[` + long + `,-` + long + `.5e-` + long + `]}`}
	for _, s := range append(decodeSeeds, big...) {
		decodesAsEncodingJSON(t, []byte(s))
	}
}

func FuzzDecodeArgsAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { decodesAsEncodingJSON(t, raw) })
}

func FuzzCanonicalArgsWritesCanonicalJSON(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"n":[1000000,999999,100000.5,0.0001,0.00001,123456.789012345,123456.7890123456,-0.5,1e5,2.50]}`,
		`{"s":"<&>\u2028\u2029\u007f\u0000","k":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, e := DecodeArgs(raw)
		if e != nil {
			return
		}
		if got, want := canonicalArgs(v), canonicalJSON(v); !bytes.Equal(got, want) {
			t.Fatalf("canonicalArgs(%q) = %s; canonicalJSON: %s", raw, got, want)
		}
	})
}

// TestTrajectoryInputAsJSONDecodeReadsIt checks arm_follow_trajectory's
// input read from the values equals what decoding the canonical arguments
// gave: same floats bit for bit, absent arrays nil, empty ones empty.
func TestTrajectoryInputAsJSONDecodeReadsIt(t *testing.T) {
	for _, args := range []string{
		string(trajectoryArgs7(30)),
		`{"joints":["j2","j1"],"points":[{"positions":[1e-400,-0],"time_from_start":0.5},{"positions":[0.1,2],"velocities":[],"accelerations":[1.5,-2.25e1],"time_from_start":1e0}]}`,
	} {
		v, e := DecodeArgs([]byte(args))
		if e != nil {
			t.Fatal(e)
		}
		var tagged struct {
			Joints []string `json:"joints"`
			Points []struct {
				Positions     []float64 `json:"positions"`
				Velocities    []float64 `json:"velocities"`
				Accelerations []float64 `json:"accelerations"`
				Time          float64   `json:"time_from_start"`
			} `json:"points"`
		}
		if err := (&Call{Args: canonicalJSON(v)}).Decode(&tagged); err != nil {
			t.Fatal(err)
		}
		want := trajectoryInput{Joints: tagged.Joints}
		for _, p := range tagged.Points {
			want.Points = append(want.Points, trajectoryWaypoint{p.Positions, p.Velocities, p.Accelerations, p.Time})
		}
		got, e := trajectoryInputOf(v)
		if e != nil {
			t.Fatal(e)
		}
		gb, _ := json.Marshal(got) // -0 and nil-versus-empty show in the bytes
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Fatalf("from values:\n%s\nfrom JSON:\n%s", gb, wb)
		}
	}
}

// trajectoryArgs7 spells arm_follow_trajectory's arguments for a 7-joint
// arm and n waypoints as test/bench does: numbers rounded to 5 decimals.
func trajectoryArgs7(n int) []byte {
	joints := []string{"j1_shoulder_pan", "j2_shoulder_lift", "j3_upper_roll", "j4_elbow", "j5_forearm_roll", "j6_wrist_pitch", "j7_wrist_roll"}
	type point struct {
		Positions     []float64 `json:"positions"`
		Velocities    []float64 `json:"velocities"`
		Accelerations []float64 `json:"accelerations"`
		Time          float64   `json:"time_from_start"`
	}
	in := struct {
		Joints []string `json:"joints"`
		Points []point  `json:"points"`
	}{Joints: joints}
	r5 := func(x float64) float64 { return math.Round(x*1e5) / 1e5 }
	const T = 10.0
	w := math.Pi / T
	for i := range n {
		tm := T * float64(i+1) / float64(n)
		p := point{Time: r5(tm)}
		for j := range joints {
			a := 0.5 + 0.1*float64(j)
			p.Positions = append(p.Positions, r5(a*(1-math.Cos(w*tm))/2))
			p.Velocities = append(p.Velocities, r5(a*w*math.Sin(w*tm)/2))
			p.Accelerations = append(p.Accelerations, r5(a*w*w*math.Cos(w*tm)/2))
		}
		in.Points = append(in.Points, p)
	}
	b, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	return b
}

func BenchmarkCanonicalJSONTrajectory1000(b *testing.B) {
	v, _ := DecodeArgs(trajectoryArgs7(1000))
	b.ReportAllocs()
	for b.Loop() {
		canonicalJSON(v)
	}
}

func BenchmarkCanonicalArgsTrajectory1000(b *testing.B) {
	v, _ := DecodeArgs(trajectoryArgs7(1000))
	b.ReportAllocs()
	for b.Loop() {
		canonicalArgs(v)
	}
}

// BenchmarkDecodeArgsTrajectory1000 decodes arm_follow_trajectory's 235 KB
// arguments for 1000 waypoints of 7 joints (the preview benchmark's input).
func BenchmarkDecodeArgsTrajectory1000(b *testing.B) {
	raw := trajectoryArgs7(1000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, e := DecodeArgs(raw); e != nil {
			b.Fatal(e)
		}
	}
}

// TestTrajectoryRefusalsNameTheField pins arm_follow_trajectory's refusals
// of well-formed but inconsistent waypoints, now read from the values.
func TestTrajectoryRefusalsNameTheField(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		name, args                             string
		field, expected, actual, message, rule string
	}{
		{"too few positions", `{"joints":["j1","j2"],"points":[{"positions":[1],"time_from_start":1}]}`,
			"points[0].positions", "2 values (one per joint)", "1 values", "length does not match joints", ""},
		{"empty velocities", `{"joints":["j1"],"points":[{"positions":[1],"velocities":[],"time_from_start":1}]}`,
			"points[0].velocities", "1 values (one per joint)", "0 values", "length does not match joints", ""},
		{"too many accelerations", `{"joints":["j1"],"points":[{"positions":[0.5],"time_from_start":1},{"positions":[1],"accelerations":[0,0],"time_from_start":2}]}`,
			"points[1].accelerations", "1 values (one per joint)", "2 values", "length does not match joints", ""},
		{"time going back", `{"joints":["j1"],"points":[{"positions":[0.5],"time_from_start":1.5},{"positions":[1],"time_from_start":15e-1}]}`,
			"points[1].time_from_start", "greater than 1.5", "1.5", "times must strictly increase", ""},
		{"joint twice", `{"joints":["j2","j2"],"points":[{"positions":[1,1],"time_from_start":3}]}`,
			"joints", "each joint at most once", `"j2"`, "joint j2 is listed twice", "joints_unique"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, e := r.call(t, RolePlanner, "arm_follow_trajectory", tc.args)
			if e == nil {
				t.Fatal("accepted")
			}
			if e.Code != CodeInvalidArgument || e.Field != tc.field || e.Expected != tc.expected || e.Actual != tc.actual || e.Message != tc.message || e.Rule != tc.rule {
				t.Fatalf("got %+v", e)
			}
		})
	}
}

// TestTrajectoryInputRefusesWhatTheSchemaWould covers values that bypassed
// the schema: refused as Call.Decode refused them, never a panic.
func TestTrajectoryInputRefusesWhatTheSchemaWould(t *testing.T) {
	for name, v := range map[string]map[string]any{
		"joint not a string":    {"joints": []any{json.Number("1")}},
		"point not an object":   {"joints": []any{"j1"}, "points": []any{"p"}},
		"positions not array":   {"joints": []any{"j1"}, "points": []any{map[string]any{"positions": "x"}}},
		"position not a number": {"joints": []any{"j1"}, "points": []any{map[string]any{"positions": []any{"x"}}}},
		"no time":               {"joints": []any{"j1"}, "points": []any{map[string]any{"positions": []any{json.Number("1")}}}},
	} {
		if _, e := trajectoryInputOf(v); e == nil || e.Code != CodeInvalidArgument || e.Field != "(arguments)" {
			t.Errorf("%s: got %+v", name, e)
		}
	}
}
