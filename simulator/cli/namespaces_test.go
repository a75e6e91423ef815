package cli

import (
	"strings"
	"testing"
)

// Kueue manages no Job in a namespace its managedJobsNamespaceSelector does
// not match, even one with the queue-name label (its
// ManagedJobsNamespaceSelectorAlwaysRespected, GA since v0.19), and neither
// does the manager: the simulator, which runs only managed Jobs, stops with
// an error naming the field. Where the selector matches, the Job runs.
func TestSimulatorJobsOnlyInManagedNamespaces(t *testing.T) {
	t.Parallel()
	selector := func(team string) string {
		return `---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
managedJobsNamespaceSelector: {matchLabels: {team: ` + team + `}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns, labels: {team: research}}
`
	}
	job := envJob("labelled", cpuPod("1"))
	_, stderr, err := run(t, "-f", worldDir(t, envWorld(selector("infra"), job)), "--until", "30m")
	if err == nil || !strings.Contains(stderr, "metadata.namespace") || !strings.Contains(stderr, "managedJobsNamespaceSelector") {
		t.Errorf("a labelled Job in an unmatched namespace: err %v, stderr %q; want an error naming the namespace and the selector", err, stderr)
	}
	doc := simulateJSON(t, "-f", worldDir(t, envWorld(selector("research"), job)), "--until", "30m")
	if got := eventsOf(doc, "Admitted"); len(got) != 1 {
		t.Errorf("in a matched namespace: %d admitted, want the Job", len(got))
	}
}
