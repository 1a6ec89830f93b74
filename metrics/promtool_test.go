package metrics

import (
	"os/exec"
	"testing"
)

// promtool is Debian's (package prometheus); the test skips only without it.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("/usr/bin/promtool")
	if err != nil {
		p, err = exec.LookPath("promtool")
	}
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	return p
}

func TestShippedPrometheusFilesPassPromtool(t *testing.T) {
	bin := promtool(t)
	for _, args := range [][]string{
		{"check", "rules", "../launch/alerts.yml"},
		{"test", "rules", "../launch/alerts_test.yml"},
		{"check", "config", "../launch/prometheus.yml"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
