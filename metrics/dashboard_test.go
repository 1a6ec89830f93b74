package metrics

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/actbridge/actbridge/test/promtest"
)

const (
	dashboardFile = "../launch/grafana/actbridge.json"
	alertsFile    = "../launch/alerts.yml"
)

// exportedSeries are the series names a bridge's /metrics can offer, after
// every metric has been exercised (histograms as _bucket, _sum, _count).
func exportedSeries(t *testing.T) map[string]bool {
	t.Helper()
	fams, err := exercised(t).reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return promtest.SeriesNames(promtest.Families(fams))
}

func TestDashboardQueriesOnlyExportedMetrics(t *testing.T) {
	exprs, err := promtest.DashboardExprs(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(exprs) < 10 {
		t.Fatalf("only %d expressions in %s", len(exprs), dashboardFile)
	}
	unknown, where, err := promtest.Unknown(exprs, exportedSeries(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range unknown {
		t.Errorf("%s queries %s, which the bridge does not export: %s", dashboardFile, n, where[n])
	}
}

func TestDashboardShowsWhatTheIssueAsksFor(t *testing.T) {
	exprs, err := promtest.DashboardExprs(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, e := range exprs {
		names, err := promtest.ExprMetricNames(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			used[n] = true
		}
	}
	for _, n := range []string{
		"actbridge_tool_calls_total", "actbridge_tool_errors_total", "actbridge_motions_finished_total",
		"actbridge_motions_in_flight", "actbridge_estop_latched", "actbridge_tool_call_duration_seconds_bucket",
	} {
		if !used[n] {
			t.Errorf("the dashboard does not show %s", n)
		}
	}
}

// alertExprs reads the expr of every rule in a Prometheus rule file.
func alertExprs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			out[r.Alert] = r.Expr
		}
	}
	return out
}

func TestAlertRulesUseOnlyExportedMetrics(t *testing.T) {
	known := exportedSeries(t)
	known["up"] = true // Prometheus's own per-target series
	for alert, expr := range alertExprs(t, alertsFile) {
		unknown, _, err := promtest.Unknown([]string{expr}, known)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range unknown {
			t.Errorf("alert %s uses %s, which the bridge does not export", alert, n)
		}
	}
}

func TestAlertRulesCoverTheIssue(t *testing.T) {
	rules := alertExprs(t, alertsFile)
	for _, a := range []string{"ActbridgeEStopLatched", "ActbridgeControllerOffline", "ActbridgeMotionsUnknown",
		"ActbridgePlannerValidationFailures", "ActbridgeStoreCommitSlow", "ActbridgeJointStatesStale"} {
		if _, ok := rules[a]; !ok {
			t.Errorf("%s has no alert %s", alertsFile, a)
		}
	}
}
