//go:build !crashpoints

package bridge

// crashpoint marks a dispatch stage ("before_commit", "after_commit",
// "after_publish"). In a production build it does nothing; only a build
// with the crashpoints tag (crashpoint_on.go) can die there, so
// the SIGKILL tests can stop the bridge exactly between two stages.
func crashpoint(string) {}

// crashHold marks a point a crash test may hold at (crashpoint_on.go), so
// the crash at another stage always comes first; it does nothing here.
func crashHold(string) {}
