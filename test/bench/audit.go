package bench

import (
	"bufio"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/actbridge/actbridge/inflight"
)

// toolCalls sums actbridge_tool_calls_total from the bridge's /metrics.
func (w *World) toolCalls() (float64, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + w.Addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "actbridge_tool_calls_total{") {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %w", l, err)
		}
		sum += v
	}
	return sum, sc.Err()
}

// AuditResult compares the calls the bridge counted with the audit lines
// it wrote.
type AuditResult struct {
	Calls, Lines float64
}

// MeasureAudit closes the world (after letting the audit queue drain for
// a few seconds) and counts the audit lines in its store against the
// calls its metrics counted. Every call of the run is in both.
func MeasureAudit(w *World) (Row, AuditResult) {
	tb := w.env.TB
	var res AuditResult
	time.Sleep(3 * time.Second)
	calls, err := w.toolCalls()
	if err != nil {
		tb.Fatalf("metrics: %v", err)
	}
	w.Close()
	st, err := inflight.Open(filepath.Join(w.DataDir, "actbridge.db"), inflight.Options{ReadOnly: true})
	if err != nil {
		tb.Fatalf("open the bridge's store: %v", err)
	}
	defer st.Close()
	s, err := st.Stats()
	if err != nil {
		tb.Fatal(err)
	}
	res.Calls, res.Lines = calls, float64(s.Audit)
	r := res.Lines / res.Calls
	return Row{
		Key:    "audit",
		What:   "audit log completeness over the whole run above (confirms, navigation, read loads, stops)",
		Result: fmt.Sprintf("%.0f audit lines", res.Lines),
		Floor:  fmt.Sprintf("%.0f tool calls counted by /metrics", res.Calls),
		Ratio:  fmt.Sprintf("%.0f %% audited", 100*r),
		Target: "every call audited (not in the issue: found here)",
		Met:    yes(r >= 0.999),
		Values: map[string]float64{"calls": res.Calls, "lines": res.Lines},
	}, res
}
