package promtest

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func TestPrometheusScrapesALoopbackTargetAndAnswersQueries(t *testing.T) {
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "promtest_probe_value", Help: "A value the test sets."})
	reg.MustRegister(g)
	g.Set(42)
	target := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})) // binds 127.0.0.1
	defer target.Close()

	s := Start(t, Config{Targets: []string{strings.TrimPrefix(target.URL, "http://")}})
	got := s.WaitFor(t, `promtest_probe_value{job="actbridge"}`, 30*time.Second, func(v []Sample) bool {
		return len(v) == 1 && v[0].Value == 42
	})
	if got[0].Labels["instance"] != strings.TrimPrefix(target.URL, "http://") {
		t.Errorf("instance label = %q, want the target address", got[0].Labels["instance"])
	}

	g.Set(7)
	s.WaitFor(t, `promtest_probe_value`, 30*time.Second, func(v []Sample) bool { return len(v) == 1 && v[0].Value == 7 })

	if _, err := s.Query(context.Background(), `sum(`); err == nil {
		t.Error("a malformed query returned no error")
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(context.Background(), `up`); err == nil {
		t.Error("the server still answers after Stop")
	}
}
