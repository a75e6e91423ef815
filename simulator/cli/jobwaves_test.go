package cli

import (
	"fmt"
	"testing"
)

// wavesJob is a Job of pods of 1 cpu, parallelism pods and the given
// completions, running 30m from its admission, submitted at "at".
func wavesJob(name, at, priorityClass string, pods, completions int) string {
	labels := "kueue.x-k8s.io/queue-name: lq"
	if priorityClass != "" {
		labels += ", kueue.x-k8s.io/priority-class: " + priorityClass
	}
	return fmt.Sprintf(`---
apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  namespace: ns
  labels: {%s}
  annotations: {simulation.quokka.dev/at: %s, simulation.quokka.dev/runtime: 30m}
spec:
  parallelism: %d
  completions: %d
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
`, name, labels, at, pods, completions)
}

// A Job of 3 pods and 7 completions runs in three waves of 10m (3, 3, 1 pods);
// at the last wave Kueue's Job integration marks 2 pods reclaimable
// (parallelism less the remaining completions) and the manager gives their
// quota back, so a job of 3 cpu waiting beside it in 4 cpu starts at 20m, not
// when the first finishes at 30m. With the ReclaimablePods gate off nothing
// is reclaimed; a Job whose completions fill its last wave reclaims nothing.
func TestSimulatorReclaimsAJobsLastWave(t *testing.T) {
	t.Parallel()
	big := envJob("big", cpuPod("3"))
	gateOff := reclaimablePodsOff
	for _, tc := range []struct {
		name, extra   string
		completions   int
		reclaimedAt   float64 // 0: no Reclaimed event
		bigAdmittedAt float64
		usageAt25m    string
	}{
		{"7 completions", "", 7, 1200, 1200, "4"},
		{"gate off", gateOff, 7, 0, 1800, "3"},
		{"6 completions", "", 6, 0, 1800, "3"},
	} {
		doc := simulateJSON(t, "-f", worldDir(t, envWorld(tc.extra, wavesJob("waves", "0s", "", 3, tc.completions), big)), "--until", "25m")
		reclaimed := eventsOf(doc, "Reclaimed")
		switch {
		case tc.reclaimedAt == 0 && len(reclaimed) != 0:
			t.Errorf("%s: Reclaimed events %+v, want none", tc.name, reclaimed)
		case tc.reclaimedAt != 0 && (len(reclaimed) != 1 || reclaimed[0].Time != tc.reclaimedAt || reclaimed[0].Workload != "ns/waves" || reclaimed[0].PodCounts["main"] != 2):
			t.Errorf("%s: Reclaimed events %+v, want 2 pods of waves at %vs", tc.name, reclaimed, tc.reclaimedAt)
		}
		if i := indexOf(doc, "Admitted", "ns/big"); tc.bigAdmittedAt < 1500 && (i < 0 || doc.Events[i].Time != tc.bigAdmittedAt) {
			t.Errorf("%s: big admitted at event %d (%+v), want at %vs", tc.name, i, doc.Events, tc.bigAdmittedAt)
		} else if tc.bigAdmittedAt >= 1500 && i >= 0 {
			t.Errorf("%s: big admitted at %vs, want it waiting until waves finishes", tc.name, doc.Events[i].Time)
		}
		if tc.reclaimedAt != 0 {
			textHas(t, []string{"-f", worldDir(t, envWorld(tc.extra, wavesJob("waves", "0s", "", 3, tc.completions), big)), "--until", "25m"},
				"Reclaimed", "2 pods reclaimable: the last wave needs fewer")
		}
		if got := usage(t, doc, "cq", "f1", "cpu"); got != tc.usageAt25m {
			t.Errorf("%s: cq's cpu usage at 25m = %s, want %s", tc.name, got, tc.usageAt25m)
		}
	}
}

// A Job preempted after its last wave began restarts from zero, as every
// simulated job does: admitted again, it holds all its pods (3 cpu), not the
// one pod its last wave had left it.
func TestSimulatorPreemptedJobAsksForAllItsPodsAgain(t *testing.T) {
	t.Parallel()
	world := queueWorld(4, "{withinClusterQueue: LowerPriority}") + `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
` + wavesJob("waves", "0s", "", 3, 7) + wavesJob("urgent", "25m", "high", 4, 4)
	doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "56m")
	if i := indexOf(doc, "Preempted", "ns/waves"); i < 0 || doc.Events[i].Time != 1500 {
		t.Fatalf("waves not preempted at 25m: %+v", doc.Events)
	}
	admitted := 0
	for _, e := range eventsOf(doc, "Admitted") {
		if e.Workload == "ns/waves" {
			admitted++
		}
	}
	if admitted != 2 {
		t.Fatalf("waves admitted %d times by 56m, want twice (again when urgent finished at 55m): %+v", admitted, doc.Events)
	}
	if got := usage(t, doc, "cq", "f1", "cpu"); got != "3" {
		t.Errorf("cq's cpu usage at 56m = %s, want 3: waves holds all its pods again", got)
	}
}
