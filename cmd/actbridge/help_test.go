package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// "-h" prints a command's flags and returns: serve must not go on to join
// the robot's graph, check-config to check, motions to open a store. Run
// outside a checkout, where each of them would fail if it went on.
func TestHelpFlagPrintsTheFlagsAndRunsNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("ACTBRIDGE_DATA_DIR", t.TempDir())
	for _, args := range [][]string{
		{"serve", "-h"}, {"check-config", "-h"}, {"tools", "export", "-h"},
		{"motions", "-h"}, {"audit", "-h"}, {"ros2", "topics", "-h"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, &out); err != nil {
			t.Errorf("%v: %v", args, err)
		}
		if !strings.Contains(out.String(), "-") || strings.Contains(out.String(), "serving") {
			t.Errorf("%v printed:\n%s", args, out.String())
		}
	}
}
