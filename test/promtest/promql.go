package promtest

import (
	"fmt"
	"sort"
	"strings"
)

// keywords are PromQL words that are never metric names: aggregation
// operators (which may come before their "by" clause), binary operators and
// modifiers, and literals.
var keywords = map[string]bool{
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true,
	"count": true, "count_values": true, "bottomk": true, "topk": true, "quantile": true,
	"limitk": true, "limit_ratio": true,
	"and": true, "or": true, "unless": true, "atan2": true, "bool": true, "offset": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true,
}

// labelListKeywords are followed by a parenthesised list of label names.
var labelListKeywords = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// ExprMetricNames returns the metric names a PromQL expression selects, in
// order, without duplicates. It skips functions, keywords, label matchers
// ({...}), ranges and subqueries ([...]), strings, numbers, Grafana
// variables ($x) and label lists after by/without/on/ignoring/group_*; a
// {__name__="x"} matcher names x.
func ExprMetricNames(expr string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	i := 0
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			end, err := skipString(expr, i)
			if err != nil {
				return nil, err
			}
			i = end
		case c == '#': // comment to end of line
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '{':
			end, name, err := matchers(expr, i)
			if err != nil {
				return nil, err
			}
			if name != "" {
				add(name)
			}
			i = end
		case c == '[':
			end := strings.IndexByte(expr[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ at %d in %q", i, expr)
			}
			i += end + 1
		case c == '$':
			i++
			if i < len(expr) && expr[i] == '{' {
				end := strings.IndexByte(expr[i:], '}')
				if end < 0 {
					return nil, fmt.Errorf("unclosed ${ at %d in %q", i, expr)
				}
				i += end + 1
				continue
			}
			for i < len(expr) && isNameByte(expr[i]) {
				i++
			}
		case c >= '0' && c <= '9' || c == '.':
			for i < len(expr) && (isNameByte(expr[i]) || expr[i] == '.' ||
				(expr[i] == '+' || expr[i] == '-') && (expr[i-1] == 'e' || expr[i-1] == 'E')) {
				i++
			}
		case isNameStart(c):
			j := i
			for j < len(expr) && (isNameByte(expr[j]) || expr[j] == ':') {
				j++
			}
			word := expr[i:j]
			next := j
			for next < len(expr) && (expr[next] == ' ' || expr[next] == '\t' || expr[next] == '\n' || expr[next] == '\r') {
				next++
			}
			lower := strings.ToLower(word)
			switch {
			case labelListKeywords[lower] && next < len(expr) && expr[next] == '(':
				end := strings.IndexByte(expr[next:], ')')
				if end < 0 {
					return nil, fmt.Errorf("unclosed label list after %s in %q", word, expr)
				}
				j = next + end + 1
			case keywords[lower]:
			case next < len(expr) && expr[next] == '(':
				// a function call
			default:
				add(word)
			}
			i = j
		default:
			i++
		}
	}
	return names, nil
}

func isNameStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

// skipString returns the index after the string literal starting at i.
func skipString(s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unclosed string at %d in %q", i, s)
}

// matchers skips a {...} label matcher list starting at i, returning the
// index after it and the value of a __name__="x" matcher, if any.
func matchers(s string, i int) (int, string, error) {
	name := ""
	j := i + 1
	for j < len(s) {
		switch c := s[j]; {
		case c == '}':
			return j + 1, name, nil
		case c == '"' || c == '\'' || c == '`':
			end, err := skipString(s, j)
			if err != nil {
				return 0, "", err
			}
			j = end
		case strings.HasPrefix(s[j:], "__name__"):
			k := j + len("__name__")
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if k < len(s) && s[k] == '=' && (k+1 >= len(s) || s[k+1] != '~') {
				k++
				for k < len(s) && s[k] == ' ' {
					k++
				}
				if k < len(s) && (s[k] == '"' || s[k] == '\'' || s[k] == '`') {
					end, err := skipString(s, k)
					if err != nil {
						return 0, "", err
					}
					name = s[k+1 : end-1]
					j = end
					continue
				}
			}
			j = k
		default:
			j++
		}
	}
	return 0, "", fmt.Errorf("unclosed { at %d in %q", i, s)
}

// SeriesNames expands metric family names (as Gather reports them) into
// the series names PromQL can select: a histogram x gives x_bucket, x_sum,
// x_count; a summary x gives x, x_sum, x_count. histograms and summaries
// name the families of those types.
func SeriesNames(families map[string]string) map[string]bool {
	out := map[string]bool{}
	for name, typ := range families {
		switch typ {
		case "HISTOGRAM", "GAUGE_HISTOGRAM":
			out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
		case "SUMMARY":
			out[name], out[name+"_sum"], out[name+"_count"] = true, true, true
		default:
			out[name] = true
		}
	}
	return out
}

// Unknown returns, sorted, the metric names used by exprs that are not in
// known; the map says which expression used each.
func Unknown(exprs []string, known map[string]bool) ([]string, map[string]string, error) {
	where := map[string]string{}
	for _, e := range exprs {
		names, err := ExprMetricNames(e)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range names {
			if !known[n] {
				if _, dup := where[n]; !dup {
					where[n] = e
				}
			}
		}
	}
	out := make([]string, 0, len(where))
	for n := range where {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, where, nil
}
