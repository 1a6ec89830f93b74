package ddspeers

import (
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgdef"
)

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
