package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
)

const launchDir = "../../launch"

// shippedURDF names, for every robot config under launch/robots, the URDF
// check-config reads in place of the robot's /robot_description. A config
// missing here fails the test: every shipped config is checked.
var shippedURDF = map[string]string{
	"sim.yaml":                   "simrobot.urdf",
	"sim-arm-only.yaml":          "simrobot.urdf",
	"sim-base-only.yaml":         "simrobot.urdf",
	"sim-dual-arm.yaml":          "simrobot-dual-arm.urdf",
	"sim-ros2.yaml":              "simrobot.urdf",
	"gazebo-ros2.yaml":           "simrobot.urdf",
	"ur.yaml":                    "urdf/ur5e.urdf",
	"ur-lyrical.yaml":            "urdf/ur5e.urdf",
	"franka-fr3.yaml":            "urdf/fr3.urdf",
	"turtlebot4.yaml":            "urdf/turtlebot4.urdf",
	"turtlebot4-namespaced.yaml": "urdf/turtlebot4.urdf",
}

func TestEveryShippedConfigPassesCheckConfigKeepsTheToolContractAndItsLimitsFileOnlyTightens(t *testing.T) {
	cfgs, err := filepath.Glob(filepath.Join(launchDir, "robots", "*.yaml"))
	if err != nil || len(cfgs) == 0 {
		t.Fatalf("no configs under launch/robots: %v", err)
	}
	seen := map[string]bool{}
	for _, cfg := range cfgs {
		name := filepath.Base(cfg)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			urdf, ok := shippedURDF[name]
			if !ok {
				t.Fatalf("launch/robots/%s has no URDF in shippedURDF: list the one check-config reads for it", name)
			}
			urdf = filepath.Join(launchDir, urdf)
			var out bytes.Buffer
			if err := checkConfig([]string{"--config", cfg, "--urdf", urdf}, &out); err != nil {
				t.Fatalf("check-config: %v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), ": ok") {
				t.Fatalf("check-config said %q", out.String())
			}
			ts, err := offlineTools(cfg, urdf)
			if err != nil {
				t.Fatal(err)
			}
			// A limits_file value looser than the URDF is ignored at run
			// time; a shipped file must not carry one, or it says a limit
			// the bridge does not apply.
			if len(ts.info.Ignored) > 0 {
				t.Errorf("limits_file values looser than %s, ignored: %+v", urdf, ts.info.Ignored)
			}
			// Its catalogue keeps the tool contract (names, schemas, tiers).
			for _, tl := range ts.pipeline.Registry.Tools() {
				if err := bridge.CheckContract(tl); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for name := range shippedURDF {
		if !seen[name] {
			t.Errorf("shippedURDF lists %s, which launch/robots does not hold", name)
		}
	}
}

// launchElem is any element of a launch file, ROS 1 or ROS 2, kept whole.
type launchElem struct {
	XMLName  xml.Name
	Attrs    []xml.Attr   `xml:",any,attr"`
	Children []launchElem `xml:",any"`
}

func (e launchElem) attr(name string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// walk calls f on e and every element below it.
func (e launchElem) walk(f func(launchElem)) {
	f(e)
	for _, c := range e.Children {
		c.walk(f)
	}
}

// launchFile is a parsed launch file with its declared arguments.
type launchFile struct {
	path     string
	ros2     bool
	root     launchElem
	defaults map[string]string // top-level <arg>: name -> default
}

func readLaunch(t *testing.T, path string) launchFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lf := launchFile{path: path, ros2: strings.HasSuffix(path, ".launch.xml"), defaults: map[string]string{}}
	if err := xml.Unmarshal(b, &lf.root); err != nil {
		t.Fatalf("%s: not well-formed XML: %v", path, err)
	}
	if lf.root.XMLName.Local != "launch" {
		t.Fatalf("%s: root element %s, want launch", path, lf.root.XMLName.Local)
	}
	for _, c := range lf.root.Children {
		if c.XMLName.Local == "arg" {
			name, _ := c.attr("name")
			def, _ := c.attr("default")
			lf.defaults[name] = def
		}
	}
	return lf
}

// varUse matches $(var NAME) (ROS 2) and $(arg NAME) (ROS 1).
var varUse = regexp.MustCompile(`\$\((?:var|arg) ([A-Za-z0-9_]+)\)`)

// dirPath matches a path below the launch file's folder: $(dirname)/...
var dirPath = regexp.MustCompile(`\$\(dirname\)/([^\s"')]+)`)

// expand replaces $(dirname) and the arguments by their defaults, as a
// launch without arguments on its command line does.
func (lf launchFile) expand(s string) string {
	for range 4 { // defaults may name other arguments
		s = varUse.ReplaceAllStringFunc(s, func(m string) string {
			return lf.defaults[varUse.FindStringSubmatch(m)[1]]
		})
	}
	return strings.ReplaceAll(s, "$(dirname)", filepath.Dir(lf.path))
}

func launchFiles(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"*.launch", "*.launch.xml"} {
		m, err := filepath.Glob(filepath.Join(launchDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no launch files")
	}
	return files
}

func TestLaunchFilesUseEveryArgumentTheyDeclareAndDeclareEveryOneTheyUse(t *testing.T) {
	for _, path := range launchFiles(t) {
		lf := readLaunch(t, path)
		used := map[string]bool{}
		lf.root.walk(func(e launchElem) {
			for _, a := range e.Attrs {
				for _, m := range varUse.FindAllStringSubmatch(a.Value, -1) {
					used[m[1]] = true
				}
			}
		})
		for name := range lf.defaults {
			if !used[name] {
				t.Errorf("%s: argument %s is declared and never used", path, name)
			}
		}
		for name := range used {
			if _, ok := lf.defaults[name]; !ok {
				t.Errorf("%s: $(…%s) names no declared argument", path, name)
			}
		}
	}
}

func TestLaunchFilesNameOnlyFilesThatExist(t *testing.T) {
	for _, path := range launchFiles(t) {
		lf := readLaunch(t, path)
		lf.root.walk(func(e launchElem) {
			for _, a := range e.Attrs {
				for _, m := range dirPath.FindAllStringSubmatch(a.Value, -1) {
					// bin/ is what `make build` makes, not a shipped file.
					if m[1] == "../bin" {
						continue
					}
					if _, err := os.Stat(filepath.Join(filepath.Dir(path), m[1])); err != nil {
						t.Errorf("%s: <%s %s=…> names %s: %v", path, e.XMLName.Local, a.Name.Local, m[1], err)
					}
				}
			}
			// An included launch file of ours declares every argument
			// passed to it.
			if e.XMLName.Local != "include" {
				return
			}
			file, _ := e.attr("file")
			if !strings.HasPrefix(file, "$(dirname)/") {
				return
			}
			inc := readLaunch(t, lf.expand(file))
			for _, c := range e.Children {
				if name, _ := c.attr("name"); c.XMLName.Local == "arg" {
					if _, ok := inc.defaults[name]; !ok {
						t.Errorf("%s: passes %s to %s, which declares no such argument", path, name, file)
					}
				}
			}
		})
	}
}

// launchCommand is one of our binaries as a launch file starts it.
type launchCommand struct {
	file, binary string
	args         []string // expanded with the arguments' defaults
}

// ourCommands finds where a launch file starts actbridge or simrobot: a
// ROS 2 <executable cmd="…/actbridge …">, or a ROS 1 <node type="actbridge"
// args="…">.
func ourCommands(t *testing.T) []launchCommand {
	var out []launchCommand
	for _, path := range launchFiles(t) {
		lf := readLaunch(t, path)
		lf.root.walk(func(e launchElem) {
			switch e.XMLName.Local {
			case "executable":
				cmd, _ := e.attr("cmd")
				f := strings.Fields(lf.expand(cmd))
				if len(f) > 0 && slices.Contains([]string{"actbridge", "simrobot"}, filepath.Base(f[0])) {
					out = append(out, launchCommand{path, filepath.Base(f[0]), f[1:]})
				}
			case "node":
				typ, _ := e.attr("type")
				if pkg, _ := e.attr("pkg"); pkg == "actbridge" {
					args, _ := e.attr("args")
					out = append(out, launchCommand{path, typ, strings.Fields(lf.expand(args))})
				}
			}
		})
	}
	return out
}

func TestLaunchFilesPassActbridgeServeOnlyItsFlagsAndAConfigThatLoads(t *testing.T) {
	// serve sets the collector's GOGC and soft memory limit unless the
	// environment sets them; it must not set them for the whole test binary.
	t.Setenv("GOMEMLIMIT", "off")
	t.Setenv("GOGC", "100")
	n := 0
	for _, c := range ourCommands(t) {
		if c.binary != "actbridge" {
			continue
		}
		n++
		if len(c.args) == 0 || c.args[0] != "serve" {
			t.Errorf("%s: actbridge %v, want actbridge serve", c.file, c.args)
			continue
		}
		args := slices.Clone(c.args[1:])
		i := slices.Index(args, "--config")
		if i < 0 || i+1 >= len(args) {
			t.Errorf("%s: actbridge serve without --config", c.file)
			continue
		}
		var out bytes.Buffer
		if err := checkConfig([]string{"--config", args[i+1], "--urdf", filepath.Join(launchDir, "simrobot.urdf")}, &out); err != nil {
			t.Errorf("%s: default config %s: %v", c.file, args[i+1], err)
		}
		// serve parses its flags before it reads the config: a config that
		// does not exist stops it right after the flags, on loopback,
		// before it listens or joins a ROS graph.
		args[i+1] = filepath.Join(t.TempDir(), "absent.yaml")
		err := serve(context.Background(), args, io.Discard, io.Discard)
		var ue usageError
		if errors.As(err, &ue) || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: actbridge serve %v: %v, want only the absent config refused", c.file, args, err)
		}
	}
	if n == 0 {
		t.Fatal("no launch file starts actbridge")
	}
}

func TestLaunchFilesPassSimrobotOnlyItsFlags(t *testing.T) {
	known := simrobotFlags(t)
	n := 0
	for _, c := range ourCommands(t) {
		if c.binary != "simrobot" {
			continue
		}
		n++
		for _, a := range c.args {
			if !strings.HasPrefix(a, "-") {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !known[name] {
				t.Errorf("%s: simrobot has no flag %s", c.file, a)
			}
		}
	}
	if n == 0 {
		t.Fatal("no launch file starts simrobot")
	}
}

// simrobotFlags reads the flag names cmd/simrobot defines from its source
// (fs.XxxVar(&v, "name", …) and fs.Xxx("name", …)): its main package cannot
// be imported here.
func simrobotFlags(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../simrobot/main.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "fs" {
			return true
		}
		for _, arg := range call.Args {
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					known[s] = true
				}
				break
			}
		}
		return true
	})
	for _, must := range []string{"ros", "distro", "time-scale"} {
		if !known[must] {
			t.Fatalf("read no flag %s from cmd/simrobot/main.go: %v", must, known)
		}
	}
	return known
}

