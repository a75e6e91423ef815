package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
)

// Koord-Queue's getQuotaName falls back to alibabacloud.com/quota-name when
// quota.scheduling.koordinator.sh/name is absent: a Job with only the fallback
// label is a Koord-Queue unit too, and is not refused for want of a LocalQueue.
func TestKoordUnitByTheFallbackQuotaLabel(t *testing.T) {
	t.Parallel()
	docs, err := Parse("x.yaml", []byte(`apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {alibabacloud.com/quota-name: team-a}}
spec: {suspend: true, template: {spec: {containers: [{name: c, image: i}]}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !IsKoordUnit(docs[0].Workload) {
		t.Error("a Job with the fallback quota label is not a Koord-Queue unit")
	}
}

// Queue and QueueUnit (scheduling.x-k8s.io/v1alpha1) load: a QueueUnit is a
// job (it takes the simulator's runtime annotation), a Queue is not. Koord-Queue
// reads Queues in namespace koord-queue only, so a Queue elsewhere is refused
// rather than silently ignored; a QueueUnit named like a Job is refused, since
// a Job's unit carries the Job's name.
func TestKoordQueueAndQueueUnitLoad(t *testing.T) {
	t.Parallel()
	const queue = `apiVersion: scheduling.x-k8s.io/v1alpha1
kind: Queue
metadata: {name: team-a, namespace: koord-queue, annotations: {koord-queue/max-depth: "3"}}
spec: {queuePolicy: Priority}
`
	const unit = `apiVersion: scheduling.x-k8s.io/v1alpha1
kind: QueueUnit
metadata: {name: u, namespace: ns, labels: {quota.scheduling.koordinator.sh/name: team-a}, annotations: {simulation.quokka.dev/at: 1m, simulation.quokka.dev/runtime: 1h}}
spec: {priority: 3, resource: {cpu: "2"}}
`
	docs, err := Parse("x.yaml", []byte(queue+"---\n"+unit))
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := docs[0].Object.(*queuev1alpha1.Queue); !ok || docs[0].Key.Kind != KindQueue || q.Annotations["koord-queue/max-depth"] != "3" || docs[0].IsJob() {
		t.Errorf("Queue document = %+v", docs[0])
	}
	if _, ok := docs[1].Object.(*queuev1alpha1.QueueUnit); !ok || !docs[1].IsJob() || !docs[1].HasRuntime || docs[1].At.String() != "1m0s" || docs[1].Workload != nil {
		t.Errorf("QueueUnit document = %+v", docs[1])
	}

	_, err = Parse("x.yaml", []byte(strings.Replace(queue, "namespace: koord-queue", "namespace: team-a", 1)))
	if err == nil || !strings.Contains(err.Error(), `metadata.namespace: Invalid value: "team-a": Koord-Queue reads Queues in namespace koord-queue only`) {
		t.Errorf("a Queue outside koord-queue: %v", err)
	}
	_, err = Parse("x.yaml", []byte(strings.Replace(unit, `cpu: "2"`, `cpu: "-2"`, 1)))
	if err == nil || !strings.Contains(err.Error(), "spec.resource[cpu]") {
		t.Errorf("a negative spec.resource: %v", err)
	}

	dir := t.TempDir()
	err = os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(unit+`---
apiVersion: batch/v1
kind: Job
metadata: {name: u, namespace: ns, labels: {quota.scheduling.koordinator.sh/name: team-a}}
spec: {suspend: true, template: {spec: {containers: [{name: c, image: i}]}}}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{dir}); err == nil || !strings.Contains(err.Error(), "a Job and a QueueUnit are both named ns/u") {
		t.Errorf("a QueueUnit and a Job of one name: %v", err)
	}
}
