package cli

import "testing"

// The simulator applies the Configuration's resources block as the manager
// does (spec 000: "The scheduler still applies them as usual"): a MIG slice
// counts as 10 credits (Replace), the ClusterQueue has 30 credits and covers
// no MIG slices, so three of four one-slice jobs run at once and the fourth
// starts when the first finishes; a request under an excluded prefix needs
// no quota.
func TestSimulatorAppliesResourceTransformations(t *testing.T) {
	t.Parallel()
	job := func(name string) string {
		return `---
apiVersion: batch/v1
kind: Job
metadata:
  name: ` + name + `
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {simulation.quokka.dev/at: 0s, simulation.quokka.dev/runtime: 1h}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {nvidia.com/mig-1g.5gb: "1", networking.example.com/vpc1: "1"}, limits: {nvidia.com/mig-1g.5gb: "1", networking.example.com/vpc1: "1"}}}]
`
	}
	world := `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  excludeResourcePrefixes: [networking.example.com/]
  transformations:
  - input: nvidia.com/mig-1g.5gb
    strategy: Replace
    outputs: {example.com/credits: "10"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [example.com/credits]
    flavors: [{name: f1, resources: [{name: example.com/credits, nominalQuota: 30}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
` + job("a") + job("b") + job("c") + job("d")
	doc := simulateJSON(t, "-f", worldDir(t, world), "--until", "90m")
	var atStart, later int
	for _, e := range eventsOf(doc, "Admitted") {
		switch e.Time {
		case 0:
			atStart++
		case 3600:
			later++
		}
	}
	if atStart != 3 || later != 1 {
		t.Fatalf("admitted %d at the start and %d at 1h, want 3 (30 credits, 10 each) and then the fourth; events %+v",
			atStart, later, eventsOf(doc, "Admitted"))
	}
	// At 90 minutes only the fourth runs: its 10 credits, and nothing for
	// the excluded vpc request.
	if got := usage(t, doc, "cq", "f1", "example.com/credits"); got != "10" {
		t.Errorf("final credits usage %q, want 10", got)
	}
}
