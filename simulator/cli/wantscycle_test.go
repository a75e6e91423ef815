package cli

import (
	"strconv"
	"testing"
)

// The simulator runs the cycle the engine asks for after a cycle in which a
// waiting workload held quota for that cycle only (engine/scheduler's
// WantsCycle; the world of TestWantsCycleAfterAOneCycleHold there): Kueue
// requeues the head that hold kept out at once and admits it in its next
// cycle, so q is admitted at 0s, not at the next unrelated event (p's
// neighbour a3 finishing at 10m).
func TestSimulatorRunsTheCycleAfterAOneCycleHold(t *testing.T) {
	t.Parallel()
	world := `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq1}
spec:
  cohortName: c
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f1, resources: [{name: cpu, nominalQuota: 1}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq3}
spec:
  cohortName: c
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f1, resources: [{name: cpu, nominalQuota: 5, lendingLimit: 3}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq1, namespace: ns}
spec: {clusterQueue: cq1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq3, namespace: ns}
spec: {clusterQueue: cq3}
` + admittedWorkload("a1", "lq1", "cq1", 20, "3", "1h") + admittedWorkload("a3", "lq3", "cq3", 0, "2", "10m") +
		pendingWorkload("p", "lq3", 10, "2") + pendingWorkload("q", "lq1", 0, "1")
	doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "5m")
	found := false
	for _, e := range eventsOf(doc, "Admitted") {
		if e.Workload == "ns/q" || e.Workload == "q" {
			found = true
			if e.Time != 0 {
				t.Errorf("q admitted at %gs; want 0s, in the cycle after p's one-cycle hold", e.Time)
			}
		}
	}
	if !found {
		t.Errorf("q was never admitted; want it admitted at 0s once p's hold is gone (events: %+v)", doc.Events)
	}
}

func admittedWorkload(name, lq, cq string, prio int, cpu, runtime string) string {
	return `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: ` + name + `, namespace: ns, annotations: {simulation.quokka.dev/runtime: ` + runtime + `}}
spec:
  queueName: ` + lq + `
  priority: ` + strconv.Itoa(prio) + `
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "` + cpu + `"}}}]}}}]
status:
  conditions: [{type: QuotaReserved, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]
  admission:
    clusterQueue: ` + cq + `
    podSetAssignments: [{name: main, flavors: {cpu: f1}}]
`
}

func pendingWorkload(name, lq string, prio int, cpu string) string {
	return `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: ` + name + `, namespace: ns, annotations: {simulation.quokka.dev/runtime: 1h}}
spec:
  queueName: ` + lq + `
  priority: ` + strconv.Itoa(prio) + `
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "` + cpu + `"}}}]}}}]
`
}
