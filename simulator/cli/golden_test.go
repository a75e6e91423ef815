package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestGoldenJSON pins the whole JSON output of every example, so that any change in
// what the simulator (or the engine behind it) decides shows up as a diff to review.
// Regenerate with: go test ./simulator/cli -run TestGoldenJSON -update
//
// The goldens record what the engine does today: when a feature such as preemption
// lands, the gpu-cluster golden changes and the TestSpec* tests start checking the
// spec's numbers.
func TestGoldenJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		skipFor func(t *testing.T)
	}{
		{name: "gpu-cluster", args: []string{"-f", repo("examples", "gpu-cluster")}},
		{name: "gpu-cluster-until-15m", args: []string{"-f", repo("examples", "gpu-cluster"), "--until", "15m"}},
		{name: "dynamic-quota", args: []string{"-f", repo("examples", "dynamic-quota")}},
		{name: "fair-sharing", args: []string{"-f", repo("examples", "fair-sharing")}, skipFor: func(t *testing.T) {
			needs(t, caps().FairSharing, "fair sharing", "a golden file of the fair-sharing example")
		}},
		{name: "admission-fair-sharing", args: []string{"-f", repo("examples", "admission-fair-sharing")}, skipFor: func(t *testing.T) {
			needs(t, caps().AdmissionFairSharing, "admission fair sharing", "a golden file of the admission fair sharing example")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.skipFor != nil {
				c.skipFor(t)
			}
			stdout, stderr, err := run(t, append(c.args, "--output", "json")...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			path := filepath.Join("testdata", c.name+".golden.json")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(want, []byte(stdout)) {
				t.Errorf("output differs from %s; review the change and run with -update if it is intended.\n%s", path, firstDifference(string(want), stdout))
			}
		})
	}
}

// firstDifference shows the first differing line with a little context.
func firstDifference(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return ""
}
