package cli

import (
	"strings"
	"testing"
)

// A Job submitted without the queue-name label is treated as Kueue's Job
// webhook treats it when it is created (Kueue v0.17): in a namespace with a
// LocalQueue named "default" it goes there and is admitted; with the
// Configuration's manageJobsWithoutQueueName it waits with no LocalQueue (and
// so is never admitted); otherwise Kueue would not manage it, and the
// simulator, which runs only managed Jobs, stops with an error naming the
// label.
func TestSimulatorJobsWithoutQueueName(t *testing.T) {
	t.Parallel()
	plain := envJob("plain", cpuPod("1"))
	plain = strings.Replace(plain, "  labels: {kueue.x-k8s.io/queue-name: lq}\n", "", 1)
	defaultLQ := `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: ns}
spec: {clusterQueue: cq}
`
	doc := simulateJSON(t, "-f", worldDir(t, envWorld(defaultLQ, plain)), "--until", "30m")
	if got := eventsOf(doc, "Admitted"); len(got) != 1 {
		t.Errorf("with a default LocalQueue: %d admitted, want the Job", len(got))
	}

	manage := `---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
manageJobsWithoutQueueName: true
`
	doc = simulateJSON(t, "-f", worldDir(t, envWorld(manage, plain)), "--until", "30m")
	if got := eventsOf(doc, "Admitted"); len(got) != 0 {
		t.Errorf("with manageJobsWithoutQueueName and no default LocalQueue: %d admitted, want none (no LocalQueue)", len(got))
	}
	if w := workload(t, doc, "ns/plain"); w.State != "Pending" {
		t.Errorf("the Job's workload is %s, want Pending", w.State)
	}

	_, stderr, err := run(t, "-f", worldDir(t, envWorld("", plain)), "--until", "30m")
	if err == nil || !strings.Contains(stderr, "metadata.labels[kueue.x-k8s.io/queue-name]") || !strings.Contains(stderr, "manageJobsWithoutQueueName") {
		t.Errorf("neither: err %v, stderr %q; want an error naming the label and the option", err, stderr)
	}
}
