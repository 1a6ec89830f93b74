package bridge

import "testing"

// BenchmarkJointsReadOverHTTP is joints_read through the whole front door
// (net/http, admission, the MCP SDK, the pipeline, the audit observer):
// the bridge's CPU and garbage per read, which under a read flood decide
// how often the collector runs beside a stop.
func BenchmarkJointsReadOverHTTP(b *testing.B) {
	c, _ := servedSession(b, newRig(b))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.tool(b, "joints_read", map[string]any{})
	}
}
