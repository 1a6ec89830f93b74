package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/sim"
)

// TestMain lets the test binary run as simrobot itself when asked, so the
// tests exercise the real main without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("SIMROBOT_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestMalformedMasterURIExitsTwo(t *testing.T) {
	tests := []string{"localhost:11311", "http://", "http://host:notaport", "ftp://127.0.0.1:11311"}
	for _, uri := range tests {
		var stderr bytes.Buffer
		env := func(k string) string {
			if k == "ROS_MASTER_URI" {
				return uri
			}
			return ""
		}
		code := run(nil, env, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "ROS_MASTER_URI") {
			t.Errorf("ROS_MASTER_URI=%q: exit %d, stderr %q; want 2 and a message naming ROS_MASTER_URI", uri, code, stderr.String())
		}
	}
}

func TestBadFlagsExitTwoAndHelpExitsZero(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--joint-states-hz", "5000"}, 2},
		{[]string{"--time-scale", "0"}, 2},
		{[]string{"--no-such-flag"}, 2},
		{[]string{"stray"}, 2},
		{[]string{"--ros", "3"}, 2},
		{[]string{"--ros", "2", "--distro", "rolling"}, 2},
		{[]string{"--namespace", "/robot1"}, 2}, // ROS 2 only
		{[]string{"--ros", "2", "--namespace", "/1robot"}, 2},
		{[]string{"--ros", "2", "--namespace", "/robot1/"}, 2},
		{[]string{"--urdf", "/no/such/file.urdf"}, 2},
		{[]string{"--initial-positions", "no_such_joint=1"}, 2},
		{[]string{"--initial-positions", "elbow_joint"}, 2},
		{[]string{"--initial-positions", "elbow_joint=abc"}, 2},
		{[]string{"--initial-positions", "elbow_joint=NaN"}, 2},
		{[]string{"--initial-positions", "elbow_joint=2.7"}, 2}, // past the URDF's hard stop at 2.6
		{[]string{"--initial-positions", "elbow_joint=1,elbow_joint=2"}, 2},
		{[]string{"--initial-pose", "1,2"}, 2},
		{[]string{"--initial-pose", "1,2,x"}, 2},
		{[]string{"--table", "0,0,0,1,1"}, 2},
		{[]string{"--table", "0,0,1,1,1,0"}, 2},
		{[]string{"--table", "0,0,0,1,1,Inf"}, 2},
		{[]string{"--help"}, 0},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if code := run(tt.args, func(string) string { return "" }, &stderr); code != tt.code {
			t.Errorf("%v: exit %d, want %d; stderr %q", tt.args, code, tt.code, stderr.String())
		}
	}
}

func TestHelpListsFaultsAndServices(t *testing.T) {
	var stderr bytes.Buffer
	run([]string{"--help"}, func(string) string { return "" }, &stderr)
	for _, want := range []string{"arm/abort_after", "gripper/stall", "exit_code", "-joint-states-hz", "/<name>/goals"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
}

func TestRoslaunchNameArgumentNamesTheNode(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "simrobot"},
		{[]string{"__name:=robot7", "__log:=/tmp/x.log"}, "robot7"},
		{[]string{"--name", "mine", "__name:=robot7"}, "mine"},
	}
	for _, tt := range tests {
		o, err := parseFlags(tt.args, &bytes.Buffer{})
		if err != nil || o.name != tt.want {
			t.Errorf("%v: name %q, err %v; want %q", tt.args, o.name, err, tt.want)
		}
	}
}

// simrobotProcess runs this test binary as simrobot against m.
type simrobotProcess struct {
	cmd    *exec.Cmd
	out    *rostest.Buffer
	exited chan struct{}
	err    error
}

func startSimrobot(t *testing.T, m *rostest.Master, args ...string) *simrobotProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &simrobotProcess{cmd: exec.Command(exe, args...), out: &rostest.Buffer{}, exited: make(chan struct{})}
	p.cmd.Env = append(m.Env(), "SIMROBOT_TEST_MAIN=1")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // owned by the cleanup below, which waits for it
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("simrobot output:\n%s", p.out.String())
		}
	})
	return p
}

