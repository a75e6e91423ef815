package cli

import "testing"

// The simulator reads Kueue's PriorityBoost gate from the Configuration as the
// manager does: with it on, a Workload's kueue.x-k8s.io/priority-boost
// annotation is added to its priority. In a ClusterQueue of 1 cpu that
// preempts lower priorities within it, "running" (priority 10) holds the cpu;
// "boosted" (priority 0, boost 20) arrives a minute later and preempts it
// only with the gate on.
func TestSimulatorPriorityBoost(t *testing.T) {
	t.Parallel()
	workloads := `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: running, namespace: ns, annotations: {simulation.quokka.dev/runtime: 1h}}
spec:
  queueName: lq
  priority: 10
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: boosted
  namespace: ns
  annotations: {simulation.quokka.dev/at: 1m, simulation.quokka.dev/runtime: 1h, kueue.x-k8s.io/priority-boost: "20"}
spec:
  queueName: lq
  priority: 0
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
`
	world := queueWorld(1, "{withinClusterQueue: LowerPriority}") + workloads
	on := `---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {PriorityBoost: true}
`
	doc := simulateJSON(t, "-f", worldDir(t, on+world), "--until", "30m")
	if indexOf(doc, "Preempted", "ns/running") < 0 {
		t.Errorf("with the gate on: running was not preempted")
	}
	if w := workload(t, doc, "ns/boosted"); w.State != "Admitted" {
		t.Errorf("with the gate on: boosted is %s, want Admitted", w.State)
	}
	doc = simulateJSON(t, "-f", worldDir(t, world), "--until", "30m")
	if indexOf(doc, "Preempted", "ns/running") >= 0 {
		t.Errorf("with the gate off (the default): running was preempted")
	}
}
