//go:build integration

package cluster

import (
	"context"
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Spec 004's team-a ("Enable preemption for a queue: add the annotations
// koord-queue/wait-for-pods-running and koord-queue/enable-queueunit-preemption
// to the ElasticQuota") in a cluster whose one node (4 CPUs) holds less than
// the quota's max (8 CPUs). The usage check alone would admit every Job up to
// 8 CPUs, onto a node that cannot run them; with wait-for-pods-running the
// queue admits nothing new while an admitted unit's pods do not all run
// (Koord-Queue's Reserve: "no more queueUnit allowed to schedule in this
// queue"). first (two 1-CPU pods for 8s) runs; second (three, for 12s) is
// admitted once first's pods run, but only two of its pods find room on the
// node; third (one pod) waits though the quota has room, until first has
// finished and second's last pod runs.
func TestKoordWaitForPodsRunningFollowsTheNodes(t *testing.T) {
	ns := "koord-team-a"
	applyDir(t, "koord")
	nodesReady(t, "koord-1")
	rec := recordChanges(t, ns, &batchv1.JobList{}, &queuev1alpha1.QueueUnitList{})

	create := func(name string, pods int32, runFor string) {
		t.Helper()
		j := cpuJob(ns, name, "", pods, runFor)
		delete(j.Labels, kueue.QueueNameLabel)
		j.Labels[koordv1alpha1.QuotaNameLabel] = "team-a"
		j.Spec.Suspend = ptr.To(true)
		// Koord-Queue places nothing: the team's Jobs select its node pool
		// (the other tests' nodes share the cluster).
		j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "koord"}
		if err := k8s.Create(context.Background(), j); err != nil {
			t.Fatal(err)
		}
	}
	create("first", 2, "8s")
	until(t, "first's pods run", podsRunning(ns, "first", 2))
	create("second", 3, "12s")
	until(t, "two of second's pods run, the third finds no room", func() error {
		if err := podsRunning(ns, "second", 2)(); err != nil {
			return err
		}
		pods, err := podsOf(ns, "second")
		if err != nil {
			return err
		}
		for _, p := range pods {
			if unschedulable(&p) {
				return nil
			}
		}
		return fmt.Errorf("none of second's pods is unschedulable")
	})
	create("third", 1, "1s")
	until(t, "third completes", jobComplete(ns, "third"))
	until(t, "second completes", jobComplete(ns, "second"))
	changes := rec.stop()

	jobReady := func(name string, n int32) *change {
		return firstChange(changes, func(o client.Object) bool {
			j, ok := o.(*batchv1.Job)
			return ok && j.Name == name && ptr.Deref(j.Status.Ready, 0) == n
		})
	}
	dequeued := func(name string) *change {
		return firstChange(changes, func(o client.Object) bool {
			u, ok := o.(*queuev1alpha1.QueueUnit)
			return ok && u.Name == name && (u.Status.Phase == queuev1alpha1.Dequeued || u.Status.Phase == queuev1alpha1.Running)
		})
	}
	for _, c := range []struct {
		unit, after string
		ready       int32
	}{
		{unit: "second", after: "first", ready: 2},
		{unit: "third", after: "second", ready: 3},
	} {
		d, r := dequeued(c.unit), jobReady(c.after, c.ready)
		switch {
		case d == nil:
			t.Errorf("%s's QueueUnit never showed dequeued (%d changes seen)", c.unit, len(changes))
		case r == nil:
			t.Errorf("%s's Job never showed %d ready pods (%d changes seen)", c.after, c.ready, len(changes))
		case d.rv < r.rv:
			t.Errorf("%s dequeued at resourceVersion %d, before all %d pods of %s ran (at %d)", c.unit, d.rv, c.ready, c.after, r.rv)
		}
	}
}
