package bridge

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/actbridge/actbridge/"

// importRule forbids the packages under pkgs (each a module path with its
// subpackages; "=p" means p alone) to depend on anything under forbid, or
// only to import it (direct). docs/design.md draws the same arrows.
type importRule struct {
	pkgs, except, forbid []string
	direct               bool
	why                  string
}

// goroslib is the one ROS 1 library; "mod:" marks paths outside the module.
const goroslib = "mod:github.com/bluenviron/goroslib"

var transports = []string{"ros1", "ros2", "rtps", "cdr", "msgs", goroslib}

// importRules is the house's one-way arrows, one row per layer; every
// package of the module falls under at least one row.
var importRules = []importRule{
	{pkgs: []string{"bridge"}, forbid: append([]string{"config", "console", "metrics", "sim", "cmd"}, transports...),
		why: "the tool layer speaks the robot contract (actuators), never a transport or its messages: a new transport touches no tool"},
	{pkgs: []string{"actuators"}, forbid: append([]string{"bridge", "config", "inflight", "safety", "sim"}, transports...),
		why: "the robot contract is what both sides agree on; it depends on neither"},
	{pkgs: []string{"safety", "kinematics", "spline", "urdf", "tf"}, forbid: append([]string{"bridge", "actuators", "config", "inflight", "sim"}, transports...),
		why: "limits, kinematics and interpolation are pure: no IO, no robot, no store"},
	{pkgs: []string{"inflight"}, forbid: append([]string{"bridge", "actuators", "safety", "config", "sim"}, transports...),
		why: "the in-flight store knows no ROS and no tools"},
	{pkgs: []string{"config", "allowlist"}, forbid: append([]string{"bridge", "inflight", "sim"}, transports...),
		why: "the robot YAML names transports by value; it imports none"},
	{pkgs: []string{"console", "metrics"}, forbid: append([]string{"sim", "config"}, transports...),
		why: "the operator's and Prometheus' views read the tool layer, never a transport"},
	{pkgs: []string{"rtps", "cdr"}, forbid: []string{"bridge", "actuators", "config", "inflight", "safety", "sim", "ros1", "ros2", "msgs", goroslib},
		why: "RTPS and CDR are a library: no actbridge types, no ROS names"},
	{pkgs: []string{"rtps"}, forbid: []string{"cdr"}, why: "RTPS moves bytes; CDR is a layer above it"},
	{pkgs: []string{"ros2"}, except: []string{"=ros2"}, forbid: []string{"bridge", "actuators", "config", "inflight", "safety", "sim", "ros1", goroslib},
		why: "the ROS 2 client layer knows nothing of actbridge: it could be published on its own"},
	{pkgs: []string{"=ros2"}, forbid: []string{"bridge", "inflight", "console", "metrics", "sim", "ros1", goroslib},
		why: "the ROS 2 transport implements actuators on the client layer; it never reaches the tools"},
	{pkgs: []string{"ros1"}, forbid: []string{"bridge", "inflight", "console", "metrics", "sim", "ros2", "rtps", "cdr"},
		why: "the ROS 1 transport implements actuators on goroslib; it never reaches the tools"},
	{pkgs: []string{"msgs"}, forbid: []string{"bridge", "actuators", "config", "inflight", "safety", "sim", "ros1", "=ros2", "rtps"},
		why: "message definitions are data for the transports, the sim and the CLI"},
	{pkgs: []string{"sim"}, forbid: []string{"bridge", "actuators", "config", "inflight", "safety", "console", "metrics", "cmd"},
		why: "the simulated robot knows nothing of the bridge"},
	{pkgs: []string{"cmd/actbridge"}, forbid: []string{"sim"}, why: "the bridge binary carries no simulated robot"},
	{pkgs: []string{"doctor"}, forbid: []string{"bridge", "inflight", "console", "metrics", "sim", "cmd"},
		why: "the doctor reads the robot's graph through the transports and moves nothing: no tools, no store"},
	{pkgs: []string{"cmd", "rosimage", "notice", "version", "examples", "test"},
		why: "wiring, small leaves and end-to-end tests: ruled by the rows of what they import"},
	{pkgs: []string{""}, except: []string{"ros1", "msgs/ros1", "sim", "cmd/simrobot", "test"}, forbid: []string{goroslib}, direct: true,
		why: "goroslib stays in the ROS 1 transport, its messages and the sim"},
}

// under reports whether path p is pattern's package or below it.
func under(p, pattern string) bool {
	if exact, ok := strings.CutPrefix(pattern, "="); ok {
		return p == exact
	}
	return pattern == "" || p == pattern || strings.HasPrefix(p, pattern+"/")
}

func anyUnder(p string, patterns []string) bool {
	for _, pat := range patterns {
		if under(p, pat) {
			return true
		}
	}
	return false
}

// relative names a package by its path in the module, or "mod:" and its
// full path outside it.
func relative(p string) string {
	if r, ok := strings.CutPrefix(p, module); ok {
		return r
	}
	return "mod:" + p
}

// TestEveryPackageImportsOnlyDownTheArrows holds the whole module to
// importRules: a forbidden import, direct or through another package,
// fails with the row it breaks, and a package no row covers fails too.
func TestEveryPackageImportsOnlyDownTheArrows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 30 {
		t.Fatalf("go list listed %d packages", len(lines))
	}
	for _, line := range lines {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkg := relative(f[0])
		covered := false
		for _, r := range importRules {
			if !anyUnder(pkg, r.pkgs) || anyUnder(pkg, r.except) {
				continue
			}
			covered = covered || len(r.pkgs) > 0 && r.pkgs[0] != ""
			deps := f[2]
			if r.direct {
				deps = f[1]
			}
			for _, d := range strings.Fields(deps) {
				if d := relative(d); anyUnder(d, r.forbid) && !under(d, pkg) {
					t.Errorf("%s depends on %s: %s", pkg, d, r.why)
				}
			}
		}
		if !covered {
			t.Errorf("%s: no row of importRules covers it; add one (and to docs/design.md)", pkg)
		}
	}
}

// The rules bite: a package that imports a transport breaks its row.
func TestAnImportRuleRefusesATransport(t *testing.T) {
	for _, tc := range []struct {
		pkg, dep string
		refused  bool
	}{
		{"bridge", "ros2/node", true},
		{"bridge", "msgs/ros1", true},
		{"bridge", "actuators", false},
		{"ros2/service", "actuators", true},
		{"ros2", "actuators", false},
		{"msgs/ros2", "ros2/msgdef", false},
		{"msgs/ros2", "ros2", true},
		{"cmd/actbridge", "mod:github.com/bluenviron/goroslib/v2", true},
		{"ros1/tcpros", "mod:github.com/bluenviron/goroslib/v2", false},
	} {
		refused := false
		for _, r := range importRules {
			if anyUnder(tc.pkg, r.pkgs) && !anyUnder(tc.pkg, r.except) && anyUnder(tc.dep, r.forbid) && !under(tc.dep, tc.pkg) {
				refused = true
			}
		}
		if refused != tc.refused {
			t.Errorf("%s → %s: refused %v, want %v", tc.pkg, tc.dep, refused, tc.refused)
		}
	}
}
