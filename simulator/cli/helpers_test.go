package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/simulator/adapter"
	"quokka.dev/quokka/simulator/output"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current output")

// repo returns a path inside the repository root.
func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// run executes `simulate` with args and returns stdout, stderr and the error.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := NewCommand()
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	// Every test holds the engine to its promise of settling in one pass.
	if len(args) == 0 || args[0] != "generate" {
		args = append(args, "--confirm-settled")
	}
	cmd.SetArgs(args)
	err := cmd.Execute()
	return stdout.String(), stderr.String(), err
}

// worldDir writes manifests to world.yaml in a new temporary directory, for
// simulate -f, and returns the directory.
func worldDir(t *testing.T, manifests string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "world.yaml"), []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// simulateJSON runs `simulate --output json` and decodes the document.
func simulateJSON(t *testing.T, args ...string) output.Document {
	t.Helper()
	stdout, stderr, err := run(t, append(args, "--output", "json")...)
	if err != nil {
		t.Fatalf("simulate %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	var doc output.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("decoding the JSON output: %v\n%s", err, stdout)
	}
	return doc
}

// textHas runs `simulate` with args and fails for each wanted text the
// output lacks.
func textHas(t *testing.T, args []string, wants ...string) {
	t.Helper()
	stdout, stderr, err := run(t, args...)
	if err != nil {
		t.Fatalf("simulate %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	for _, want := range wants {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
}

// needs fails a test whose assertions depend on an engine feature that the
// simulator's adapter says engine/scheduler does not implement, saying which
// feature and what the assertions expect: a test runs or fails, it never skips.
func needs(t *testing.T, supported bool, feature, expectation string) {
	t.Helper()
	if !supported {
		t.Fatalf("%s is not implemented by engine/scheduler (simulator/adapter.Supported()); expected: %s", feature, expectation)
	}
}

func caps() adapter.Capabilities { return adapter.Supported() }

// usage returns a queue's final usage of a flavor and resource ("" when none).
func usage(t *testing.T, doc output.Document, cq, flavor, res string) string {
	t.Helper()
	for _, q := range doc.Final.ClusterQueues {
		if q.Name == cq {
			return q.Usage[flavor][corev1.ResourceName(res)]
		}
	}
	t.Fatalf("no ClusterQueue %s in the final state", cq)
	return ""
}

// workload returns a workload's final state.
func workload(t *testing.T, doc output.Document, name string) output.Workload {
	t.Helper()
	for _, w := range doc.Final.Workloads {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("no workload %s in the final state", name)
	return output.Workload{}
}

// eventsOf returns the events of one type, in order.
func eventsOf(doc output.Document, typ string) []output.Event {
	var out []output.Event
	for _, e := range doc.Events {
		if string(e.Type) == typ {
			out = append(out, e)
		}
	}
	return out
}

// indexOf returns the position of the first event of type typ for workload, or -1.
func indexOf(doc output.Document, typ, workload string) int {
	for i, e := range doc.Events {
		if string(e.Type) == typ && e.Workload == workload {
			return i
		}
	}
	return -1
}
