// Package version is what a binary says it is: its version, the commit it
// was built from and when. `make release` stamps them with -ldflags -X;
// a plain `go build` or `go install module@version` falls back to what the
// Go toolchain recorded (the module version, the VCS revision and time).
package version

import (
	"runtime/debug"
	"strings"
)

// Stamped by the linker (-X github.com/actbridge/actbridge/version.version=…);
// empty in an unstamped build. Never assigned at run time.
var (
	version string
	commit  string
	date    string
)

// Info is a build's identity.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// devel is the version of a build from a work tree that nothing stamped.
const devel = "devel"

// Get returns the stamped identity, filled in from the toolchain's build
// information where the linker stamped nothing.
func Get() Info {
	i := Info{Version: version, Commit: commit, Date: date}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return orUnknown(i)
	}
	if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		i.Version = strings.TrimPrefix(bi.Main.Version, "v")
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && i.Commit == "":
			i.Commit = s.Value
		case s.Key == "vcs.time" && i.Date == "":
			i.Date = s.Value
		case s.Key == "vcs.modified" && s.Value == "true" && version == "" && commit == "":
			i.Commit += "-dirty"
		}
	}
	return orUnknown(i)
}

func orUnknown(i Info) Info {
	if i.Version == "" {
		i.Version = devel
	}
	if i.Commit == "" || i.Commit == "-dirty" {
		i.Commit = "unknown"
	}
	if i.Date == "" {
		i.Date = "unknown"
	}
	return i
}

// String is the one line `actbridge version` prints.
func (i Info) String() string {
	return i.Version + " (commit " + i.Commit + ", built " + i.Date + ")"
}
