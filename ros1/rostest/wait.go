package rostest

import (
	"testing"
	"time"
)

// Eventually polls cond until it returns nil, failing the test with cond's
// last error after timeout. Use generous timeouts: tests run on busy machines.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true after %s: %v", what, timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
