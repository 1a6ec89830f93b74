package notice

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Module is one Go module a binary links.
type Module struct {
	Path, Version, Dir string
	Licence            string
	LicenceFile        string // absolute, in the module cache
}

// Modules lists the modules the packages pkgs link (not their tests), the
// main module left out, each with its licence, by asking `go list` in dir.
func Modules(ctx context.Context, dir string, pkgs ...string) ([]Module, error) {
	args := append([]string{"list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}"}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	seen := map[string]bool{}
	var mods []Module
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		m := Module{Path: f[0], Version: f[1], Dir: f[2]}
		if m.LicenceFile, m.Licence, err = LicenceFile(m.Dir); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Path, err)
		}
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}
