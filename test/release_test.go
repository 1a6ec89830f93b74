package test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// make release's script builds static binaries for both architectures,
// stamped with VERSION, the commit and the date; the amd64 one runs here
// and says so, the arm64 one is an AArch64 ELF with no interpreter, and
// SHA256SUMS matches every file.
func TestReleaseBuildsStampedStaticBinariesForBothArchitectures(t *testing.T) {
	dist := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../scripts/release.sh")
	cmd.Env = append(os.Environ(), "DIST="+dist, "SOURCE_DATE_EPOCH=1796601600")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
	version, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()

	for _, bin := range []string{"actbridge", "simrobot"} {
		for _, arch := range []struct {
			name    string
			machine elf.Machine
		}{{"amd64", elf.EM_X86_64}, {"arm64", elf.EM_AARCH64}} {
			p := filepath.Join(dist, bin+"-linux-"+arch.name)
			f, err := elf.Open(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if f.Machine != arch.machine {
				t.Errorf("%s is for %v, want %v", p, f.Machine, arch.machine)
			}
			for _, prog := range f.Progs {
				if prog.Type == elf.PT_INTERP {
					t.Errorf("%s asks for a dynamic loader: not static", p)
				}
			}
			f.Close()
		}
		out, err := exec.CommandContext(ctx, filepath.Join(dist, bin+"-linux-amd64"), "version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s version: %v\n%s", bin, err, out)
		}
		want := []string{bin + " " + strings.TrimSpace(string(version)) + " (commit ", "built 2026-12-07T00:00:00Z"}
		if len(head) >= 12 {
			want = append(want, strings.TrimSpace(string(head))[:12])
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s version said %q, want %q in it", bin, out, w)
			}
		}
	}

	sums, err := os.Open(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("SHA256SUMS: %s does not match", name)
		}
		listed[name] = true
	}
	for _, name := range []string{"actbridge-linux-amd64", "actbridge-linux-arm64", "simrobot-linux-amd64", "simrobot-linux-arm64", "LICENSE", "NOTICE", "THIRD_PARTY_LICENSES"} {
		if !listed[name] {
			t.Errorf("SHA256SUMS does not list %s", name)
		}
	}
	third, err := os.ReadFile(filepath.Join(dist, "THIRD_PARTY_LICENSES"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range []string{"github.com/bluenviron/goroslib/v2", "go.etcd.io/bbolt", "github.com/modelcontextprotocol/go-sdk", "gopkg.in/yaml.v3"} {
		if !strings.Contains(string(third), "==== "+mod+" ") {
			t.Errorf("THIRD_PARTY_LICENSES lacks %s", mod)
		}
	}
}

// The bridge names its build where an operator and a client look:
// /healthz and the MCP server info carry what `actbridge version` says.
func TestHealthzAndServerInfoNameTheBuild(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		out, err := exec.Command(filepath.Join(binDir, "actbridge"), "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(string(out)) // actbridge VERSION (commit C, built D)
		if len(fields) < 4 {
			t.Fatalf("actbridge version said %q", out)
		}
		ver, commit := fields[1], strings.TrimSuffix(fields[3], ",")
		resp, err := http.Get("http://" + w.addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h struct {
			Version struct{ Version, Commit, Date string } `json:"version"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		if h.Version.Version != ver || h.Version.Commit != commit || h.Version.Date == "" {
			t.Fatalf("/healthz version %+v, want %s commit %s", h.Version, ver, commit)
		}
		if si := w.mcpClient("").InitializeResult().ServerInfo; si.Name != "actbridge" || si.Version != ver {
			t.Fatalf("MCP server info %+v, want actbridge %s", si, ver)
		}
	}, ros2)
}
