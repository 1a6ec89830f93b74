//go:build crashpoints

package bridge

import (
	"fmt"
	"os"
	"syscall"
)

// CrashAtEnv names the dispatch stage at which a crashpoints build kills
// itself. It exists only in builds with the crashpoints tag: the crash
// tests build the bridge so; `go build ./cmd/...` never contains it.
const CrashAtEnv = "ACTBRIDGE_TEST_CRASH_AT"

// crashpoint SIGKILLs this process if CrashAtEnv names stage: no deferred
// call, no flush, as a power cut or an OOM kill would leave it.
func crashpoint(stage string) {
	if os.Getenv(CrashAtEnv) != stage {
		return
	}
	fmt.Fprintf(os.Stderr, "actbridge: crashing at %s (%s)\n", stage, CrashAtEnv)
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}

// crashHold blocks for good if CrashAtEnv names stage: the goroutine that
// reaches it never gets past it before the crash at stage kills the
// process (robot_stop's latch write, held so the crash after its cancels
// always beats it).
func crashHold(stage string) {
	if os.Getenv(CrashAtEnv) == stage {
		select {}
	}
}
