package promtest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDashboardExprsReadsTargetsAndQueryVariables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.json")
	doc := `{"templating": {"list": [
	    {"type": "datasource", "query": "prometheus"},
	    {"type": "query", "query": {"query": "label_values(a_total{job=\"x\"}, instance)"}},
	    {"type": "query", "query": "label_values(instance)"},
	    {"type": "query", "query": "query_result(topk(3, b))"}]},
	  "panels": [{"targets": [{"expr": "rate(c_total[5m])"}]},
	             {"type": "row", "panels": [{"targets": [{"expr": "d"}]}]}]}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := DashboardExprs(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{`a_total{job="x"}`: true, "topk(3, b)": true, "rate(c_total[5m])": true, "d": true}
	gotSet := map[string]bool{}
	for _, e := range got {
		gotSet[e] = true
	}
	if !reflect.DeepEqual(gotSet, want) || len(got) != len(want) {
		t.Errorf("got %q, want %v", got, want)
	}
}

func TestConcreteReplacesGrafanaIntervals(t *testing.T) {
	if got := Concrete("rate(x[$__rate_interval]) + rate(y[${__interval}])"); got != "rate(x[1m]) + rate(y[1m])" {
		t.Errorf("got %q", got)
	}
}
