package ddspeers

import (
	"slices"
	"testing"

	"github.com/actbridge/actbridge/cdr"

	"github.com/actbridge/actbridge/ros2/msgdef"
)

func registryOf(t *testing.T, msgs map[string]string) *msgdef.Registry {
	t.Helper()
	r := msgdef.NewRegistry()
	for name, src := range msgs {
		d, err := msgdef.ParseMsg(name+".msg", "p", name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func setNames(set []*cdr.Struct) []string {
	var out []string
	for _, s := range set {
		out = append(out, s.Name())
	}
	return out
}

func TestTypeSetsShareBuildsAndSplitOnlyDifferingDefinitions(t *testing.T) {
	a := registryOf(t, map[string]string{"Id": "char[24] data\n", "Info": "Id id\nstring name\n", "Same": "int32 x\n"})
	b := registryOf(t, map[string]string{"Id": "char[16] data\n", "Info": "Id id\nstring name\n", "Same": "int32 x\n", "New": "Same s\n"})
	c := registryOf(t, map[string]string{"Same": "int32 x # comment, same wire\n"})
	sets, where, err := TypeSets(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 2 {
		t.Fatalf("%d builds, want 2", len(sets))
	}
	want := [][]string{
		{"p/msg/Id", "p/msg/Info", "p/msg/New", "p/msg/Same"},
		{"p/msg/Id", "p/msg/Info"},
	}
	for i := range sets {
		if got := setNames(sets[i]); !slices.Equal(got, want[i]) {
			t.Errorf("build %d: %v, want %v", i, got, want[i])
		}
	}
	for i, w := range []map[string]int{
		{"p/msg/Id": 0, "p/msg/Info": 0, "p/msg/Same": 0},
		{"p/msg/Id": 1, "p/msg/Info": 1, "p/msg/Same": 0, "p/msg/New": 0},
		{"p/msg/Same": 0},
	} {
		for n, gi := range w {
			if where[i][n] != gi {
				t.Errorf("registry %d %s in build %d, want %d", i, n, where[i][n], gi)
			}
		}
	}
	if got := sets[1][0].Field(0).Type.Len; got != 16 {
		t.Errorf("second build's Id holds %d bytes, want 16", got)
	}
}
