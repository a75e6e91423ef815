package manifest

import (
	"strings"
	"testing"
)

// A batch/v1 Job or a Workload carrying quota.scheduling.koordinator.sh/name and
// no LocalQueue is a Koord-Queue unit; one that names a LocalQueue stays with
// Kueue whatever its other labels; one with neither is refused as before.
func TestKoordUnitsAreJobsWithTheQuotaLabelAndNoLocalQueue(t *testing.T) {
	t.Parallel()
	job := func(labels string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {` + labels + `}}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
`
	}
	wl := func(labels, queue string) string {
		return `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns, labels: {` + labels + `}}
spec: {` + queue + `podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]}
`
	}
	cases := []struct {
		name, yaml string
		koord      bool
		err        string
	}{
		{"job with the quota label", job("quota.scheduling.koordinator.sh/name: team-a"), true, ""},
		{"job with an empty quota label", job(`quota.scheduling.koordinator.sh/name: ""`), true, ""},
		{"job with both labels", job("quota.scheduling.koordinator.sh/name: team-a, kueue.x-k8s.io/queue-name: q"), false, ""},
		// A Job with neither is Kueue's when it is submitted: its
		// namespace's default LocalQueue, or manageJobsWithoutQueueName
		// (simulator.TestSimulatorJobsWithoutQueueName).
		{"job with neither", job("app: x"), false, ""},
		{"workload with the quota label", wl("quota.scheduling.koordinator.sh/name: team-a", ""), true, ""},
		{"workload with the quota label and a queueName", wl("quota.scheduling.koordinator.sh/name: team-a", "queueName: q, "), false, ""},
		{"workload with neither", wl("app: x", ""), false, "spec.queueName: Required value"},
	}
	for _, c := range cases {
		docs, err := Parse("x.yaml", []byte(c.yaml))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := IsKoordUnit(docs[0].Workload); got != c.koord {
			t.Errorf("%s: IsKoordUnit = %v, want %v", c.name, got, c.koord)
		}
	}
}
