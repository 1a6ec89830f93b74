package test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// buildExample builds examples/planner into the test's binaries.
func buildExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "planner")
	cmd := exec.Command("go", "build", "-o", bin, "../examples/planner")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("building examples/planner: %v", err)
	}
	return bin
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestExamplePlannerRunsThePickSequenceEachMotionOnce(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		bin := buildExample(t)
		w := newWorld(t, worldOpts{tr: tr, bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
		before := w.simGoals()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--url", "http://"+w.addr+"/mcp")
		cmd.Env = []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken}
		b, err := cmd.CombinedOutput()
		out := string(b)
		if err != nil {
			t.Fatalf("planner: %v\n%s", err, out)
		}
		t.Logf("the planner printed:\n%s", out)
		for _, want := range []string{"step 1: reach over the object", "step 4: drive to the drop-off", "preview ", "progress", "confirmed by planner"} {
			if !strings.Contains(out, want) {
				t.Fatalf("the planner's output lacks %q:\n%s", want, out)
			}
		}
		_, done, ok := strings.Cut(out, "\ndone: 4 motions: ")
		if !ok {
			t.Fatalf("no summary line:\n%s", out)
		}
		ids := strings.Fields(strings.SplitN(done, "\n", 2)[0])
		if len(ids) != 4 {
			t.Fatalf("motions %v", ids)
		}
		// Each motion reached the sim exactly once, under its motion id, on the
		// action of its step; no other goal arrived.
		after := w.simGoals()
		wantAction := []string{"arm", "gripper", "arm", "move_base"}
		total := 0
		for action, log := range after {
			n := log.Received - before[action].Received
			total += n
			if log.Duplicates != before[action].Duplicates {
				t.Fatalf("%s: the sim saw a goal id twice", action)
			}
		}
		if total != 4 {
			t.Fatalf("the sim received %d goals, want 4: %v", total, after)
		}
		for i, id := range ids {
			if !uuidRE.MatchString(id) {
				t.Fatalf("motion id %q", id)
			}
			seen := 0
			for _, g := range after[wantAction[i]].Goals {
				if g.ID == id {
					seen++
				}
			}
			if seen != 1 {
				t.Fatalf("motion %d (%s) reached %s %d times, want once; sim: %s", i+1, id, wantAction[i], seen, w.simGoalState(id))
			}
		}
	})
}

func TestExamplePlannerStopsAtTheFirstError(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		bin := buildExample(t)
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "the planner must not move a stopped robot"})
		before := w.goalsReceived()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b, err := exec.CommandContext(ctx, bin, "--url", "http://"+w.addr+"/mcp").CombinedOutput()
		out := string(b)
		if err == nil || !strings.Contains(out, "estop_latched") || strings.Contains(out, "step 2") {
			t.Fatalf("the planner went on after an error (%v):\n%s", err, out)
		}
		if w.goalsReceived() != before {
			t.Fatal("a goal reached the sim under a latched e-stop")
		}
	})
}

func TestExamplePlannerInterruptedCancelsItsMotionAndGoesNoFurther(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		bin := buildExample(t)
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		bridgetest.MustCall(t, cs, "speed_scale_set", map[string]any{"scale": 0.1}) // the first step then takes seconds
		before := w.goalsReceived()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--url", "http://"+w.addr+"/mcp")
		var out rostest.Buffer // stdout and stderr are copied by two goroutines
		pr, pw := io.Pipe()
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, pw), &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		confirmed := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if id, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "confirmed: motion "); ok {
					confirmed <- strings.Fields(id)[0]
				}
			}
		}()
		var id string
		select {
		case id = <-confirmed:
		case <-ctx.Done():
			t.Fatalf("the planner never confirmed:\n%s", out.String())
		}
		time.Sleep(300 * time.Millisecond) // inside the motion_status wait
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		pw.Close()
		if err == nil || !strings.Contains(out.String(), "canceled") || strings.Contains(out.String(), "step 2") {
			t.Fatalf("interrupted planner (%v):\n%s", err, out.String())
		}
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 10, "until": "end"})
		if st["terminal"] != true || st["state"] == "succeeded" {
			t.Fatalf("the interrupted planner's motion: %v", st)
		}
		if n := w.goalsReceived() - before; n != 1 {
			t.Fatalf("the sim received %d goals, want 1", n)
		}
	})
}
