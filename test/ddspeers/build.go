package ddspeers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
)

// RequireEnv names the variable that turns a missing DDS package from a
// skipped test into a failed one; make test and CI set it.
const RequireEnv = "ACTBRIDGE_REQUIRE_DDS_PEERS"

// CacheEnv names the variable that chooses the build cache folder; the
// default is os.UserCacheDir()/actbridge/ddspeers.
const CacheEnv = "ACTBRIDGE_PEER_CACHE"

// buildVersion changes when the way the peers are built changes in a way
// the hashed sources do not show.
const buildVersion = "ddspeers build 1"

func requireDDS() bool { return os.Getenv(RequireEnv) != "" }

// Peers are the built peer binaries and the types they know.
type Peers struct {
	Cyclone string // path of cycpeer
	Fast    string // path of fastpeer (Fast DDS 2.9)
	Types   []*cdr.Struct

	fast recipe // fastpeer's, built again against Fast DDS 3 by Fast3
}

// requiredTools are what building the peers needs, with the Debian package
// that brings each.
func requiredTools() [][2]string {
	return [][2]string{
		{"idlc", "cyclonedds-tools"},
		{"/usr/include/dds/dds.h", "cyclonedds-dev"},
		{"fastddsgen", "fastddsgen"},
		{"/usr/include/fastdds/dds/topic/TopicDataType.hpp", "libfastrtps-dev"},
		{"gcc", "gcc"},
		{"g++", "g++"},
	}
}

// missingTools names the Debian packages whose files are absent.
func missingTools(tools [][2]string) []string {
	var missing []string
	for _, tp := range tools {
		var err error
		if filepath.IsAbs(tp[0]) {
			_, err = os.Stat(tp[0])
		} else {
			_, err = exec.LookPath(tp[0])
		}
		if err != nil {
			missing = append(missing, tp[1])
		}
	}
	return missing
}