// wait returns the exit code once the process ends, or fails after d.
func (p *simrobotProcess) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(d):
		t.Fatalf("simrobot still running after %s", d)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("simrobot: %v", p.err)
	}
	return 0
}

func nodeListed(m *rostest.Master) error {
	out, err := m.Run(20*time.Second, "rosnode", "list")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "/simrobot") {
		return errors.New("rosnode list: " + out)
	}
	return nil
}

func jointStatesFlow(m *rostest.Master) error {
	out, err := m.Run(20*time.Second, "rostopic", "echo", "-n", "1", "/joint_states/name")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "shoulder_pan_joint") {
		return errors.New("rostopic echo: " + out)
	}
	return nil
}

func TestRegistersAgainAfterMasterRestartAndStopsOnSIGTERM(t *testing.T) {
	m := rostest.StartMaster(t)
	p := startSimrobot(t, m)
	rostest.Eventually(t, 30*time.Second, "simrobot listed", func() error { return nodeListed(m) })

	m.Restart()
	restarted := time.Now()
	rostest.Eventually(t, 30*time.Second, "simrobot listed again after the restart", func() error { return nodeListed(m) })
	if took := time.Since(restarted); took > 5*time.Second {
		// rosnode itself takes a second or two; only a large miss is a failure.
		t.Logf("simrobot was listed again %s after the master restart (target 5s)", took.Round(time.Millisecond))
	}
	rostest.Eventually(t, 30*time.Second, "/joint_states to a new subscriber", func() error { return jointStatesFlow(m) })
	if out, err := m.Run(20*time.Second, "rosparam", "get", "/robot_description_planning/joint_limits/wrist_3_joint/has_position_limits"); err != nil || strings.TrimSpace(out) != "false" {
		t.Errorf("parameters not set again after the restart: %q, %v", out, err)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 20*time.Second); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if !strings.Contains(p.out.String(), "stopped") {
		t.Errorf("no shutdown log line:\n%s", p.out.String())
	}
}

func TestExitCodeFaultExitsProcess(t *testing.T) {
	m := rostest.StartMaster(t)
	p := startSimrobot(t, m, "--name", "sim2")
	rostest.Eventually(t, 30*time.Second, "apply_faults service up", func() error {
		_, err := m.Run(20*time.Second, "rosservice", "type", "/sim2/apply_faults")
		return err
	})
	if out, err := m.Run(20*time.Second, "rosparam", "set", "/sim2/faults/exit_code", "7"); err != nil {
		t.Fatal(out, err)
	}
	out, err := m.Run(20*time.Second, "rosservice", "call", "/sim2/apply_faults")
	if err != nil || !strings.Contains(out, "success: True") {
		t.Errorf("apply_faults: %q, %v", out, err)
	}
	if code := p.wait(t, 20*time.Second); code != 7 {
		t.Errorf("exit code %d, want 7", code)
	}
}

func TestSimLaunchStartsSimrobotUnderRoslaunch(t *testing.T) {
	m := rostest.StartMaster(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// ACTBRIDGE_BIN with a "simrobot" that is this test binary running main.
	bin := t.TempDir()
	script := "#!/bin/sh\nSIMROBOT_TEST_MAIN=1 exec " + exe + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "simrobot"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	launchDir, err := filepath.Abs(filepath.Join("..", "..", "launch"))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := m.Command(ctx, "roslaunch", filepath.Join(launchDir, "sim.launch"), "bridge:=false", "joint_states_hz:=50")
	cmd.Env = append(cmd.Env, "ROS_PACKAGE_PATH="+launchDir, "ACTBRIDGE_BIN="+bin)
	out := &rostest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // waited for below
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("roslaunch did not stop on SIGINT")
		}
		if t.Failed() {
			t.Logf("roslaunch output:\n%s", out.String())
		}
	}()
	rostest.Eventually(t, 60*time.Second, "simrobot started by roslaunch", func() error { return nodeListed(m) })
	rostest.Eventually(t, 30*time.Second, "/joint_states from the launched simrobot", func() error { return jointStatesFlow(m) })
}

