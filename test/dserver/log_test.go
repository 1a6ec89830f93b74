package dserver

import (
	"log/slog"
	"testing"

	"github.com/actbridge/actbridge/ros1/rostest"
)

// debugLog keeps a participant's debug log and prints it when the test
// fails (or runs with -v): what discovery did is what a flaky failure
// needs.
func debugLog(t *testing.T) *slog.Logger {
	t.Helper()
	b := &rostest.Buffer{}
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("bridge participant's debug log:\n%s", b.String())
		}
	})
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
