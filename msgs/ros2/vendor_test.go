package msgs_test // external: test/ddspeers imports msgs/ros2

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// TestEncodingEqualsVendorsInEveryDistro checks every type of every distro
// byte for byte against CycloneDDS's and Fast DDS's generated code. The
// distros share most definitions, so all four fit in two peer builds
// (ddspeers.DistroTypeSets): the second carries what Jazzy, Kilted and
// Lyrical define differently from Humble; the ros2 package's vendor tests
// use the same builds (ddspeers.BuildDistroTypes).
func TestEncodingEqualsVendorsInEveryDistro(t *testing.T) {
	sets, regs, where, err := ddspeers.DistroTypeSets()
	if err != nil {
		t.Fatal(err)
	}
	samples := make([][]ddspeers.Sample, len(sets))
	rng := rand.New(rand.NewPCG(21, 3))
	for i, r := range regs {
		for _, name := range r.Names() {
			s, err := r.Struct(name)
			if err != nil {
				t.Fatal(err)
			}
			def, err := r.Message(name)
			if err != nil {
				t.Fatal(err)
			}
			ms := []*cdr.Message{def}
			for range 3 {
				ms = append(ms, ddspeers.RandomMessage(s, rng, 3))
			}
			b := where[i][name]
			for _, m := range ms {
				samples[b] = append(samples[b], ddspeers.Sample{Msg: m, Endian: cdr.LittleEndian}, ddspeers.Sample{Msg: m, Endian: cdr.BigEndian})
			}
		}
	}
	for i, set := range sets {
		t.Run(fmt.Sprintf("build%d", i), func(t *testing.T) {
			ddspeers.CompareEncodings(t, ddspeers.BuildTypes(t, set), samples[i])
		})
	}
}