// skipWithout skips t when Debian packages are missing, unless RequireEnv
// is set: then it fails.
func skipWithout(t testing.TB, tools [][2]string) {
	t.Helper()
	if missing := missingTools(tools); len(missing) > 0 {
		msg := fmt.Sprintf("DDS test peers need the Debian packages %v (scripts/deps.sh installs them)", missing)
		if requireDDS() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// Build returns the peers of the default types (Registry, PeerTypes),
// building them on the first call of a test run and taking them from the
// cache after. A test is skipped when the Debian packages are missing,
// unless RequireEnv is set: then it fails.
func Build(t testing.TB) *Peers {
	t.Helper()
	skipWithout(t, append(requiredTools(), [2]string{CorpusDir, "ros2-test-interface-files"}))
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	types, err := PeerTypes(reg)
	if err != nil {
		t.Fatal(err)
	}
	return BuildTypes(t, types)
}

// BuildTypes returns peers that know exactly the given types (and the
// types they nest, which must each be one *cdr.Struct per name). Each
// distinct type set is one build in the cache, made once.
func BuildTypes(t testing.TB, types []*cdr.Struct) *Peers {
	t.Helper()
	skipWithout(t, requiredTools())
	cache := peerCache(t)
	idl, err := IDL(types)
	if err != nil {
		t.Fatal(err)
	}
	cTab, err := cTypes(types)
	if err != nil {
		t.Fatal(err)
	}
	cppHdr, cppBody := cppTypes(types, "peertypes")
	ctx := context.Background()
	if c, ok := t.(interface{ Context() context.Context }); ok {
		ctx = c.Context()
	}
	cyc := recipe{
		name: "cycpeer", source: "cycpeer.c",
		files: map[string]string{"peertypes.idl": idl, "cycpeer_types.inc": cTab},
		steps: [][]string{
			{"idlc", "-t", "-x", "final", "peertypes.idl"},
			{"gcc", "-O1", "-Wall", "-o", "cycpeer", "cycpeer.c", "peertypes.c", "-I.", "-lddsc"},
		},
	}
	fast := recipe{
		name: "fastpeer", source: "fastpeer.cpp", includes: []string{"fastcompat.hpp"},
		files: map[string]string{"peertypes.idl": idl, "fastpeer_types.h": cppHdr, "fastpeer_types.inc": cppBody},
		steps: [][]string{
			{"fastddsgen", "-replace", "-d", ".", "peertypes.idl"},
			{"g++", "-O1", "-std=c++17", "-o", "fastpeer", "fastpeer.cpp", "peertypes.cxx", "peertypesPubSubTypes.cxx", "-I.", "-lfastrtps", "-lfastcdr"},
		},
		steps3: [][]string{
			{"fastddsgen", "-replace", "-d", ".", "peertypes.idl"},
			{"g++", "-O1", "-std=c++17", "-o", "fastpeer", "fastpeer.cpp", "peertypesPubSubTypes.cxx", "peertypesTypeObjectSupport.cxx", "-I.", "-lfastdds", "-lfastcdr"},
		},
	}
	// Both builds run at once: Fast DDS's C++ compile dominates either way.
	results := make(chan error, 2)
	var p Peers
	go func() {
		var err error
		p.Cyclone, err = cyc.build(ctx, cache)
		results <- err
	}()
	p.Fast, err = fast.build(ctx, cache)
	if err2 := <-results; err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}
	p.Types = types
	p.fast = fast
	return &p
}

// peerCache returns the build cache folder, made if missing.
func peerCache(t testing.TB) string {
	t.Helper()
	cache := os.Getenv(CacheEnv)
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(dir, "actbridge", "ddspeers")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	return cache
}

// recipe builds one peer from its source in peers/ and generated files.
type recipe struct {
	name, source string
	includes     []string // more files of peers/ the source includes
	files        map[string]string
	steps        [][]string
	steps3       [][]string // the steps against Fast DDS 3, in the Debian 13 root (Fast3)
	root         string     // build and run in this root (in3); "" on the host
}

// build returns the path of the peer's binary in the cache folder, named
// by a hash of everything that goes into it. Builders of one peer take
// turns (a lock file), so that test binaries started together build it
// once; each builds in a fresh folder and renames it into place, so no
// one ever sees half a build.
func (r recipe) build(ctx context.Context, cache string) (string, error) {
	files := map[string]string{}
	for _, name := range append([]string{r.source}, r.includes...) {
		src, err := os.ReadFile(filepath.Join(sourceDir(), "peers", name))
		if err != nil {
			return "", err
		}
		files[name] = string(src)
	}
	for k, v := range r.files {
		files[k] = v
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%q\n", buildVersion, r.steps)
	if r.root != "" {
		fmt.Fprintf(h, "%s\n", launcherScript)
	}
	for _, name := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\n%d\n%s", name, len(files[name]), files[name])
	}
	final := filepath.Join(cache, r.name+"-"+hex.EncodeToString(h.Sum(nil))[:20])
	bin := filepath.Join(final, r.name)
	if r.root != "" {
		// What runs is the launcher, which enters the root (launcher).
		bin = filepath.Join(final, r.name+".run")
	}
	if _, err := os.Stat(bin); err == nil {
		// A build in use stays young, so that building another type set
		// never prunes it (pruneStale).
		now := time.Now()
		_ = os.Chtimes(final, now, now)
		return bin, nil
	}
	lock, err := os.OpenFile(filepath.Join(cache, r.name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close() // closing releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // built while we waited
	}
	tmp, err := os.MkdirTemp(cache, r.name+"-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if r.root != "" {
		files[r.name+".run"] = launcher(r.root, filepath.Join(final, r.name))
	}
	for name, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".run") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(body), mode); err != nil {
			return "", err
		}
	}
	for _, step := range r.steps {
		cmd := exec.CommandContext(ctx, step[0], step[1:]...)
		if r.root != "" {
			cmd = inRoot(ctx, r.root, tmp, step)
		}
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("ddspeers: building %s: %v: %w\n%s", r.name, step, err, out)
		}
	}
	pruneStale(cache, r.name, final)
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(bin); statErr == nil {
			return bin, nil // another builder finished first
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		return "", fmt.Errorf("ddspeers: %s exists without %s", final, r.name)
	}
	return bin, nil
}

// staleAfter is how long a build of older sources stays in the cache.
const staleAfter = 7 * 24 * time.Hour

// pruneStale removes builds of a peer that no one has built or used for
// staleAfter, so that the cache does not grow with every edit.
func pruneStale(cache, name, keep string) {
	dirs, _ := filepath.Glob(filepath.Join(cache, name+"-*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() || d == keep || strings.HasPrefix(filepath.Base(d), name+"-build-") {
			continue
		}
		if time.Since(st.ModTime()) > staleAfter {
			_ = os.RemoveAll(d)
		}
	}
}
