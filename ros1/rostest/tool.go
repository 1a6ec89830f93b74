package rostest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Python is the interpreter that has rospy and genpy; `python3` on PATH may
// be another one.
const Python = "/usr/bin/python3"

// Command prepares a ROS tool (rostopic, rosnode, rosparam, or Python) to run
// against this master. A bare name is looked up in /usr/bin, never on PATH.
// The process is killed by pid when ctx ends.
func (m *Master) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if !filepath.IsAbs(name) {
		name = filepath.Join("/usr/bin", name)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = m.Env()
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// Run runs a ROS tool to completion within timeout and returns what it
// printed (stdout and stderr). The error names the command and its output.
func (m *Master) Run(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := m.Command(ctx, name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w; output:\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
