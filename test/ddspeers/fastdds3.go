package ddspeers

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Debian13RootEnv names the variable that chooses the Debian 13 root the
// Fast DDS 3 peers build and run in; the default is
// os.UserCacheDir()/actbridge/debian13, where scripts/debian13-root.sh
// makes it (make test runs the script first).
const Debian13RootEnv = "ACTBRIDGE_DEBIAN13_ROOT"

// rootStamp is the file scripts/debian13-root.sh writes last into a root
// it finished: a root without it is half made.
const rootStamp = ".actbridge-root"

// Debian13Root returns the path of the Debian 13 root, made or not.
func Debian13Root() string {
	if r := os.Getenv(Debian13RootEnv); r != "" {
		return r
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "actbridge", "debian13")
}

// rootMissing says why the Debian 13 root cannot be used, or "".
func rootMissing(root string) string {
	if root == "" {
		return "no cache folder for the Debian 13 root"
	}
	if _, err := os.Stat(filepath.Join(root, rootStamp)); err != nil {
		return fmt.Sprintf("the Fast DDS 3 peers need the Debian 13 root %s (scripts/debian13-root.sh makes it; make test runs it)", root)
	}
	if os.Geteuid() != 0 {
		return "the Fast DDS 3 peers run with chroot, which needs root"
	}
	return ""
}

// MissingFast3 is the skip message of a test whose Fast DDS 3 peer is
// missing (an empty path from Fast3).
const MissingFast3 = "no Fast DDS 3 peer: the Debian 13 root is missing (scripts/debian13-root.sh makes it)"

// SkipMissing skips t when bin, a peer path, is empty: Fast3 returned no
// peer because the root is missing (it has already failed t when
// RequireEnv is set).
func SkipMissing(t testing.TB, bin string) {
	t.Helper()
	if bin == "" {
		t.Skip(MissingFast3)
	}
}

// in3 builds r against Fast DDS 3 in the Debian 13 root, into the peer
// cache inside the root (so the binary is at the same path inside), and
// returns the launcher that runs it there. It returns "" when the root is
// missing and RequireEnv is not set; then the caller's tests skip
// (SkipMissing).
func (r recipe) in3(t testing.TB) string {
	t.Helper()
	root := Debian13Root()
	if why := rootMissing(root); why != "" {
		if requireDDS() {
			t.Fatal(why)
		}
		t.Log(why)
		return ""
	}
	if len(r.steps3) == 0 {
		t.Fatalf("ddspeers: %s has no Fast DDS 3 recipe", r.name)
	}
	r3 := r
	r3.steps, r3.root = r.steps3, root
	cache := filepath.Join(root, "var", "cache", "actbridge-ddspeers")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := r3.build(t.Context(), cache)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// inRoot returns a command that runs step inside root, in dir (a host
// path under root): a mount namespace of its own with /proc mounted in
// the root (fastddsgen's Java finds its libraries through /proc), gone
// when the step ends.
func inRoot(ctx context.Context, root, dir string, step []string) *exec.Cmd {
	inside := "/" + strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")
	script := `r=$1; d=$2; shift 2; mount -t proc proc "$r/proc" && exec chroot "$r" /usr/bin/env -C "$d" "$@"`
	args := append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh", root, inside}, step...)
	return exec.CommandContext(ctx, "unshare", args...)
}

// launcher is the script that runs bin (a host path under root) inside
// root, with the arguments it was given: each exec replaces the one
// before, so the launcher's pid is the peer's, which the tests signal.
// The peers need no /proc, so nothing is mounted.
func launcher(root, bin string) string {
	inside := "/" + strings.TrimPrefix(strings.TrimPrefix(bin, root), "/")
	return fmt.Sprintf(launcherScript, root, inside)
}

// launcherScript is the launcher, given the root and the peer's path in
// it; it is part of a build's hash, so a change rebuilds.
const launcherScript = "#!/bin/sh\n# Runs a Fast DDS 3 test peer inside the Debian 13 root (test/ddspeers).\nexec chroot %q %q \"$@\"\n"

// Fast3 returns the launcher of fastpeer built against Fast DDS 3.1 in the
// Debian 13 root, for the same types, building it once; "" when the root
// is missing (SkipMissing), a failure then under RequireEnv.
func (p *Peers) Fast3(t testing.TB) string {
	t.Helper()
	return p.fast.in3(t)
}

// Fast3 returns the launcher of fastnode built against Fast DDS 3.1 in the
// Debian 13 root, for the same distro, building it once; "" when the root
// is missing (SkipMissing), a failure then under RequireEnv.
func (p *NodePeers) Fast3(t testing.TB) string {
	t.Helper()
	return p.fast.in3(t)
}
