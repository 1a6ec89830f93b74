package ddspeers

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"
)

// DiscoveryPeers are the peers of the discovery matrix: cycdisc (one
// CycloneDDS participant configured by CYCLONEDDS_URI) and fastdisc (one
// Fast DDS participant configured as rmw_fastrtps configures a range).
// Each prints "self PREFIX", then "found PREFIX" and "lost PREFIX", and
// "reader PREFIX" for another participant's reader learned by SEDP.
type DiscoveryPeers struct {
	Cyclone string // path of cycdisc: DOMAIN SECONDS
	Fast    string // path of fastdisc: DOMAIN RANGE SECONDS
	fast    recipe
}

// BuildDiscovery returns the discovery peers, built once.
func BuildDiscovery(t testing.TB) *DiscoveryPeers {
	t.Helper()
	skipWithout(t, requiredTools())
	cyc := recipe{name: "cycdisc", source: "cycdisc.c", steps: [][]string{{"gcc", "-O1", "-Wall", "-o", "cycdisc", "cycdisc.c", "-lddsc"}}}
	fast := recipe{name: "fastdisc", source: "fastdisc.cpp", includes: []string{"fastcompat.hpp"},
		steps:  [][]string{{"g++", "-O1", "-std=c++17", "-Wall", "-o", "fastdisc", "fastdisc.cpp", "-lfastrtps", "-lfastcdr"}},
		steps3: [][]string{{"g++", "-O1", "-std=c++17", "-Wall", "-o", "fastdisc", "fastdisc.cpp", "-lfastdds", "-lfastcdr"}},
	}
	p := DiscoveryPeers{fast: fast}
	var err error
	if p.Cyclone, err = cyc.build(t.Context(), peerCache(t)); err == nil {
		p.Fast, err = fast.build(t.Context(), peerCache(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

// Fast3 returns the launcher of fastdisc built against Fast DDS 3.1 in the
// Debian 13 root, building it once; "" when the root is missing
// (SkipMissing), a failure then under RequireEnv.
func (p *DiscoveryPeers) Fast3(t testing.TB) string {
	t.Helper()
	return p.fast.in3(t)
}

// Discovered is what a discovery peer printed so far: its own prefix and
// the prefixes it knows now (found and not lost since), in hex.
func (p *Proc) Discovered() (self string, known map[string]bool) {
	known = map[string]bool{}
	for what, prefix := range p.discoveryLines() {
		switch what {
		case "self":
			self = prefix
		case "found":
			known[prefix] = true
		case "lost":
			delete(known, prefix)
		}
	}
	return self, known
}

// Readers are the participants (prefixes in hex) whose readers a
// discovery peer learned by SEDP so far.
func (p *Proc) Readers() map[string]bool {
	out := map[string]bool{}
	for what, prefix := range p.discoveryLines() {
		if what == "reader" {
			out[prefix] = true
		}
	}
	return out
}

// discoveryLines yields a discovery peer's lines as (what, prefix).
func (p *Proc) discoveryLines() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		sc := bufio.NewScanner(bytes.NewReader(p.Stdout()))
		for sc.Scan() {
			if what, prefix, ok := strings.Cut(sc.Text(), " "); ok && !yield(what, prefix) {
				return
			}
		}
	}
}

// WaitSelf waits for a discovery peer's own prefix.
func (p *Proc) WaitSelf(ctx context.Context) (string, error) {
	if err := p.WaitStdout(ctx, "self "); err != nil {
		return "", fmt.Errorf("no self line: %w: %s", err, p.Stderr())
	}
	self, _ := p.Discovered()
	return self, nil
}
