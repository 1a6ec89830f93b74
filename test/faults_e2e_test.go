package test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// ROS 1 only: a ROS 2 graph has no master to restart.
func TestMasterRestartMidMotionIsTrackedToItsEnd(t *testing.T) {
	w := newWorld(t, worldOpts{})
	cs := w.mcpClient("")
	pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_lift_joint": -0.6}, "speed_fraction": 0.3})
	c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id := c["motion_id"].(string)
	w.master.Kill()
	// New calls during the outage are refused as unavailable, retryable.
	rostest.Eventually(t, 15*time.Second, "calls refused while the master is down", func() error {
		out, isErr := bridgetest.Call(t, cs, "topics_list", map[string]any{})
		if !isErr || out["code"] != "unavailable" || out["retryable"] != true || out["release"] == "" {
			return fmt.Errorf("%v", out)
		}
		return nil
	})
	time.Sleep(500 * time.Millisecond)
	w.master.Restart()
	back := time.Now()
	rostest.Eventually(t, 20*time.Second, "bridge registered again", func() error {
		out, err := w.master.Run(10*time.Second, "rosnode", "list")
		if err != nil || !strings.Contains(out, "/actbridge") {
			return fmt.Errorf("%q %v", out, err)
		}
		return nil
	})
	if d := time.Since(back); d > 15*time.Second {
		t.Errorf("re-registration took %s", d)
	}
	rostest.Eventually(t, 60*time.Second, "motion tracked to its end", func() error {
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
		if st["state"] != "succeeded" {
			return errState(st)
		}
		return nil
	})
}

func TestActionServerKilledMidMotionBecomesUnknownNotFailed(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": -1.0}, "speed_fraction": 0.2})
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		id := c["motion_id"].(string)
		time.Sleep(700 * time.Millisecond)
		w.crashSim()
		var st map[string]any
		rostest.Eventually(t, 40*time.Second, "motion becomes unknown", func() error {
			st = bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
			if st["state"] != "unknown" {
				return errState(st)
			}
			return nil
		})
		rostest.Eventually(t, 20*time.Second, "arm reported offline", func() error {
			d := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
			for _, a := range d["actuators"].([]any) {
				if m := a.(map[string]any); m["name"] == "arm" && m["connected"] == false {
					return nil
				}
			}
			return fmt.Errorf("arm still connected")
		})
		// The sim returns; a new preview and confirm work, and the unknown
		// motion was never resent.
		w.startSim()
		var c2 map[string]any
		rostest.Eventually(t, 40*time.Second, "new motion accepted after the sim returns", func() error {
			pv2, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": -0.2}})
			if isErr {
				return fmt.Errorf("%v", pv2)
			}
			out, isErr := bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": pv2["preview_id"]})
			if isErr {
				return fmt.Errorf("%v", out)
			}
			c2 = out
			return nil
		})
		rostest.Eventually(t, 40*time.Second, "new motion succeeds", func() error {
			st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": c2["motion_id"], "wait_s": 3})
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		if n := w.idsOnWire()[id]; n != 0 {
			t.Fatalf("the unknown motion was resent to the new sim %d times", n)
		}
	})
}

func TestSilentActionServerLeavesTheMotionSentNotFailed(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		w.setFault("gripper/ignore_goals", true)
		pv := bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.06})
		start := time.Now()
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		if time.Since(start) > 20*time.Second {
			t.Fatalf("confirm took %s", time.Since(start))
		}
		if c["state"] != "sent" {
			t.Fatalf("confirm: %v", c)
		}
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": c["motion_id"], "wait_s": 2})
		if st["state"] != "sent" && st["state"] != "unknown" {
			t.Fatalf("silent server: %v", st)
		}
		if w.simGoals()["gripper"].Received != 1 {
			t.Fatal("goal not received exactly once")
		}
	})
}

func TestSlowROSSideCausesNoDuplicatesOrFalseFailures(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		w.setFault("arm/delay_ms", 800)
		w.setFault("gripper/delay_ms", 800)
		var ids []string
		for i, pos := range []float64{0.02, 0.05} {
			pv := bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": pos})
			c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
			ids = append(ids, c["motion_id"].(string))
			rostest.Eventually(t, 60*time.Second, fmt.Sprintf("slow motion %d succeeds", i), func() error {
				st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": ids[i], "wait_s": 3})
				if st["state"] != "succeeded" {
					return errState(st)
				}
				return nil
			})
		}
		for _, id := range ids {
			if n := w.idsOnWire()[id]; n != 1 {
				t.Fatalf("goal %s on the wire %d times", id, n)
			}
		}
	})
}

func TestMalformedHTTPRequestsNeverReachTheRobot(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
		before := w.goalsReceived()
		bodies := []string{
			`not json`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"motion_confirm","arguments":{"preview_id":5}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, strings.Repeat("[", 100000), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`,
		}
		n := 0
		for i := 0; i < 10000; i++ {
			body := bodies[i%len(bodies)]
			if i%1000 == 999 {
				body = `{"a":"` + strings.Repeat("x", 2<<20) + `"}` // oversized
			}
			req, _ := http.NewRequest(http.MethodPost, "http://"+w.addr+"/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			switch i % 3 {
			case 0: // no token
			case 1:
				req.Header.Set("Authorization", "Bearer wrong-token")
			default:
				req.Header.Set("Authorization", "Bearer "+plannerToken)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("request %d: the bridge stopped answering: %v", i, err)
			}
			rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if i%3 != 2 && resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("request %d without a valid token answered %d", i, resp.StatusCode)
			}
			// Either an HTTP error, or a JSON-RPC error / tool error object.
			if resp.StatusCode < 400 && !strings.Contains(string(rb), `"error"`) && !strings.Contains(string(rb), `"isError":true`) {
				t.Fatalf("request %d answered %d without an error: %s", i, resp.StatusCode, rb)
			}
			n++
		}
		resp, err := http.Get("http://" + w.addr + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("bridge unhealthy after %d malformed requests: %v", n, err)
		}
		resp.Body.Close()
		if w.goalsReceived() != before {
			t.Fatal("a malformed request reached the robot")
		}
	})
}

func TestThirtyTwoConcurrentConfirmsPutOneGoalOnTheWire(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		pv := bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.045})
		before := w.goalsReceived()
		ids := make(chan string, 32)
		var wg sync.WaitGroup
		for i := 0; i < 32; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := w.mcpClient("")
				out, err := callQuiet(c, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
				if err != nil {
					t.Error(err)
					return
				}
				id, _ := out["motion_id"].(string)
				ids <- id + " " + fmt.Sprint(out["code"])
			}()
		}
		wg.Wait()
		close(ids)
		var first string
		for id := range ids {
			if first == "" {
				first = id
			}
			if id != first {
				t.Fatalf("answers differ: %q vs %q", first, id)
			}
		}
		time.Sleep(time.Second)
		if n := w.goalsReceived() - before; n != 1 {
			t.Fatalf("%d goals on the wire", n)
		}
	})
}
