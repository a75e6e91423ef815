package cli

import "testing"

// A Workload read with status.reclaimablePods counts as the manager counts it
// (Kueue's ReclaimablePods): running holds 3 pods of 1 cpu, 2 of them
// reclaimable, so it is charged 1 cpu of cq's 4 and a job of 3 cpu fits at
// once; with the ReclaimablePods gate off it is charged 3, and the job waits
// for running to finish.
func TestSimulatorCountsReclaimablePods(t *testing.T) {
	t.Parallel()
	running := `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: running, namespace: ns, annotations: {simulation.quokka.dev/runtime: 1h}}
spec:
  queueName: lq
  podSets: [{name: main, count: 3, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
status:
  conditions: [{type: QuotaReserved, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, count: 3, flavors: {cpu: f1}}]
  reclaimablePods: [{name: main, count: 2}]
`
	job := envJob("big", cpuPod("3"))
	gateOff := reclaimablePodsOff
	for _, tc := range []struct {
		name, extra string
		admitted    int
	}{
		{"gate on", running, 2},
		{"gate off", gateOff + running, 1},
	} {
		doc := simulateJSON(t, "-f", worldDir(t, envWorld(tc.extra, job)), "--until", "30m")
		if got := len(eventsOf(doc, "Admitted")); got != tc.admitted {
			t.Errorf("%s: %d admitted by 30m, want %d (running's preset admission and, with the gate on, big)", tc.name, got, tc.admitted)
		}
	}
}

// reclaimablePodsOff is a Configuration turning Kueue's ReclaimablePods gate
// off.
const reclaimablePodsOff = `---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {ReclaimablePods: false}
`
