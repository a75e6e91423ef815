package cli

import "testing"

// priorityWorld is queueWorld of 4 cpu preempting lower priorities within
// the queue, with WorkloadPriorityClasses low (10) and high (100).
var priorityWorld = queueWorld(4, "{withinClusterQueue: LowerPriority}") + `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 100
`

// maxExecJob is a Job of one pod of 4 cpu in lq, submitted at "at", running runtime,
// of WorkloadPriorityClass prio, with a maximum execution time of maxExec
// seconds unless it is empty.
func maxExecJob(name, at, runtime, prio, maxExec string) string {
	labels := `{kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: ` + prio
	if maxExec != "" {
		labels += `, kueue.x-k8s.io/max-exec-time-seconds: "` + maxExec + `"`
	}
	return `---
apiVersion: batch/v1
kind: Job
metadata:
  name: ` + name + `
  namespace: ns
  labels: ` + labels + `}
  annotations: {simulation.quokka.dev/at: ` + at + `, simulation.quokka.dev/runtime: ` + runtime + `}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "4"}}}]
`
}

// The simulator runs a job's maximum execution time (the Job label
// kueue.x-k8s.io/max-exec-time-seconds) as the manager does, through the
// engine's Deactivate decision (Kueue's integration test "should deactivate
// the workload when the time expires with multiple admissions", played
// offline): long, allowed 100 s in all, runs 40 s before urgent preempts it,
// then 60 s more once readmitted, and is deactivated at 130 s with Kueue's
// reason; short, under its maximum, finishes; next gets long's quota when
// it is deactivated, not when its runtime would have ended.
func TestSimulatorDeactivatesJobsPastTheirMaximumExecutionTime(t *testing.T) {
	t.Parallel()
	world := priorityWorld + maxExecJob("long", "0s", "1h", "low", "100") + maxExecJob("urgent", "40s", "30s", "high", "") +
		maxExecJob("next", "50s", "10s", "low", "") + maxExecJob("short", "50s", "10s", "low", "60")
	doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "10m")

	var longEvicted []float64
	for _, e := range eventsOf(doc, "Evicted") {
		if e.Workload == "ns/long" {
			longEvicted = append(longEvicted, e.Time)
			if e.Reason != "DeactivatedDueToMaximumExecutionTimeExceeded" ||
				e.Message != "The workload is deactivated due to exceeding the maximum execution time" {
				t.Errorf("long evicted with %q: %q, want Kueue's reason and message", e.Reason, e.Message)
			}
		}
	}
	if len(longEvicted) != 1 || longEvicted[0] != 130 {
		t.Fatalf("long deactivated at %v, want once at 130s (40 s before the preemption, 60 s after)", longEvicted)
	}
	admittedAt := map[string][]float64{}
	for _, e := range eventsOf(doc, "Admitted") {
		admittedAt[e.Workload] = append(admittedAt[e.Workload], e.Time)
	}
	if got := admittedAt["ns/long"]; len(got) != 2 || got[0] != 0 || got[1] != 70 {
		t.Errorf("long admitted at %v, want 0s and 70s (after urgent)", got)
	}
	if got := admittedAt["ns/next"]; len(got) != 1 || got[0] != 130 {
		t.Errorf("next admitted at %v, want 130s, when long was deactivated", got)
	}
	if w := workload(t, doc, "ns/long"); w.State != "Pending" || w.Reason != "Inactive" {
		t.Errorf("long ends %s (%s), want Pending, Inactive", w.State, w.Reason)
	}
	if w := workload(t, doc, "ns/short"); w.State != "Finished" {
		t.Errorf("short ends %s, want Finished (10 s of its 60)", w.State)
	}
}

// A Configuration applied during the run restarts the manager, whose engine
// is rebuilt from the objects as the API server holds them: a running job's
// Workload carries its Admitted condition and the execution time of its
// earlier admissions, so its maximum execution time still counts from its
// admission. long, allowed 100 s, runs 40 s, is preempted, runs again from
// 70 s; the Configuration comes at 80 s; long is deactivated at 130 s all the
// same.
func TestSimulatorMaximumExecutionTimeSurvivesAConfigurationChange(t *testing.T) {
	t.Parallel()
	world := priorityWorld + `---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
metadata: {annotations: {simulation.quokka.dev/at: 80s}}
` + maxExecJob("long", "0s", "1h", "low", "100") + maxExecJob("urgent", "40s", "30s", "high", "")
	doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "10m")
	var evicted []float64
	for _, e := range eventsOf(doc, "Evicted") {
		if e.Workload == "ns/long" && e.Reason == "DeactivatedDueToMaximumExecutionTimeExceeded" {
			evicted = append(evicted, e.Time)
		}
	}
	if len(evicted) != 1 || evicted[0] != 130 {
		t.Errorf("long deactivated at %v, want once at 130 s (40 s + 60 s of its 100 s), the Configuration at 80 s notwithstanding; events %+v", evicted, doc.Events)
	}
}
