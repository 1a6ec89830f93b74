package sim

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The sim's core knows no transport: its faces (sim/ros1face,
// sim/ros2face) translate, so adding a face never touches it. Nor does it
// share the bridge's kinematics, which the sim exists to check.
func TestSimCoreImportsNoTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/actbridge/actbridge/"
	forbidden := []string{
		"github.com/bluenviron/goroslib",
		mod + "ros1", mod + "ros2", mod + "msgs", mod + "rtps", mod + "cdr",
		mod + "sim/ros1face", mod + "sim/ros2face", mod + "kinematics",
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", mod+"sim").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps sim: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 2 {
		t.Fatalf("go list -deps sim listed %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("sim depends on %s", d)
			}
		}
	}
}
