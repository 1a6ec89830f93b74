package test

import (
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

func TestPreviewConfirmReachesTargetAndPreviewMatchesWhatTheSimDid(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
		joints := desc["joints"].([]any)
		if len(joints) < 6 || joints[0].(map[string]any)["name"] == "" {
			t.Fatalf("robot_describe joints: %v", joints)
		}
		before := w.goalsReceived()
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.4, "elbow_joint": -0.3}})
		if w.goalsReceived() != before {
			t.Fatal("a preview reached the robot")
		}
		dur := pv["duration_s"].(float64)
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		id := c["motion_id"].(string)
		start := time.Now()
		var st map[string]any
		rostest.Eventually(t, 60*time.Second, "motion succeeds", func() error {
			st = bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 5})
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		took := time.Since(start).Seconds()
		if took < dur*0.8 {
			t.Fatalf("motion took %.2fs, preview said %.2fs", took, dur)
		}
		js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{"shoulder_pan_joint", "elbow_joint"}})
		got := js["joints"].([]any)
		for i, want := range []float64{0.4, -0.3} {
			p := got[i].(map[string]any)["position"].(float64)
			if math.Abs(p-want) > 0.01 {
				t.Fatalf("joint %d at %.4f, want %.4f", i, p, want)
			}
		}
		if n := w.goalsReceived() - before; n != 1 {
			t.Fatalf("sim received %d goals, want 1", n)
		}
		// A confirm retried after the motion ended returns it, never reruns it.
		again := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		if again["motion_id"] != id || again["state"] != "succeeded" || again["replay"] != true {
			t.Fatalf("retry: %v", again)
		}
		if n := w.goalsReceived() - before; n != 1 {
			t.Fatalf("sim received %d goals after a retried confirm", n)
		}
	})
}

type stateErr struct{ s string }

func (e stateErr) Error() string { return "state " + e.s }

func errState(m map[string]any) error {
	s, _ := m["state"].(string)
	return stateErr{s}
}
