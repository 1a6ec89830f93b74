package ddspeers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPeersKnowEveryPeerType(t *testing.T) {
	p := Build(t)
	for _, bin := range []string{p.Cyclone, p.Fast, p.Fast3(t)} {
		if bin == "" {
			continue // no Debian 13 root (Fast3 said so)
		}
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

func TestPruneStaleKeepsRecentAndCurrentBuilds(t *testing.T) {
	cache := t.TempDir()
	old := time.Now().Add(-2 * staleAfter)
	for _, d := range []string{"cycpeer-old", "cycpeer-recent", "cycpeer-current", "cycpeer-build-123", "fastpeer-old"} {
		if err := os.Mkdir(filepath.Join(cache, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "cycpeer-recent" {
			if err := os.Chtimes(filepath.Join(cache, d), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	pruneStale(cache, "cycpeer", filepath.Join(cache, "cycpeer-current"))
	entries, _ := os.ReadDir(cache)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"cycpeer-build-123", "cycpeer-current", "cycpeer-recent", "fastpeer-old"}
	if strings.Join(left, " ") != strings.Join(want, " ") {
		t.Fatalf("left %v, want %v", left, want)
	}
}
