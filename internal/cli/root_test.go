package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// run executes `quokka args...` and returns the exit code, stdout and stderr.
func run(t *testing.T, opts Options, args ...string) (int, string, string) {
	t.Helper()
	root := NewRootCommand(opts)
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	code := Execute(context.Background(), root, args, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := run(t, Options{}, args...)
		if code != 0 {
			t.Fatalf("quokka %v exited %d: %s", args, code, errOut)
		}
		if !strings.HasPrefix(out, "quokka v0.1.0-dev (go") || !strings.HasSuffix(out, ")\n") {
			t.Errorf("quokka %v printed %q; want \"quokka v0.1.0-dev (go...)\"", args, out)
		}
	}
	if code, _, errOut := run(t, Options{}, "version", "extra"); code == 0 || !strings.Contains(errOut, "extra") {
		t.Errorf("quokka version extra: code %d, stderr %q; want a refusal naming the argument", code, errOut)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An invalid --config stops the program with a non-zero exit and the field named,
// before anything contacts a cluster (there is none in this test).
func TestManagerRefusesAnInvalidConfiguration(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc, want string
	}{
		{"bad strategies", "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n", "fairSharing.preemptionStrategies"},
		{"unknown gate", "featureGates:\n  TopologyAwareScheduling: true\n", "featureGates[TopologyAwareScheduling]"},
		{"AFS off alone", "featureGates:\n  AdmissionFairSharing: false\n", "AdmissionFairSharingAnchorAtQuotaReservation"},
		{"unknown field", "metrics:\n  enableClusterQueueResource: true\n", "metrics.enableClusterQueueResource"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, "bad.yaml", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"+tc.doc)
			code, _, errOut := run(t, Options{}, "manager", "--config", path)
			if code == 0 {
				t.Fatal("quokka manager accepted an invalid configuration")
			}
			for _, want := range []string{path, tc.want} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q does not mention %q", errOut, want)
				}
			}
		})
	}
}

func TestManagerRefusesAMissingConfigurationFile(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	code, _, errOut := run(t, Options{}, "manager", "--config", missing)
	if code == 0 || !strings.Contains(errOut, "nope.yaml") {
		t.Errorf("code %d, stderr %q; want a failure naming nope.yaml", code, errOut)
	}
}

func TestUnknownFlagIsRefusedWithHelpHint(t *testing.T) {
	t.Parallel()
	code, _, errOut := run(t, Options{}, "manager", "--metrics-addr", ":1")
	if code == 0 || !strings.Contains(errOut, "--metrics-addr") || !strings.Contains(errOut, "quokka manager --help") {
		t.Errorf("code %d, stderr %q; want the flag named and a pointer to --help", code, errOut)
	}
}

// The simulator (and anything later) plugs in through Options.Subcommands.
func TestExtraSubcommandsAreReachable(t *testing.T) {
	t.Parallel()
	ran := false
	sim := &cobra.Command{Use: "simulate", RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
	if code, _, errOut := run(t, Options{Subcommands: []*cobra.Command{sim}}, "simulate"); code != 0 || !ran {
		t.Errorf("quokka simulate: code %d, ran %v, stderr %q", code, ran, errOut)
	}
}
