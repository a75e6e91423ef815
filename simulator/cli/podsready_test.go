package cli

import (
	"fmt"
	"testing"
)

// readyJob is a Job of one pod of 4 cpu submitted at "at", running runtime,
// whose pods are ready readyAfter after its admission ("" for at once).
func readyJob(name, at, runtime, readyAfter string) string {
	ready := ""
	if readyAfter != "" {
		ready = ", simulation.quokka.dev/pods-ready-after: " + readyAfter
	}
	return fmt.Sprintf(`---
apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {simulation.quokka.dev/at: %s, simulation.quokka.dev/runtime: %s%s}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "4"}}}]
`, name, at, runtime, ready)
}

// waitConfig is a Configuration with the given waitForPodsReady block.
func waitConfig(block string) string {
	return "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady:\n" + block
}

// The simulator enforces waitForPodsReady as the manager does once some job's
// pods take time (simulation.quokka.dev/pods-ready-after): slow's pods need
// 20m against a 10m timeout, so it is evicted at 10m (PodsReadyTimeout) and
// backs off 60 s; other, waiting behind it, gets the quota at 10m; slow is
// admitted again when other finishes at 15m, times out again at 25m and,
// past backoffLimitCount 1, is deactivated (RequeuingLimitExceeded). Alone,
// slow comes back as soon as its back-off ends. With its pods ready in 5m,
// slow runs its hour and nothing is evicted.
func TestSimulatorWaitsForPodsReady(t *testing.T) {
	t.Parallel()
	config := waitConfig("  timeout: 10m\n  requeuingStrategy: {backoffBaseSeconds: 60, backoffLimitCount: 1}\n")
	type at struct {
		typ, workload, reason string
		time                  float64
	}
	for _, tc := range []struct {
		name  string
		ready string
		alone bool
		want  []at
	}{
		// Alone, slow comes back when its 60 s back-off ends.
		{"pods too slow, alone", "20m", true, []at{
			{"Admitted", "ns/slow", "", 0},
			{"Evicted", "ns/slow", "PodsReadyTimeout", 600},
			{"Admitted", "ns/slow", "", 660},
			{"Evicted", "ns/slow", "DeactivatedDueToRequeuingLimitExceeded", 1260},
		}},
		{"pods too slow", "20m", false, []at{
			{"Admitted", "ns/slow", "", 0},
			{"Evicted", "ns/slow", "PodsReadyTimeout", 600},
			{"Admitted", "ns/other", "", 600},
			{"Admitted", "ns/slow", "", 900},
			{"Evicted", "ns/slow", "DeactivatedDueToRequeuingLimitExceeded", 1500},
		}},
		{"pods ready in time", "5m", false, []at{
			{"Admitted", "ns/slow", "", 0},
			{"Admitted", "ns/other", "", 3600},
		}},
	} {
		jobs := []string{readyJob("slow", "0s", "1h", tc.ready)}
		if !tc.alone {
			jobs = append(jobs, readyJob("other", "1s", "5m", ""))
		}
		world := envWorld(config, jobs...)
		doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "2h")
		var got []at
		for _, e := range doc.Events {
			if e.Type == "Admitted" || e.Type == "Evicted" {
				got = append(got, at{string(e.Type), e.Workload, e.Reason, e.Time})
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: admissions and evictions\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
}

// blockAdmission holds every other admission while an admitted job's pods are
// not ready, as Kueue's scheduler does: b, which fits beside a, waits until
// a's pods are ready at 10m; without the block it starts at once.
func TestSimulatorBlockAdmissionWaitsForPods(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		block string
		want  float64
	}{
		{"blockAdmission", "  blockAdmission: true\n  timeout: 1h\n", 600},
		{"no block", "  blockAdmission: false\n  timeout: 1h\n", 1},
	} {
		world := queueWorld(8, "") + waitConfig(tc.block) + readyJob("a", "0s", "2h", "10m") + readyJob("b", "1s", "2h", "")
		doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "30m")
		if i := indexOf(doc, "Admitted", "ns/b"); i < 0 || doc.Events[i].Time != tc.want {
			t.Errorf("%s: b admitted at event %d, want at %vs: %+v", tc.name, i, tc.want, doc.Events)
		}
	}
}