func TestGazeboROS2ControllersServeWhatItsConfigSends(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(launchDir, "gz_ros2_controllers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var ctrls map[string]struct {
		Params map[string]any `yaml:"ros__parameters"`
	}
	if err := yaml.Unmarshal(b, &ctrls); err != nil {
		t.Fatal(err)
	}
	// The controller manager's list: name -> type.
	types := map[string]string{}
	for name, v := range ctrls["controller_manager"].Params {
		if m, ok := v.(map[string]any); ok {
			types[name], _ = m["type"].(string)
		}
	}
	joints := func(ctrl string) []string {
		p := ctrls[ctrl].Params
		var out []string
		if j, ok := p["joint"].(string); ok {
			out = append(out, j)
		}
		js, _ := p["joints"].([]any)
		for _, j := range js {
			name, _ := j.(string)
			out = append(out, name)
		}
		return out
	}
	cfg, err := config.Load(filepath.Join(launchDir, "robots", "gazebo-ros2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The action each kind's controller serves, and its type.
	serves := map[actuators.Kind]struct{ suffix, typ string }{
		actuators.KindArm:     {"/follow_joint_trajectory", "joint_trajectory_controller/JointTrajectoryController"},
		actuators.KindGripper: {"/gripper_cmd", "position_controllers/GripperActionController"},
	}
	controlled := map[string]bool{}
	for _, a := range cfg.Actuators {
		s, ok := serves[a.Kind]
		if !ok {
			t.Errorf("actuator %s: gz_ros2_controllers.yaml has no %s controller", a.Name, a.Kind)
			continue
		}
		ctrl, found := strings.CutSuffix(strings.TrimPrefix(a.Action, "/"), s.suffix)
		if !found || types[ctrl] != s.typ {
			t.Errorf("actuator %s sends to %s; the controller manager runs %v", a.Name, a.Action, types)
			continue
		}
		if got := joints(ctrl); !slices.Equal(got, a.Joints) {
			t.Errorf("actuator %s: joints %v, controller %s drives %v", a.Name, a.Joints, ctrl, got)
		}
		for _, j := range a.Joints {
			controlled[j] = true
		}
	}
	// Every joint a controller drives is a ros2_control joint of the gz
	// model, and a movable joint of simrobot.urdf, which it includes.
	var xacro, urdf launchElem
	for f, e := range map[string]*launchElem{"simrobot-gz.urdf.xacro": &xacro, "simrobot.urdf": &urdf} {
		b, err := os.ReadFile(filepath.Join(launchDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b, e); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	hw := map[string]bool{}
	xacro.walk(func(e launchElem) {
		if e.XMLName.Local == "position_joint" {
			name, _ := e.attr("name")
			hw[name] = true
		}
	})
	movable := map[string]bool{}
	urdf.walk(func(e launchElem) {
		if typ, _ := e.attr("type"); e.XMLName.Local == "joint" && typ != "fixed" && typ != "" {
			name, _ := e.attr("name")
			movable[name] = true
		}
	})
	for j := range controlled {
		if !hw[j] || !movable[j] {
			t.Errorf("joint %s: in ros2_control %v, movable in simrobot.urdf %v", j, hw[j], movable[j])
		}
	}
	if len(controlled) == 0 {
		t.Fatal("gazebo-ros2.yaml drives no joint")
	}
}

func TestSimLaunchServesTheDistroItsBridgeConfigNames(t *testing.T) {
	n := 0
	for _, path := range launchFiles(t) {
		lf := readLaunch(t, path)
		cfgPath, ok := lf.defaults["config"]
		if !ok {
			continue
		}
		for _, c := range ourCommands(t) {
			i := slices.Index(c.args, "--distro")
			if c.file != path || c.binary != "simrobot" || i < 0 || i+1 >= len(c.args) {
				continue
			}
			n++
			cfg, err := config.Load(lf.expand(cfgPath))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if cfg.Distro != c.args[i+1] {
				t.Errorf("%s: simrobot serves %s, the bridge config %s speaks %s", path, c.args[i+1], cfgPath, cfg.Distro)
			}
		}
	}
	if n == 0 {
		t.Fatal("no launch file starts simrobot with --distro beside a bridge config")
	}
}
