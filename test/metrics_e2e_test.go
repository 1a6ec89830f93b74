package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/test/promtest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// TestPrometheusScrapesWhatHappened runs Debian's Prometheus against a
// bridge driving the sim and checks the scraped counters and gauges match
// the calls made; then checks every dashboard query names a live metric.
func TestPrometheusScrapesWhatHappened(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		prom := promtest.Start(t, promtest.Config{Targets: []string{w.addr}, RuleFiles: []string{"../launch/alerts.yml"}})
		cs := w.mcpClient("")

		// 2 successful motions, 1 limit violation, 1 schema refusal, 1 replay.
		for _, pos := range []float64{0.03, 0.05} {
			pv := bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": pos})
			c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
			rostest.Eventually(t, 30*time.Second, "gripper motion ends", func() error {
				st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": c["motion_id"], "wait_s": 3})
				if st["state"] != "succeeded" {
					return errState(st)
				}
				return nil
			})
			if pos == 0.05 {
				bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]}) // replay
			}
		}
		bridgetest.Call(t, cs, "base_navigate", map[string]any{"x": 50.0, "y": 0.0})
		bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"nope": 1.0}})
		// A read service answered at once issues no preview; the console's
		// denial of an arm preview counts under arm_move_joints.
		bridgetest.MustCall(t, cs, "service_call", map[string]any{"service": readService[tr]})
		arm := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": -0.3}})
		body, _ := json.Marshal(map[string]any{"preview_id": arm["preview_id"]})
		req, err := http.NewRequest("POST", "http://"+w.addr+"/console/api/deny", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+w.operatorToken())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("console deny: %s", resp.Status)
		}

		want := map[string]float64{
			`sum(actbridge_tool_calls_total{tool="motion_confirm",outcome="ok"})`:           2,
			`sum(actbridge_tool_errors_total{tool="base_navigate",code="limit_violation"})`: 1,
			`sum(actbridge_validation_failures_total{layer="schema"})`:                      1,
			`sum(actbridge_idempotent_replays_total)`:                                       1,
			`sum(actbridge_motions_finished_total{actuator="gripper",state="succeeded"})`:   2,
			`sum(actbridge_motions_in_flight)`:                                              0,
			`actbridge_estop_latched`:                                                       0,
			`actbridge_ros_master_reachable`:                                                1,
			`sum(actbridge_actuator_connected)`:                                             3,
			`sum(actbridge_previews_issued_total{tool="gripper_move"})`:                     2,
			`sum(actbridge_previews_issued_total{tool="service_call"})`:                     0,
			`sum(actbridge_previews_confirmed_total{tool="gripper_move",role="planner"})`:   2,
			`sum(actbridge_previews_denied_total{tool="arm_move_joints",via="console"})`:    1,
			`sum(actbridge_tool_calls_total{tool="preview_deny",outcome="ok"})`:             1,
			`sum(actbridge_tool_calls_total{tool="unregistered"}) or vector(0)`:             0,
			`sum(actbridge_store_commit_duration_seconds_count) > 0`:                        1,
		}
		for q, v := range want {
			prom.WaitFor(t, q, 60*time.Second, func(s []promtest.Sample) bool {
				if q == `sum(actbridge_store_commit_duration_seconds_count) > 0` {
					return len(s) == 1
				}
				return len(s) == 1 && s[0].Value == v
			})
		}
		bridgetest.MustCall(t, cs, "robot_stop", map[string]any{})
		prom.WaitFor(t, `ALERTS{alertname=~".*[Ee][Ss]top.*",alertstate="firing"}`, 60*time.Second, func(s []promtest.Sample) bool { return len(s) >= 1 })

		// Every dashboard query names a metric the live bridge exports.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		fams, err := promtest.ScrapeFamilies(ctx, "http://"+w.addr+"/metrics")
		if err != nil {
			t.Fatal(err)
		}
		exprs, err := promtest.DashboardExprs("../launch/grafana/actbridge.json")
		if err != nil {
			t.Fatal(err)
		}
		for i := range exprs {
			exprs[i] = promtest.Concrete(exprs[i])
		}
		unknown, where, err := promtest.Unknown(exprs, promtest.SeriesNames(fams))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range unknown {
			t.Errorf("dashboard queries %s, which the bridge does not export (in %s)", n, where[n])
		}
		if len(exprs) < 6 {
			t.Fatal(fmt.Sprintf("only %d dashboard queries", len(exprs)))
		}
	})
}
