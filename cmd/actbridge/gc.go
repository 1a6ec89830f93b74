package main

import "runtime/debug"

// Collector settings of a serving bridge; GOGC and GOMEMLIMIT in the
// environment win. The MCP SDK makes about 190 KB of garbage a request
// (a 32 KB decoder buffer per message it parses), so under a read flood
// the default GOGC=100 collected a 10 MB live heap 50 times a second,
// marking a third of the time beside every stop; 400 collects a quarter
// as often (stop p99 -25 % in the bench, docs/bench.md). The soft limit
// keeps the heap from growing past it under a flood: the collector works
// harder near 48 MiB instead (docs/operations.md, Memory).
const (
	gcPercent = 400
	gcLimit   = 48 << 20
)

// gcSettings applies them where the environment (getenv) sets none.
func gcSettings(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcLimit)
	}
}
