package cli

import (
	"strings"
	"testing"
)

// partialWorld is envWorld's ClusterQueue of 4 cpu and one Job of 4 pods of
// 2 cpu with the given min-parallelism annotation (none when ""), after the
// Configuration given (none when "").
func partialWorld(config, minParallelism string) string {
	annotations := "simulation.quokka.dev/at: 0s, simulation.quokka.dev/runtime: 1h"
	if minParallelism != "" {
		annotations += ", kueue.x-k8s.io/job-min-parallelism: \"" + minParallelism + "\""
	}
	return config + envWorld("", `---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {`+annotations+`}
spec:
  parallelism: 4
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
`)
}

// The simulator admits a Job with fewer pods as the manager does (Kueue's
// partial admission, the Job's kueue.x-k8s.io/job-min-parallelism
// annotation): 2 of its 4 pods fit in 4 cpu, and the timeline says so.
func TestSimulatorAdmitsJobsPartially(t *testing.T) {
	t.Parallel()
	doc := simulateJSON(t, "-f", worldDir(t, partialWorld("", "1")), "--until", "30m")
	admitted := eventsOf(doc, "Admitted")
	if len(admitted) != 1 || admitted[0].PodCounts["main"] != 2 {
		t.Fatalf("admitted %+v; want train with 2 pods", admitted)
	}
	if got := usage(t, doc, "cq", "f1", "cpu"); got != "4" {
		t.Errorf("cpu usage %q, want 4 (2 pods of 2 cpu)", got)
	}
	textHas(t, []string{"-f", worldDir(t, partialWorld("", "1")), "--until", "30m"}, "with 2 pods")
}

// With the PartialAdmission gate off, or without the annotation, all four
// pods are needed and never fit.
func TestSimulatorPartialAdmissionOffOrNotAsked(t *testing.T) {
	t.Parallel()
	off := "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {PartialAdmission: false}\n"
	for name, world := range map[string]string{"gate off": partialWorld(off, "1"), "no annotation": partialWorld("", "")} {
		doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "30m")
		if got := eventsOf(doc, "Admitted"); len(got) != 0 {
			t.Errorf("%s: admitted %+v; want train pending", name, got)
		}
	}
}

// An annotation Kueue's Job webhook refuses is refused, naming it.
func TestSimulatorRefusesABadMinParallelism(t *testing.T) {
	t.Parallel()
	_, stderr, err := run(t, "-f", worldDir(t, partialWorld("", "4")), "--until", "30m")
	if err == nil || !strings.Contains(stderr+err.Error(), "kueue.x-k8s.io/job-min-parallelism") ||
		!strings.Contains(stderr+err.Error(), "should be between 0 and 3") {
		t.Fatalf("err %v, stderr %s; want the annotation refused with its range", err, stderr)
	}
}
