// Package gobin builds a command of the module once per test binary, for
// tests that run it as users do.
package gobin

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// Builds is one test binary's set of built commands; keep it in a
// package-level var of the test package (one per test process).
type Builds struct {
	mu   sync.Mutex
	bins map[string]result
}

type result struct {
	bin string
	err error
}

// Build returns the path of pkg ("github.com/…/cmd/simrobot") built into a
// temporary directory, building it on the first call only; a failed build
// fails t, then and on later calls.
func (b *Builds) Build(t testing.TB, pkg string) string {
	t.Helper()
	return b.BuildTags(t, pkg, "")
}

// BuildTags is Build with build tags (comma separated, as go build -tags
// takes them: "crashpoints"); each pkg and tags pair is built once.
func (b *Builds) BuildTags(t testing.TB, pkg, tags string) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	key := pkg + " " + tags
	r, ok := b.bins[key]
	if !ok {
		r = build(pkg, tags)
		if b.bins == nil {
			b.bins = map[string]result{}
		}
		b.bins[key] = r
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.bin
}

func build(pkg, tags string) result {
	dir, err := os.MkdirTemp("", "gobin")
	if err != nil {
		return result{err: err}
	}
	bin := filepath.Join(dir, path.Base(pkg))
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, pkg).CombinedOutput(); err != nil {
		return result{err: fmt.Errorf("go build -tags %q %s: %v\n%s", tags, pkg, err, out)}
	}
	return result{bin: bin}
}
