package ddspeers

import (
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/msgdef"
)

// DistroTypeSets are the peer builds of every type of every distro
// (TypeSets over msgs.Distros' registries, in that order): the builds
// msgs/ros2's vendor test checks every encoding with, and the ones
// BuildDistroTypes hands out, so the two compile once between them. regs
// are the registries, where which build carries each of a distro's names.
func DistroTypeSets() (sets [][]*cdr.Struct, regs []*msgdef.Registry, where []map[string]int, err error) {
	for _, d := range msgs.Distros() {
		set, err := msgs.Load(d)
		if err != nil {
			return nil, nil, nil, err
		}
		regs = append(regs, set.Registry)
	}
	sets, where, err = TypeSets(regs...)
	return sets, regs, where, err
}

// BuildDistroTypes returns the peers of the one DistroTypeSets build that
// carries names as distro d defines them: a test of a few types uses a
// build that is made anyway instead of compiling its own (twice, with Fast
// DDS 3). It fails t when no one build carries them all.
func BuildDistroTypes(t testing.TB, d msgs.Distro, names ...string) *Peers {
	t.Helper()
	sets, _, where, err := DistroTypeSets()
	if err != nil {
		t.Fatal(err)
	}
	b := -1
	for i, dd := range msgs.Distros() {
		if dd != d {
			continue
		}
		for _, n := range names {
			at, ok := where[i][n]
			switch {
			case !ok:
				t.Fatalf("ddspeers: %s has no type %s", d, n)
			case b >= 0 && at != b:
				t.Fatalf("ddspeers: %s's %v are in different builds", d, names)
			}
			b = at
		}
	}
	if b < 0 {
		t.Fatalf("ddspeers: no distro %s or no names", d)
	}
	return BuildTypes(t, sets[b])
}

// TypeSets spreads the types of several registries (one per ROS 2 distro,
// say) over as few peer builds as it can: a build holds one definition
// per name, so a name whose definition differs between registries (by
// RIHS01 hash, which covers every field's name and type, nested types
// too) goes into another build, with what it nests. It returns each
// build's types, for BuildTypes, and for each registry the build that
// carries each of its names.
func TypeSets(regs ...*msgdef.Registry) (sets [][]*cdr.Struct, where []map[string]int, err error) {
	type group struct {
		reg  *msgdef.Registry
		hash map[string]string
	}
	var groups []*group
	for _, r := range regs {
		at := map[string]int{}
		for _, name := range r.Names() {
			closure, err := hashClosure(r, name)
			if err != nil {
				return nil, nil, err
			}
			gi := -1
			for i, g := range groups {
				if fits(g.hash, closure) {
					gi = i
					break
				}
			}
			if gi < 0 {
				groups = append(groups, &group{reg: msgdef.NewRegistry(), hash: map[string]string{}})
				gi = len(groups) - 1
			}
			g := groups[gi]
			for n, h := range closure {
				if _, ok := g.hash[n]; !ok {
					g.hash[n] = h
					if err := g.reg.Add(r.Definition(n)); err != nil {
						return nil, nil, err
					}
				}
			}
			at[name] = gi
		}
		where = append(where, at)
	}
	for _, g := range groups {
		types, err := PeerTypes(g.reg)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, types)
	}
	return sets, where, nil
}

// hashClosure returns the hashes of a type and of every type it nests.
func hashClosure(r *msgdef.Registry, name string) (map[string]string, error) {
	s, err := r.Struct(name)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range ordered([]*cdr.Struct{s}) {
		h, err := r.TypeHash(n.Name())
		if err != nil {
			return nil, err
		}
		out[n.Name()] = h
	}
	return out, nil
}

// fits reports whether every type of closure is absent from a build or
// there with the same hash.
func fits(have, closure map[string]string) bool {
	for n, h := range closure {
		if got, ok := have[n]; ok && got != h {
			return false
		}
	}
	return true
}
