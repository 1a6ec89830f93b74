package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
)

// A config that pins urdf_sha256 loads only with that URDF; check-config
// prints the digest either way, so the pin can be written from it.
func TestPinnedURDFLoadsOnlyThatURDF(t *testing.T) {
	urdf, err := os.ReadFile("../../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	digest := bridge.URDFDigest(string(urdf))
	base, err := os.ReadFile("../../launch/robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := write("other.urdf", strings.Replace(string(urdf), "<robot", "<!-- edited -->\n<robot", 1))
	if lf := limitsFileOf(t, base); lf != "" { // the copy's limits_file must still resolve
		base = bytes.Replace(base, []byte(lf), []byte(filepath.Join(mustAbs(t, "../../launch/robots"), lf)), 1)
	}
	pinned := write("pinned.yaml", "urdf_sha256: "+digest+"\n"+string(base))

	for _, tc := range []struct {
		name, urdf string
		ok         bool
	}{
		{"the pinned URDF", "../../launch/simrobot.urdf", true},
		{"another URDF", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := checkConfig([]string{"--config", pinned, "--urdf", tc.urdf}, &out)
			if tc.ok != (err == nil) {
				t.Fatalf("check-config: %v, want ok=%v\n%s", err, tc.ok, out.String())
			}
			if !strings.Contains(out.String(), "urdf_sha256: ") {
				t.Errorf("check-config printed no digest: %q", out.String())
			}
			if !tc.ok && !strings.Contains(err.Error(), digest) {
				t.Errorf("refusal %q does not name the pinned digest", err)
			}
		})
	}
}

func limitsFileOf(t *testing.T, cfg []byte) string {
	for _, l := range strings.Split(string(cfg), "\n") {
		if v, ok := strings.CutPrefix(l, "limits_file:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A changed description is acceptable at run time only when neither its
// limits nor its geometry (the workspace checks and tool poses use the
// joints' origins) differ; a comment alone is acceptable.
func TestOnlyADescriptionWithTheSameLimitsAndGeometryIsAcceptable(t *testing.T) {
	cfg, err := config.Load("../../launch/robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	urdf, err := os.ReadFile("../../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadModel(cfg, urdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		acceptable bool
	}{
		{"a comment", strings.Replace(string(urdf), "<robot", "<!-- edited -->\n<robot", 1), true},
		{"a longer link", strings.Replace(string(urdf), `<origin xyz="0 0 0.15" rpy="0 0 0"/>`, `<origin xyz="0 0 0.25" rpy="0 0 0"/>`, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := m.descriptionGuard(nil)
			g.Observe(tc.text, "test")
			c, _ := g.Describe()["changed"].(map[string]any)
			if c == nil || c["acceptable"] != tc.acceptable {
				t.Fatalf("changed: %v, want acceptable %v", c, tc.acceptable)
			}
		})
	}
}
