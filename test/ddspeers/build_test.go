package ddspeers

import (
	"os/exec"
	"strings"
	"testing"
)

func TestPeersKnowEveryPeerType(t *testing.T) {
	p := Build(t)
	for _, bin := range []string{p.Cyclone, p.Fast} {
		out, err := exec.CommandContext(t.Context(), bin, "types").Output()
		if err != nil {
			t.Fatalf("%s types: %v", bin, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(p.Types) {
			t.Fatalf("%s knows %d types, want %d", bin, len(lines), len(p.Types))
		}
		for i, s := range p.Types {
			if want := s.Name() + " " + DDSTypeName(s.Name()); lines[i] != want {
				t.Fatalf("%s type %d: %q, want %q", bin, i, lines[i], want)
			}
		}
	}
}
