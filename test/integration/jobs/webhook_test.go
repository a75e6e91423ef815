//go:build integration

package jobs

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

func TestLocalQueueToMissingClusterQueueIsAllowedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
	c, warnings := warningClient(t)
	lq := &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "research-gpu", Namespace: ns},
		Spec:       kueue.LocalQueueSpec{ClusterQueue: "does-not-exist"},
	}
	if err := c.Create(context.Background(), lq); err != nil {
		t.Fatalf("a LocalQueue pointing at a missing ClusterQueue was rejected: %v", err)
	}
	if !warnings.contains(`ClusterQueue "does-not-exist" does not exist`) {
		t.Errorf("warnings %v; want one about the missing ClusterQueue", warnings.messages)
	}
}

func TestJobNamingAMissingLocalQueueIsAllowedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
	c, warnings := warningClient(t)
	j := gpuJob(ns, "lost", "no-such-queue")
	if err := c.Create(context.Background(), j); err != nil {
		t.Fatalf("a Job naming a missing LocalQueue was rejected: %v", err)
	}
	if !warnings.contains(`LocalQueue "no-such-queue" does not exist`) {
		t.Errorf("warnings %v; want one about the missing LocalQueue", warnings.messages)
	}
}

func TestWorkloadNamingAMissingLocalQueueIsAllowedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
	c, warnings := warningClient(t)
	j := gpuJob(ns, "template", "")
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "by-hand", Namespace: ns},
		Spec: kueue.WorkloadSpec{
			QueueName: "no-such-queue",
			PodSets:   []kueue.PodSet{{Name: kueue.DefaultPodSetName, Count: 1, Template: j.Spec.Template}},
		},
	}
	if err := c.Create(context.Background(), wl); err != nil {
		t.Fatalf("a Workload naming a missing LocalQueue was rejected: %v", err)
	}
	if !warnings.contains(`spec.queueName: LocalQueue "no-such-queue" does not exist`) {
		t.Errorf("warnings %v; want one about the missing LocalQueue", warnings.messages)
	}
}
