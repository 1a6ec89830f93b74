package bridge

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The tool layer, the contract it speaks and the packages beside it never
// reach a transport: adding ROS 2 must not touch them, and goroslib must
// stay out of everything but the ROS 1 transport and the sim.
func TestToolLayerImportsNoTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/actbridge/actbridge/"
	forbidden := []string{
		"github.com/bluenviron/goroslib",
		mod + "ros1", mod + "ros2", mod + "rtps", mod + "cdr",
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, pkg := range []string{"bridge", "actuators", "config", "allowlist", "inflight", "safety", "console", "metrics"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command(goTool, "list", "-deps", mod+pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 2 {
				t.Fatalf("go list -deps %s listed %d packages: %q", pkg, len(deps), out)
			}
			for _, d := range deps {
				for _, f := range forbidden {
					if d == f || strings.HasPrefix(d, f+"/") {
						t.Errorf("%s depends on %s", pkg, d)
					}
				}
			}
		})
	}
}

// Only the ROS 1 transport and the sim (with its command) import goroslib;
// the end-to-end tests under test/ drive a real ROS 1 graph and may too.
func TestOnlyTheROS1TransportAndTheSimImportGoroslib(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/actbridge/actbridge"
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := []string{mod + "/ros1", mod + "/sim", mod + "/cmd/simrobot", mod + "/test"}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list listed %d packages", len(lines))
	}
	for _, line := range lines {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		ok := false
		for _, a := range allowed {
			ok = ok || pkg == a || strings.HasPrefix(pkg, a+"/")
		}
		for _, imp := range imports {
			if strings.HasPrefix(imp, "github.com/bluenviron/goroslib") && !ok {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
