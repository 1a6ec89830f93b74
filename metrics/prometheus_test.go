package metrics

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/test/promtest"
)

// TestRealPrometheusScrapesTheBridgeAndFiresItsAlerts serves the metrics to
// Debian's Prometheus with the shipped rules: values arrive, an alert fires,
// and every dashboard query is valid PromQL for the real server.
func TestRealPrometheusScrapesTheBridgeAndFiresItsAlerts(t *testing.T) {
	m := exercised(t) // e-stop latched, one motion unknown
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	p := promtest.Start(t, promtest.Config{
		Targets:   []string{strings.TrimPrefix(srv.URL, "http://")},
		RuleFiles: []string{alertsFile},
	})
	p.WaitFor(t, `actbridge_tool_calls_total{tool="motion_status",outcome="ok"}`, 30*time.Second, func(v []promtest.Sample) bool {
		return len(v) == 1 && v[0].Value == 1
	})
	p.WaitFor(t, `actbridge_joint_states_age_seconds{actuator="arm"}`, 30*time.Second, func(v []promtest.Sample) bool {
		return len(v) == 1 && v[0].Value == 0.5
	})
	for _, alert := range []string{"ActbridgeEStopLatched", "ActbridgeMotionsUnknown"} {
		p.WaitFor(t, `ALERTS{alertname="`+alert+`",alertstate="firing"}`, 30*time.Second, func(v []promtest.Sample) bool {
			return len(v) == 1
		})
	}
	exprs, err := promtest.DashboardExprs(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exprs {
		q := strings.ReplaceAll(promtest.Concrete(e), "$instance", ".*")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := p.Query(ctx, q); err != nil {
			t.Errorf("dashboard query rejected by Prometheus: %v", err)
		}
		cancel()
	}
}
