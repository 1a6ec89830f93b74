package test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// npmInstall installs testdata/<name>, pinned by its committed
// package-lock.json, with npm ci into a cache directory keyed by the lock
// file, once per machine, and returns that directory. TestMain calls it
// before entering the namespace, which has no network for npm.
func npmInstall(name string) (string, error) {
	src, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "actbridge-"+name, hex.EncodeToString(sum[:8]))
	// npm ci writes node_modules/.package-lock.json last; the directory
	// gets its name only after npm ci succeeded.
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return dir, nil
	}
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--silent")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci in %s: %v\n%s", tmp, err, out)
	}
	_ = os.RemoveAll(dir)
	return dir, os.Rename(tmp, dir)
}

// haveNPM skips t unless node and npm are installed (scripts/deps.sh
// installs them).
func haveNPM(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not found (scripts/deps.sh installs Node.js and npm)", bin)
		}
	}
}

// prepareOutsideNamespace does, before TestMain enters the namespace, what
// needs the host's network: npm's installs of the TypeScript client and
// of the conformance suite. A failure is left for the test that needs it
// to report.
func prepareOutsideNamespace() {
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			return
		}
	}
	_, _ = installTSClient()
	_, _ = npmInstall("conformance")
}
