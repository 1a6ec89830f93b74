package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The serving bridge's collector settings apply where the environment
// sets none, and never over what it sets.
func TestGCSettingsLeaveTheEnvironmentsAlone(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
	for _, c := range []struct {
		name                   string
		env                    map[string]string
		wantPercent, wantLimit int64
	}{
		{"unset", nil, gcPercent, gcLimit},
		{"GOGC set", map[string]string{"GOGC": "100"}, 100, gcLimit},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, gcPercent, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			gcSettings(func(k string) string { return c.env[k] })
			if got := int64(debug.SetGCPercent(100)); got != c.wantPercent {
				t.Errorf("GOGC %d, want %d", got, c.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != c.wantLimit {
				t.Errorf("memory limit %d, want %d", got, c.wantLimit)
			}
		})
	}
}