func TestInitialPositionsAndPoseStartTheRobotThere(t *testing.T) {
	o, err := parseFlags([]string{"--initial-positions", "elbow_joint=2.55, shoulder_pan_joint=-0.5,gripper_finger_joint=0.01", "--initial-pose", "6,-1,0.5"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.New(o.cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Advance(100 * time.Millisecond)
	got := r.JointPositions()
	for name, want := range map[string]float64{"elbow_joint": 2.55, "shoulder_pan_joint": -0.5, "shoulder_lift_joint": 0, "gripper_finger_joint": 0.01} {
		if got[name] != want {
			t.Errorf("%s at %g, want %g", name, got[name], want)
		}
	}
	if p := r.BasePose(); p.X != 6 || p.Y != -1 || p.Yaw != 0.5 {
		t.Errorf("base at %+v, want 6,-1,0.5", p)
	}
}

func TestTableFlagPutsATableInTheWorld(t *testing.T) {
	o, err := parseFlags([]string{"--table", "0.5,-1,0, 2,1,0.4"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Box{Min: [3]float64{0.5, -1, 0}, Max: [3]float64{2, 1, 0.4}}
	if o.cfg.Table == nil || *o.cfg.Table != want {
		t.Fatalf("--table: %v, want %v", o.cfg.Table, want)
	}
	r, err := sim.New(o.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Collisions(); l.Table == nil || *l.Table != want {
		t.Fatalf("collision log table %v", l.Table)
	}
}

func TestOdomDriftFlagMakesOdometryLeaveTheTruePose(t *testing.T) {
	o, err := parseFlags([]string{"--odom-drift", "0.1,-0.05,0.02"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (sim.Pose2D{X: 0.1, Y: -0.05, Yaw: 0.02}); o.cfg.OdomDrift != want {
		t.Fatalf("--odom-drift: %+v, want %+v", o.cfg.OdomDrift, want)
	}
	r, err := sim.New(o.cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Advance(10 * time.Second)
	if p, truth := r.BasePose(), r.MapPose(); math.Hypot(p.X-truth.X, p.Y-truth.Y) < 0.5 {
		t.Fatalf("odometry %+v stayed on the true pose %+v", p, truth)
	}
	if _, err := parseFlags([]string{"--odom-drift", "0.1,NaN,0"}, &bytes.Buffer{}); err == nil {
		t.Fatal("--odom-drift with NaN accepted")
	}
}

func TestSecondArmFlagServesTheDualArmCellWithItsLimits(t *testing.T) {
	o, err := parseFlags([]string{"--second-arm", "--initial-positions", "arm2_elbow_joint=1.2,elbow_joint=-0.3"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.cfg.SecondArm || o.cfg.URDF != sim.DualArmURDF || o.jointLimits != sim.DualArmJointLimits {
		t.Fatalf("--second-arm: second arm %v, dual-arm URDF %v, dual-arm limits %v", o.cfg.SecondArm, o.cfg.URDF == sim.DualArmURDF, o.jointLimits == sim.DualArmJointLimits)
	}
	r, err := sim.New(o.cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Advance(100 * time.Millisecond)
	got := r.JointPositions()
	for name, want := range map[string]float64{"arm2_elbow_joint": 1.2, "elbow_joint": -0.3, "arm2_shoulder_pan_joint": 0} {
		if got[name] != want {
			t.Errorf("%s at %g, want %g", name, got[name], want)
		}
	}
	if o, err := parseFlags(nil, &bytes.Buffer{}); err != nil || o.cfg.SecondArm || o.cfg.URDF != sim.DefaultURDF || o.jointLimits != "" {
		t.Fatalf("without the flag: %v, second arm %v", err, o.cfg.SecondArm)
	}
}
