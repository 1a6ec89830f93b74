package promtest

import (
	"reflect"
	"testing"
)

func TestExprMetricNamesFindsSelectorsAndNothingElse(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`rate(actbridge_tool_calls_total[5m])`, []string{"actbridge_tool_calls_total"}},
		{`sum by (tool, outcome) (rate(actbridge_tool_calls_total{tool!="x", outcome=~"ok|error"}[$__rate_interval]))`,
			[]string{"actbridge_tool_calls_total"}},
		{`sum(rate(a_total[5m])) by (code) / ignoring(code) group_left sum(rate(b_total[5m]))`, []string{"a_total", "b_total"}},
		{`histogram_quantile(0.99, sum by (le) (rate(actbridge_store_commit_duration_seconds_bucket[5m]))) > 0.25`,
			[]string{"actbridge_store_commit_duration_seconds_bucket"}},
		{`max_over_time(x[10m:1m]) offset 5m`, []string{"x"}},
		{`label_replace(foo, "dst", "$1", "src", "(.*)") and on(instance) bar`, []string{"foo", "bar"}},
		{`{__name__="by_name", job="a"}`, []string{"by_name"}},
		{`count(foo) > 1e-3 or vector(0)`, []string{"foo"}},
		{`topk(3, foo) unless bar == bool 1`, []string{"foo", "bar"}},
		{`sum without (instance) (foo:recorded:rate5m)`, []string{"foo:recorded:rate5m"}},
		{`foo{a="}"} + ${var} * $other`, []string{"foo"}},
		{`foo + foo`, []string{"foo"}},
		{"# a comment naming not_a_metric\nfoo", []string{"foo"}},
	} {
		got, err := ExprMetricNames(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("%s: got %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestExprMetricNamesRejectsUnclosedConstructs(t *testing.T) {
	for _, e := range []string{`foo{a="b"`, `rate(foo[5m)`, `foo{a="b}`, `"open`} {
		if _, err := ExprMetricNames(e); err == nil {
			t.Errorf("%q: no error", e)
		}
	}
}

func TestSeriesNamesExpandHistogramsAndSummaries(t *testing.T) {
	got := SeriesNames(map[string]string{"h": "HISTOGRAM", "s": "SUMMARY", "c_total": "COUNTER", "g": "GAUGE"})
	want := map[string]bool{"h_bucket": true, "h_sum": true, "h_count": true, "s": true, "s_sum": true, "s_count": true, "c_total": true, "g": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestUnknownNamesEachMissingMetricOnce(t *testing.T) {
	got, where, err := Unknown([]string{`rate(a_total[1m])`, `b + c`, `c`}, map[string]bool{"a_total": true, "b": true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"c"}) || where["c"] != "b + c" {
		t.Errorf("got %v %v", got, where)
	}
}
