package config

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docKeys walks the YAML keys a config of type t accepts, as
// docs/configuration.md names them: dotted paths, "[]" after a list of
// blocks, "<name>" for a map's keys. Each key maps to its type as the doc
// writes it.
func docKeys(t reflect.Type, prefix string, out map[string]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "-" {
			continue
		}
		if opts == "inline" {
			docKeys(f.Type, prefix, out)
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name)
		}
		docKey(f.Type, prefix+tag, out)
	}
}

func docKey(t reflect.Type, path string, out map[string]string) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[Duration]():
		out[path] = "duration"
	case t.Kind() == reflect.Struct:
		out[path] = "block"
		docKeys(t, path+".", out)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		out[path] = "list of blocks"
		docKeys(t.Elem(), path+"[].", out)
	case t.Kind() == reflect.Slice:
		out[path] = "list of " + scalar(t.Elem()) + "s"
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Struct:
		out[path] = "map of blocks"
		docKeys(t.Elem(), path+".<name>.", out)
	case t.Kind() == reflect.Map:
		out[path] = "map of " + scalar(t.Elem()) + "s"
	default:
		out[path] = scalar(t)
	}
}

func scalar(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	}
	return t.String()
}

// docRow is a row of a key table in docs/configuration.md:
// | `key` | type | default | example | meaning |.
var docRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([^|]+?) \\| ([^|]*?) \\| ([^|]*?) \\| ([^|]*?) \\|$")

// TestEveryConfigKeyIsDocumentedWithItsType fails when a key the config
// types accept is missing from docs/configuration.md (a new key without
// its line), when the page documents a key they do not accept (a renamed
// or removed one), or when the page's type differs from the Go type's.
func TestEveryConfigKeyIsDocumentedWithItsType(t *testing.T) {
	want := map[string]string{}
	docKeys(reflect.TypeFor[Config](), "", want)
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range docRow.FindAllStringSubmatch(string(b), -1) {
		if _, dup := got[m[1]]; dup {
			t.Errorf("docs/configuration.md documents %s twice", m[1])
		}
		got[m[1]] = m[2]
		if strings.TrimSpace(m[5]) == "" {
			t.Errorf("docs/configuration.md: %s says nothing of what it does", m[1])
		}
		if want[m[1]] != "block" && want[m[1]] != "list of blocks" && want[m[1]] != "map of blocks" && strings.TrimSpace(m[4]) == "" {
			t.Errorf("docs/configuration.md: %s has no example", m[1])
		}
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch typ, ok := got[k]; {
		case !ok:
			t.Errorf("docs/configuration.md does not document %s (%s)", k, want[k])
		case typ != want[k]:
			t.Errorf("docs/configuration.md: %s is a %s, the page says %s", k, want[k], typ)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("docs/configuration.md documents %s, which no config type accepts", k)
		}
	}
}

// TestTheConfigurationPagesExamplesParse: every whole config the page shows
// (a yaml block starting at transport:) passes Parse as it stands.
func TestTheConfigurationPagesExamplesParse(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile("(?ms)^```yaml\n(transport:.*?)^```").FindAllStringSubmatch(string(b), -1) {
		n++
		if _, err := Parse([]byte(m[1])); err != nil {
			t.Errorf("docs/configuration.md's example does not parse: %v\n%s", err, m[1])
		}
	}
	if n == 0 {
		t.Fatal("docs/configuration.md shows no whole config")
	}
}
