package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionSources(t *testing.T) {
	t.Parallel()
	devel := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	tagged := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	cases := []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		ok     bool
		want   string
	}{
		{"work tree build", "", devel, true, "quokka v0.1.0-dev (go1.26.8, "},
		{"no build info", "", nil, false, "quokka v0.1.0-dev (go"},
		{"go install at a tag", "", tagged, true, "quokka v0.3.0 (go1.26.8, "},
		{"ldflags win", "v9.9.9", tagged, true, "quokka v9.9.9 (go1.26.8, "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := fromBuildInfo(tc.linked, tc.bi, tc.ok).String()
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("String() = %q; want prefix %q", got, tc.want)
			}
		})
	}
	if got := fromBuildInfo("", tagged, true).String(); !strings.HasSuffix(got, ", commit 0123456789ab-dirty)") {
		t.Errorf("String() = %q; want the short, dirty commit", got)
	}
}
