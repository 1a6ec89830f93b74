package inflight

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCanonicalIgnoresSpellingButNotValue(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"keys sorted at every level", `{"b":1,"a":{"d":[3,{"z":1,"y":2}],"c":null}}`, `{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\":true }\n", `{"a":[1,2],"b":true}`},
		{"integral numbers as integers", `[1, 1.0, 1e0, 10E-1, 100e-2, -0, -0.0, 0e5]`, `[1,1,1,1,1,0,0,0]`},
		{"fractions shortest", `[0.50, 5e-1, 1.25e1, 3.14159000, 1e-7]`, `[0.5,0.5,12.5,3.14159,1e-07]`},
		{"big integers exact", `[12345678901234567890123, 1e22, 1.0e+22]`, `[12345678901234567890123,10000000000000000000000,10000000000000000000000]`},
		{"strings minimally escaped", `["\u0041\u00e9\/", "<&>", "tab\tnl\n", "\u0001"]`, `["Aé/","<&>","tab\tnl\n","\u0001"]`},
		{"escaped keys sort by value", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{"scalars", `"x"`, `"x"`},
		{"empty containers", `{"a":[],"b":{}}`, `{"a":[],"b":{}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(json.RawMessage(tc.in))
			if err != nil || string(got) != tc.want {
				t.Fatalf("Canonical(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
			again, err := Canonical(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("not idempotent: %s → %s, %v", got, again, err)
			}
		})
	}
}

func TestCanonicalRefusesWhatIsNotOneJSONValue(t *testing.T) {
	for name, in := range map[string]string{
		"empty":           ``,
		"two values":      `{} {}`,
		"trailing comma":  `[1,]`,
		"truncated":       `{"a":`,
		"duplicate key":   `{"a":1,"a":2}`,
		"escaped dup key": `{"a":1,"\u0061":2}`,
		"out of range":    `1e400`,
		"too deep":        strings.Repeat("[", 300) + strings.Repeat("]", 300),
		"bare word":       `nope`,
	} {
		if got, err := Canonical(json.RawMessage(in)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%s: Canonical = %s, %v; want ErrInvalidJSON", name, got, err)
		}
	}
}

// TestCanonicalDigestsDoNotChange pins digests of Canonical's output: motion
// ids derived from canonical arguments are stored, so the bytes must not
// drift with a rewrite of the canonicaliser.
func TestCanonicalDigestsDoNotChange(t *testing.T) {
	cases := []struct{ name, in, digest string }{
		{"example", `{"joints":{"elbow":0.5}}`, "1e5de45ea94450bd5b2f230c030de989185cb728403f1d80e95af245cd3eaaa3"},
		{"numbers", `{"b":[1,1.0,1e0,-0.0,12345678901234567890123,1e22,0.1,3.14159000,1e-7],"a":{"z":null,"y":true}}`,
			"7654be3e65164d327ed8e8ea9cdba842244e0c72bf80e2084a52fa62328963c3"},
		{"strings", `{"s":"\u0041\u00e9\/<&>\t\n\u0001 \ud83d\ude00 \ud800x","k\u0062":"é日本","bad":"` + "\xff\xfe" + `"}`,
			"165fc97022113cda5a011611fdab20c61ec3b8f75011f06d8e334c9b35ce72bb"},
	}
	for _, tc := range cases {
		got, err := Canonical(json.RawMessage(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := Digest(got); d != tc.digest {
			t.Errorf("%s: digest %s of %s, pinned %s", tc.name, d, got, tc.digest)
		}
	}
}
