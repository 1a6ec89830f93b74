package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestShippedConfigsNameEveryFileUnderLaunchRobots(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(launchDir, "robots", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := slices.Clone(shippedConfigs)
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("launch/robots holds %v, shippedConfigs says %v", names, want)
	}
	if _, err := os.Stat(filepath.Join("../..", demoConfig)); err != nil {
		t.Fatalf("the default config: %v", err)
	}
}

// A checkout's root is where make demo runs: without --config the commands
// read the ROS 2 demo's robot.
func TestCommandsWithoutConfigReadTheROS2DemoRobot(t *testing.T) {
	t.Chdir("../..")
	var out bytes.Buffer
	if err := checkConfig(nil, &out); err != nil {
		t.Fatalf("check-config: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "config launch/robots/sim-ros2.yaml: ok") {
		t.Fatalf("check-config without --config read another file:\n%s", out.String())
	}
}

// Outside a checkout the default names nothing: each command refuses with
// the shipped configs named instead of a bare "no such file".
func TestCommandsWithoutConfigOutsideACheckoutNameTheShippedConfigs(t *testing.T) {
	t.Chdir(t.TempDir())
	for name, call := range map[string]func() error{
		"serve": func() error {
			return serve(context.Background(), []string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, io.Discard, io.Discard)
		},
		"check-config": func() error { return checkConfig(nil, io.Discard) },
		"tools export": func() error { return toolsExport(nil, io.Discard) },
	} {
		err := call()
		var ue usageError
		if !errors.As(err, &ue) {
			t.Fatalf("%s: %v, want a usage error", name, err)
		}
		for _, c := range shippedConfigs {
			if !strings.Contains(err.Error(), c) {
				t.Errorf("%s: the refusal does not name %s: %v", name, c, err)
			}
		}
	}
}
