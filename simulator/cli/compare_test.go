package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quokka.dev/quokka/simulator/output"
)

// compareCluster is one ClusterQueue, research, with gpus GPUs of flavor h100,
// preempting lower priorities within itself, and its LocalQueue.
func compareCluster(gpus int) string {
	return fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: v1
kind: Namespace
metadata: {name: research}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: research}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: %d}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: gpu, namespace: research}
spec: {clusterQueue: research}
`, gpus)
}

// compareJob is a Workload in research/gpu asking for gpus GPUs for runtime, at
// spec.priority priority when not empty.
func compareJob(name string, gpus int, runtime, prio string) string {
	priority := ""
	if prio != "" { // spec.priority
		priority = fmt.Sprintf("  priority: %s\n", prio)
	}
	return fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: %s
  namespace: research
  annotations: {simulation.quokka.dev/runtime: %s}
spec:
  queueName: gpu
%s  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: example.com/job
          resources:
            requests: {nvidia.com/gpu: "%d"}
`, name, runtime, priority, gpus)
}

// admitted is compareJob's Workload already admitted, as `quokka snapshot`
// writes a running one.
func admitted(job string, gpus int) string {
	return job + fmt.Sprintf(`status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: reserved, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: admitted, lastTransitionTime: "2026-01-01T00:00:00Z"}
  admission:
    clusterQueue: research
    podSetAssignments:
    - name: main
      count: 1
      flavors: {nvidia.com/gpu: h100}
      resourceUsage: {nvidia.com/gpu: "%d"}
`, gpus)
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func compareJSON(t *testing.T, args ...string) output.CompareDocument {
	t.Helper()
	stdout, stderr, err := run(t, append(args, "--compare", "--output", "json")...)
	if err != nil {
		t.Fatalf("simulate %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	var doc output.CompareDocument
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("decoding the JSON output: %v\n%s", err, stdout)
	}
	return doc
}

func hours(t *testing.T, doc output.CompareDocument, cq, res string) output.ResourceComparison {
	t.Helper()
	for _, q := range doc.ClusterQueues {
		for _, r := range q.ResourceHours {
			if q.Name == cq && string(r.Resource) == res {
				return r
			}
		}
	}
	t.Fatalf("no %s hours for ClusterQueue %s in %+v", res, cq, doc.ClusterQueues)
	return output.ResourceComparison{}
}

// Issue 16: "--compare runs the live state with and without the changes and
// prints what differs: which pending workloads would be admitted now". With 8
// GPUs, a and b (4 each, 1h) run and c waits until 1h; at 12 GPUs c runs at once.
func TestCompareListsPendingWorkloadsAdmittedNow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeFile(t, dir, "base.yaml", compareCluster(8)+compareJob("a", 4, "1h", "")+compareJob("b", 4, "1h", "")+compareJob("c", 4, "1h", ""))
	change := writeFile(t, dir, "change.yaml", compareCluster(12))
	doc := compareJSON(t, "-f", base, "--changes", change)

	if want := []output.ComparedWorkload{{Name: "research/c", ClusterQueue: "research"}}; fmt.Sprint(doc.AdmittedNow) != fmt.Sprint(want) {
		t.Errorf("admitted now = %+v, want %+v", doc.AdmittedNow, want)
	}
	if len(doc.Preempted) != 0 {
		t.Errorf("preempted = %+v, want none", doc.Preempted)
	}
	if len(doc.ClusterQueues) != 1 {
		t.Fatalf("clusterQueues = %+v, want research alone", doc.ClusterQueues)
	}
	q := doc.ClusterQueues[0]
	// Waits 0, 0 and 1h without the changes: 20m on average; 0 with them.
	if q.AvgWaitWithout == nil || *q.AvgWaitWithout != 1200 || q.AvgWaitWithChanges == nil || *q.AvgWaitWithChanges != 0 {
		t.Errorf("average waits = %v, %v, want 1200 s and 0 s", q.AvgWaitWithout, q.AvgWaitWithChanges)
	}
	// Three jobs of 4 GPUs for 1h either way.
	if h := hours(t, doc, "research", "nvidia.com/gpu"); h.Without != 12 || h.WithChanges != 12 {
		t.Errorf("GPU-hours = %+v, want 12 and 12", h)
	}

	textHas(t, []string{"-f", base, "--changes", change, "--compare"},
		"ADMITTED NOW (pending without the changes, admitted at 0s with them): 1\nWORKLOAD    CLUSTERQUEUE\nresearch/c  research\n",
		"PREEMPTED (running now, preempted with the changes): 0\n",
		"CLUSTERQUEUE  WITHOUT  WITH CHANGES  DIFF\nresearch      20m      0s            -20m\n",
		"research      nvidia.com/gpu  12.00    12.00         +0.00  nvidia.com/gpu-hours\n",
	)
}

// Issue 16: "... which admitted ones would be preempted". a and b (4 GPUs each,
// 2h) are running; the change adds urgent (8 GPUs, 30m, priority 100), which
// preempts both at 0; they start again from zero at 30m.
func TestCompareListsRunningWorkloadsPreempted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeFile(t, dir, "base.yaml", compareCluster(8)+admitted(compareJob("a", 4, "2h", ""), 4)+admitted(compareJob("b", 4, "2h", ""), 4))
	change := writeFile(t, dir, "change.yaml", strings.TrimPrefix(compareJob("urgent", 8, "30m", "100"), "---\n"))
	doc := compareJSON(t, "-f", base, "--changes", change)

	if len(doc.AdmittedNow) != 0 {
		t.Errorf("admitted now = %+v, want none (urgent was not pending without the changes)", doc.AdmittedNow)
	}
	want := []output.ComparedPreemption{
		{ComparedWorkload: output.ComparedWorkload{Name: "research/a", ClusterQueue: "research"}, Time: 0, Preemptor: "research/urgent", Reason: "InClusterQueue"},
		{ComparedWorkload: output.ComparedWorkload{Name: "research/b", ClusterQueue: "research"}, Time: 0, Preemptor: "research/urgent", Reason: "InClusterQueue"},
	}
	if fmt.Sprint(doc.Preempted) != fmt.Sprint(want) {
		t.Errorf("preempted = %+v, want %+v", doc.Preempted, want)
	}
	q := doc.ClusterQueues[0]
	// No admission without the changes (a and b were admitted before the start);
	// with them urgent waits 0, a and b 30m each: 20m on average.
	if q.AvgWaitWithout != nil || q.AvgWaitWithChanges == nil || *q.AvgWaitWithChanges != 1200 {
		t.Errorf("average waits = %v, %v, want none and 1200 s", q.AvgWaitWithout, q.AvgWaitWithChanges)
	}
	// Without: 8 GPUs for 2h. With: urgent 8 for 30m, then a and b 8 for 2h.
	if h := hours(t, doc, "research", "nvidia.com/gpu"); h.Without != 16 || h.WithChanges != 20 {
		t.Errorf("GPU-hours = %+v, want 16 and 20", h)
	}
	textHas(t, []string{"-f", base, "--changes", change, "--compare"},
		"ADMITTED NOW (pending without the changes, admitted at 0s with them): 0\n\n",
		"research/a  research      0s  research/urgent  InClusterQueue\n",
		"research      -        20m           +20m\n",
		"research      nvidia.com/gpu  16.00    20.00         +4.00  nvidia.com/gpu-hours\n",
	)
}

func TestCompareNeedsChanges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-f", repo("examples", "gpu-cluster"), "--compare"}, "--compare: needs --changes CHANGES"},
		{[]string{"-f", repo("examples", "gpu-cluster"), "--changes", repo("examples", "gpu-cluster")}, "--changes: only with --compare"},
		{[]string{"--from-cluster", "--compare"}, "--compare: needs at least one -f file of changes"},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("simulate %s: error %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}
