// Package version tells which Quokka binary is running. It is a package of its own
// so that the manager, the simulator's reports and the CLI print the same thing,
// and so that release builds have a single -ldflags target:
//
//	go build -ldflags "-X quokka.dev/quokka/internal/version.Version=v0.1.0" ./cmd/quokka
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at link time by release builds. When it is empty the version is
// taken from the module's build information, so `go install ...@v0.1.0` reports
// v0.1.0 without any flag.
var Version = ""

// BuildDate is set at link time by release builds (for example
// -X quokka.dev/quokka/internal/version.BuildDate=2026-12-06T00:00:00Z); a
// build without it reports an empty date rather than the commit's time,
// which is not when the binary was built.
var BuildDate = ""

// DevVersion is reported by a build from a work tree, which has no module version.
const DevVersion = "v0.1.0-dev"

// Info describes the running binary.
type Info struct {
	Version   string
	GoVersion string
	Platform  string
	// Compiler is the Go toolchain's (runtime.Compiler); BuildDate is the
	// link-time BuildDate.
	Compiler  string
	BuildDate string
	// Commit and Modified come from the VCS stamp, when the build recorded one.
	Commit   string
	Modified bool
}

// Get returns the running binary's Info.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	info := fromBuildInfo(Version, bi, ok)
	info.BuildDate = BuildDate
	return info
}

// fromBuildInfo is Get with its inputs passed in, so that every branch is testable.
func fromBuildInfo(linked string, bi *debug.BuildInfo, ok bool) Info {
	info := Info{
		Version:   DevVersion,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
		Compiler:  runtime.Compiler,
	}
	if ok && bi != nil {
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			info.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if linked != "" {
		info.Version = linked
	}
	return info
}

// String is the one-line form `quokka version` prints, for example
// "quokka v0.1.0-dev (go1.26.8, linux/amd64, commit 0123abcd)".
func (i Info) String() string {
	details := i.GoVersion + ", " + i.Platform
	if i.Commit != "" {
		commit := i.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if i.Modified {
			commit += "-dirty"
		}
		details += ", commit " + commit
	}
	return fmt.Sprintf("quokka %s (%s)", i.Version, details)
}
