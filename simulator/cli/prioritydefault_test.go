package cli

import (
	"strings"
	"testing"
)

// A Job submitted without the kueue.x-k8s.io/priority-class label gets the
// WorkloadPriorityClass named "default" when it exists, as Kueue's Job
// webhook gives it with its WorkloadPriorityClassDefaulting gate (on by
// default since v0.20) and as the manager's webhook does. In a ClusterQueue of
// 1 cpu that preempts lower priorities within it, a Job of class "low" (10)
// runs; one without the label arrives a minute later: with "default" (100)
// it preempts the first, with the gate off (priority 0) it waits.
func TestSimulatorDefaultWorkloadPriorityClass(t *testing.T) {
	t.Parallel()
	classes := `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: default}
value: 100
`
	running := strings.Replace(envJob("running", cpuPod("1")), "labels: {kueue.x-k8s.io/queue-name: lq}",
		"labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low}", 1)
	unlabelled := strings.Replace(envJob("unlabelled", cpuPod("1")), "simulation.quokka.dev/at: 0s", "simulation.quokka.dev/at: 1m", 1)
	world := queueWorld(1, "{withinClusterQueue: LowerPriority}") + classes + running + unlabelled

	doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "30m")
	if i := indexOf(doc, "Preempted", "ns/running"); i < 0 {
		t.Errorf("with the default class: running was not preempted; events %v", doc.Events)
	}
	if w := workload(t, doc, "ns/unlabelled"); w.State != "Admitted" {
		t.Errorf("with the default class: unlabelled is %s, want Admitted", w.State)
	}

	off := `---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {WorkloadPriorityClassDefaulting: false}
`
	doc = simulateJSON(t, "-f", worldDir(t, off+world), "--until", "30m")
	if i := indexOf(doc, "Preempted", "ns/running"); i >= 0 {
		t.Errorf("with the gate off: running was preempted")
	}
	if w := workload(t, doc, "ns/unlabelled"); w.State != "Pending" {
		t.Errorf("with the gate off: unlabelled is %s, want Pending", w.State)
	}
}
