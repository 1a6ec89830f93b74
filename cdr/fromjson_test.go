package cdr

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestFromJSONReadsWhatMarshalJSONWrites(t *testing.T) {
	for _, m := range []*Message{mixedValue(), trajectoryValue()} {
		js, _ := m.MarshalJSON()
		got, err := FromJSON(m.Type, js)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		want, _ := Encode(m, LittleEndian)
		enc, err := Encode(got, LittleEndian)
		if err != nil || !bytes.Equal(enc, want) {
			t.Fatalf("%s: round trip encodes % x, want % x (%v)", js, enc, want, err)
		}
	}
}

func TestFromJSONLeavesMissingFieldsZero(t *testing.T) {
	got, err := FromJSON(mixed, []byte(`{"c":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("a") != uint8(0) || got.Get("b") != 0.0 || got.Get("c") != "x" || len(got.Get("d").([]int16)) != 0 {
		t.Fatalf("got %v", got.Fields)
	}
}

func TestFromJSONRefusesWhatTheTypeCannotHold(t *testing.T) {
	for _, tc := range []struct {
		s            *Struct
		in           string
		err          error
		path, detail string
	}{
		{mixed, `[1]`, ErrValueType, "", `wants a JSON object`},
		{mixed, `{"a":1} {}`, ErrValueType, "", `more than one`},
		{mixed, `{"a":`, ErrValueType, "", `not JSON`},
		{mixed, `{"zz":1}`, ErrValueType, `"zz"`, `mixed has no field "zz" (fields: a, b, c, d)`},
		{mixed, `{"a":256}`, ErrValueType, "a", `256 is not a uint8`},
		{mixed, `{"a":-1}`, ErrValueType, "a", `-1 is not a uint8`},
		{mixed, `{"a":1.5}`, ErrValueType, "a", `1.5 is not a uint8`},
		{mixed, `{"a":"1"}`, ErrValueType, "a", `want an integer (uint8), got a string`},
		{mixed, `{"b":"fast"}`, ErrValueType, "b", `want a number`},
		{mixed, `{"b":1e999}`, ErrValueType, "b", `1e999 is outside float64`},
		{mixed, `{"c":3}`, ErrValueType, "c", `want a string, got a number`},
		{mixed, `{"d":[1,40000]}`, ErrValueType, "d[1]", `40000 is not a int16`},
		{mixed, `{"d":{}}`, ErrValueType, "d", `want a JSON array, got an object`},
		{trajectory, `{"flags":[true]}`, ErrValueType, "flags", `a fixed array of 3 elements, got 1`},
		{trajectory, `{"points":[{},{},{},{},{}]}`, ErrBound, "points", `5 elements, bound 4`},
		{trajectory, `{"points":[{"positions":[1,null]}]}`, ErrValueType, "points[0].positions[1]", `want a number`},
		{trajectory, `{"origin":{"label":true}}`, ErrValueType, "origin.label", `want a string, got a boolean`},
	} {
		_, err := FromJSON(tc.s, []byte(tc.in))
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.detail) ||
			(tc.path != "" && !strings.HasPrefix(err.Error(), "cdr: "+tc.path+": ")) {
			t.Errorf("%s: %v, want %v at %q saying %q", tc.in, err, tc.err, tc.path, tc.detail)
		}
	}
}

// FuzzFromJSON feeds arbitrary text to FromJSON: it must never panic, and
// whatever it accepts must encode (bounds and all) or be refused with one
// of the package's errors.
func FuzzFromJSON(f *testing.F) {
	for _, m := range []*Message{mixedValue(), trajectoryValue()} {
		js, _ := m.MarshalJSON()
		f.Add(js)
	}
	f.Add([]byte(`{"points":[{"positions":["NaN"]}],"flags":[true,false,true]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range []*Struct{mixed, trajectory} {
			m, err := FromJSON(s, data)
			if err != nil {
				if !errors.Is(err, ErrValueType) && !errors.Is(err, ErrBound) {
					t.Fatalf("%s: %v is none of the package's errors", data, err)
				}
				continue
			}
			if _, err := Encode(m, LittleEndian); err != nil && !errors.Is(err, ErrBound) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("%s: accepted, then Encode: %v", data, err)
			}
		}
	})
}
