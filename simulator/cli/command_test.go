package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quokka.dev/quokka/simulator/manifest"
)

func TestTextOutputTellsTheStory(t *testing.T) {
	t.Parallel()
	stdout, _, err := run(t, "-f", repo("examples", "gpu-cluster"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"TIME  EVENT      WORKLOAD",
		"0s    Admitted   product-training/ranker-v3  product-training  h100     already admitted when the simulation starts",
		"10m   Preempted  research/sweep-1            research                   InCohortReclamation by product-training/ranker-v4",
		"10m   Admitted   product-training/ranker-v4  product-training  h100",
		"20m   Preempted  research/sweep-2            research                   InCohortReclamation by eval/benchmark-nightly",
		"research          6         2          0         3",
		"RESOURCE-HOURS",
		"research          h100    nvidia.com/gpu  14.67    4.00      nvidia.com/gpu-hours",
		"STILL PENDING (",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
	for i, line := range strings.Split(stdout, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %d ends with spaces: %q", i+1, line)
		}
	}
}

// Issue 6: "the timeline shows research at 48, then 40 with one job preempted by
// product-training, then 32 with one more preempted by eval" — after each instant
// a Usage line gives the GPUs every changed ClusterQueue now holds.
func TestTextTimelineShowsUsageAfterEachStep(t *testing.T) {
	t.Parallel()
	stdout, _, err := run(t, "-f", repo("examples", "gpu-cluster"))
	if err != nil {
		t.Fatal(err)
	}
	steps := []string{
		"0s    Usage      nvidia.com/gpu: product-training 6 (h100), research 48 (h100)",
		"10m   Usage      nvidia.com/gpu: product-training 22 (h100), research 40 (h100)",
		"20m   Usage      nvidia.com/gpu: eval 8 (h100), research 32 (h100)",
	}
	at := 0
	for _, want := range steps {
		i := strings.Index(stdout[at:], want)
		if i < 0 {
			t.Fatalf("after offset %d the timeline lacks %q:\n%s", at, want, stdout)
		}
		at += i + len(want)
	}
}

func TestCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: x}\nspec: {queueingStrategy: LIFO}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, `required flag(s) "filename" not set`},
		{[]string{"-f", filepath.Join(dir, "nope.yaml")}, "nope.yaml: no such file or directory"},
		{[]string{"-f", bad}, `bad.yaml document 1 (ClusterQueue x): spec.queueingStrategy: Unsupported value: "LIFO"`},
		{[]string{"-f", repo("examples", "gpu-cluster"), "--output", "yaml"}, `--output: "yaml" is not a format`},
		{[]string{"-f", repo("examples", "gpu-cluster"), "--until", "soon"}, `invalid argument "soon" for "--until"`},
		{[]string{"-f", repo("examples", "koord-queue"), "--oversell-rate", "lots"}, `--oversell-rate: oversell rate "lots" must be a non-negative number`},
		{[]string{"-f", repo("examples", "koord-queue"), "--oversell-rate", "-1"}, `--oversell-rate: oversell rate "-1" must be a non-negative number`},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("simulate %v: error %v, want it to contain %q", c.args, err, c.want)
		}
	}
}

func TestReportFlagWritesThePage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, stderr, err := run(t, "-f", repo("examples", "dynamic-quota"), "--report", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "report written to") {
		t.Errorf("stderr = %q", stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg class=\"chart usage-chart\"", "vision — h100 nvidia.com/gpu", "queue-lengths", "wait-times"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestGenerateThenSimulate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, _, err := run(t, "generate", "--queues", "20", "--cohorts", "3", "--jobs", "300", "--seed", "7", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "20 ClusterQueues, 4 Cohorts, 300 jobs") {
		t.Errorf("generate said %q", stdout)
	}
	docs, err := manifest.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	jobs := 0
	for _, d := range docs {
		if d.IsJob() {
			jobs++
			if !d.HasRuntime {
				t.Errorf("%s has no runtime", d.Key)
			}
		}
	}
	if jobs != 300 {
		t.Errorf("loaded %d jobs, want 300", jobs)
	}
	doc := simulateJSON(t, "-f", dir)
	if len(doc.Final.Workloads) != 300 {
		t.Errorf("final state has %d workloads, want 300", len(doc.Final.Workloads))
	}
	finished := 0
	for _, w := range doc.Final.Workloads {
		if w.State == "Finished" {
			finished++
		}
	}
	if finished < 250 {
		t.Errorf("only %d of 300 generated jobs finished; the generated load should let most of them run", finished)
	}
}
