package promtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// DashboardExprs returns every PromQL expression in a Grafana dashboard JSON
// file: each target's "expr", and the selector of each query variable
// (label_values(selector, label), query_result(expr)), in no set order.
func DashboardExprs(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if e, ok := x["expr"].(string); ok {
				out = append(out, e)
			}
			if x["type"] == "query" {
				if e := variableExpr(x["query"]); e != "" {
					out = append(out, e)
				}
			}
			for k, e := range x {
				if k != "expr" {
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	return out, nil
}

// variableExpr is the PromQL inside a query variable's query (a string, or
// an object holding it), or "" when it selects no metric.
func variableExpr(q any) string {
	if m, ok := q.(map[string]any); ok {
		q = m["query"]
	}
	s, _ := q.(string)
	s = strings.TrimSpace(s)
	inner := func(fn string) (string, bool) {
		if !strings.HasPrefix(s, fn+"(") || !strings.HasSuffix(s, ")") {
			return "", false
		}
		return s[len(fn)+1 : len(s)-1], true
	}
	if args, ok := inner("label_values"); ok {
		if i := strings.LastIndexByte(args, ','); i >= 0 {
			return strings.TrimSpace(args[:i])
		}
		return "" // label_values(label): no metric
	}
	if e, ok := inner("query_result"); ok {
		return e
	}
	return ""
}

// Grafana replaces these before a query reaches Prometheus; Concrete does
// the same so an expression can be sent to a real server.
var grafanaVariables = strings.NewReplacer(
	"$__rate_interval", "1m", "${__rate_interval}", "1m",
	"$__interval", "1m", "${__interval}", "1m",
	"$__range", "5m", "${__range}", "5m",
)

// Concrete substitutes Grafana's interval variables with fixed durations.
func Concrete(expr string) string { return grafanaVariables.Replace(expr) }
