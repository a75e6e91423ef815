//go:build integration

package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Cases of Kueue's core controller tests
// (test/integration/singlecluster/controller/core/: the clusterqueue,
// localqueue, resourceflavor and workload controllers), ported against quokka
// manager; docs/kueue-conformance/controllers.md lists which. Most concern
// the kueue.x-k8s.io/resource-in-use finalizer that Kueue's ClusterQueues and
// ResourceFlavors carry, and what it holds back.

func hasInUse(obj client.Object) bool {
	return slices.Contains(obj.GetFinalizers(), kueue.ResourceInUseFinalizerName)
}

// waitFinalizer waits until the object carries the finalizer.
func waitFinalizer(t *testing.T, obj client.Object) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err.Error()
		}
		if !hasInUse(obj) {
			return fmt.Sprintf("%s has finalizers %v, want %s", obj.GetName(), obj.GetFinalizers(), kueue.ResourceInUseFinalizerName)
		}
		return ""
	})
}

// waitGone waits until the object no longer exists.
func waitGone(t *testing.T, obj client.Object) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return ""
		}
		return fmt.Sprintf("%s still exists (finalizers %v, err %v)", obj.GetName(), obj.GetFinalizers(), err)
	})
}

func deleteObj(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Delete(context.Background(), obj); err != nil {
		t.Fatalf("deleting %s: %v", obj.GetName(), err)
	}
}

// Kueue: clusterqueue_controller_test.go, When "Deleting clusterQueues", It
// "Should delete clusterQueues successfully when no admitted workloads are
// running".
func TestKueueClusterQueueWithoutAdmittedWorkloadsIsDeleted(t *testing.T) {
	create(t, makeFlavor("default"), makeCQ("fin-empty").flavor("default", quota("cpu", "1", "", "")).obj())
	startManager(t, nil)
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "fin-empty"}}
	waitFinalizer(t, cq)
	deleteObj(t, cq)
	waitGone(t, cq)
}

// Kueue: clusterqueue_controller_test.go, When "Deleting clusterQueues", It
// "Should be stuck in termination until admitted workloads finished running"
// (without its admission check, which Quokka does not have): the queue stays,
// with its finalizer, while its workload runs; it admits nothing new meanwhile
// (Active=False, Terminating, and kueue_cluster_queue_status says terminating);
// once the workload finishes it goes.
func TestKueueClusterQueueIsStuckInTerminationUntilItsWorkloadsFinish(t *testing.T) {
	ns := "fin-stuck"
	cpuQueue(t, ns, "2")
	m := startManager(t, nil)
	create(t, makeWL(ns, "running", "q", "cpu", "1"))
	waitAdmitted(t, ns, "running")

	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	waitFinalizer(t, cq)
	deleteObj(t, cq)
	eventually(t, 10*time.Second, func() string {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(cq), cq); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != kueue.ClusterQueueActiveReasonTerminating ||
			c.Message != "Can't admit new workloads; clusterQueue is terminating" {
			return fmt.Sprintf("Active = %+v, want False/Terminating", c)
		}
		return ""
	})
	eventually(t, 10*time.Second, func() string {
		want := fmt.Sprintf(`kueue_cluster_queue_status{cluster_queue=%q,replica_role="standalone",status="terminating"} 1`, ns)
		if text := m.scrape(t); !strings.Contains(text, want) {
			return "metrics lack " + want
		}
		return ""
	})
	create(t, makeWL(ns, "late", "q", "cpu", "1"))
	waitPending(t, ns, "late", kueue.WorkloadQuotaReservedReasonSuspended)
	consistently(t, 2*time.Second, func() string {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(cq), cq); err != nil {
			return fmt.Sprintf("the queue went while running still runs: %v", err)
		}
		if !hasInUse(cq) {
			return "the finalizer went while running still runs"
		}
		if isAdmitted(getWL(t, ns, "late")) {
			return "late was admitted by a queue being deleted"
		}
		return ""
	})

	finish(t, getWL(t, ns, "running"))
	waitGone(t, cq)
	waitPending(t, ns, "late", kueue.WorkloadQuotaReservedReasonMisconfigured)
}

// Kueue: clusterqueue_controller_test.go, When "Deleting clusterQueues", It
// "Should remove finalizer promptly when workload finishes".
func TestKueueClusterQueueFinalizerGoesOnceItsWorkloadFinished(t *testing.T) {
	ns := "fin-prompt"
	cpuQueue(t, ns, "1")
	startManager(t, nil)
	create(t, makeWL(ns, "w", "q", "cpu", "1"))
	waitAdmitted(t, ns, "w")
	finish(t, getWL(t, ns, "w"))
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	waitFinalizer(t, cq)
	deleteObj(t, cq)
	waitGone(t, cq)
}

// Kueue: resourceflavor_controller_test.go, When "one clusterQueue references
// resourceFlavors", It "Should delete the resourceFlavor when the
// corresponding clusterQueue no longer uses the resourceFlavor": the flavor
// stays while a queue names it (a change of the queue's Cohort does not let it
// go), and goes once the queue names another flavor.
func TestKueueResourceFlavorGoesOnceNoClusterQueueNamesIt(t *testing.T) {
	create(t, makeFlavor("fin-flavor"), makeCQ("fin-rf").flavor("fin-flavor", quota("cpu", "5", "", "")).obj())
	startManager(t, nil)
	rf := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "fin-flavor"}}
	waitFinalizer(t, rf)
	deleteObj(t, rf)
	stays := func() string {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(rf), rf); err != nil {
			return fmt.Sprintf("the flavor went while a queue names it: %v", err)
		}
		if rf.DeletionTimestamp.IsZero() || !hasInUse(rf) {
			return fmt.Sprintf("flavor: deletionTimestamp %v, finalizers %v", rf.DeletionTimestamp, rf.Finalizers)
		}
		return ""
	}
	consistently(t, 2*time.Second, stays)

	updateCQ(t, "fin-rf", func(cq *kueue.ClusterQueue) { cq.Spec.CohortName = "fin-cohort" })
	consistently(t, 2*time.Second, stays)

	updateCQ(t, "fin-rf", func(cq *kueue.ClusterQueue) { cq.Spec.ResourceGroups[0].Flavors[0].Name = "fin-alternate" })
	waitGone(t, rf)
}

// Kueue: resourceflavor_controller_test.go, It "Should delete the
// resourceFlavor when the corresponding clusterQueue is deleted".
func TestKueueResourceFlavorGoesWithItsClusterQueue(t *testing.T) {
	create(t, makeFlavor("fin-flavor2"), makeCQ("fin-rf2").flavor("fin-flavor2", quota("cpu", "5", "", "")).obj())
	startManager(t, nil)
	rf := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "fin-flavor2"}}
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "fin-rf2"}}
	waitFinalizer(t, rf)
	waitFinalizer(t, cq)
	deleteObj(t, rf)
	consistently(t, time.Second, func() string {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(rf), rf); err != nil {
			return fmt.Sprintf("the flavor went while a queue names it: %v", err)
		}
		return ""
	})
	deleteObj(t, cq)
	waitGone(t, cq)
	waitGone(t, rf)
}

// Kueue: clusterqueue_controller_test.go, When "Reconciling clusterQueue
// status condition", It "Should update status conditions when flavors are
// created" (without its admission checks): the message names every missing
// flavor until they exist.
func TestKueueClusterQueueConditionNamesEveryMissingFlavor(t *testing.T) {
	create(t, makeCQ("fin-flavors").flavor("fin-on-demand", quota("cpu", "5", "", "")).flavor("fin-spot", quota("cpu", "5", "", "")).obj())
	startManager(t, nil)
	activeIs := func(status metav1.ConditionStatus, reason, message string) func() string {
		return func() string {
			cq := &kueue.ClusterQueue{}
			if err := env.Client.Get(context.Background(), keyOf("", "fin-flavors"), cq); err != nil {
				return err.Error()
			}
			c := meta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive)
			if c == nil || c.Status != status || c.Reason != reason || c.Message != message {
				return fmt.Sprintf("Active = %+v, want %s/%s %q", c, status, reason, message)
			}
			return ""
		}
	}
	eventually(t, 10*time.Second, activeIs(metav1.ConditionFalse, kueue.ClusterQueueActiveReasonFlavorNotFound,
		"Can't admit new workloads: references missing ResourceFlavor(s): fin-on-demand,fin-spot."))
	create(t, makeFlavor("fin-on-demand"))
	eventually(t, 10*time.Second, activeIs(metav1.ConditionFalse, kueue.ClusterQueueActiveReasonFlavorNotFound,
		"Can't admit new workloads: references missing ResourceFlavor(s): fin-spot."))
	create(t, makeFlavor("fin-spot"))
	eventually(t, 10*time.Second, activeIs(metav1.ConditionTrue, kueue.ClusterQueueActiveReasonReady, "Can admit new workloads"))
}

// updateCQ changes a ClusterQueue, retrying on conflicts (the manager writes
// its status and finalizer meanwhile).
func updateCQ(t *testing.T, name string, change func(*kueue.ClusterQueue)) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		cq := &kueue.ClusterQueue{}
		if err := env.Client.Get(context.Background(), keyOf("", name), cq); err != nil {
			return err.Error()
		}
		change(cq)
		if err := env.Client.Update(context.Background(), cq); err != nil {
			return err.Error()
		}
		return ""
	})
}

// zeroUsage lists flavors, each with its resources at zero, in order.
func zeroUsage(flavors ...[2]string) []kueue.FlavorUsage {
	var out []kueue.FlavorUsage
	for _, f := range flavors {
		out = append(out, kueue.FlavorUsage{Name: kueue.ResourceFlavorReference(f[0]),
			Resources: []kueue.ResourceUsage{{Name: corev1.ResourceName(f[1])}}})
	}
	return out
}

// Kueue: localqueue_controller_test.go, It "Should update conditions when
// clusterQueues that its localQueue references are updated" (without its
// admission check). As in Kueue, the LocalQueue's usage lists every flavor and
// resource of its ClusterQueue in the spec's order, at zero, while the queue
// exists, and nothing once it is gone; the ClusterQueue's own status lists
// them in the same order (clusterqueue_controller_test.go's emptyUsedFlavors).
// The conditions' reasons are Kueue's; their messages are Quokka's, which name
// the ClusterQueue (Kueue writes "Can't submit new workloads to clusterQueue"
// for both).
func TestKueueLocalQueueConditionsFollowTheirClusterQueue(t *testing.T) {
	ns := "fin-lq"
	create(t, makeNS(ns, map[string]string{"team": ns}), makeLQ(ns, "queue", "fin-lq-cq"))
	startManager(t, nil)
	lqIs := func(status metav1.ConditionStatus, reason string, usage []kueue.FlavorUsage) func() string {
		return func() string {
			lq := &kueue.LocalQueue{}
			if err := env.Client.Get(context.Background(), keyOf(ns, "queue"), lq); err != nil {
				return err.Error()
			}
			c := meta.FindStatusCondition(lq.Status.Conditions, kueue.ClusterQueueActive)
			if c == nil || c.Status != status || c.Reason != reason {
				return fmt.Sprintf("Active = %+v, want %s/%s", c, status, reason)
			}
			if !equality.Semantic.DeepEqual(lq.Status.FlavorsReservation, usage) || !equality.Semantic.DeepEqual(lq.Status.FlavorsUsage, usage) {
				return fmt.Sprintf("usage %+v / %+v, want %+v", lq.Status.FlavorsReservation, lq.Status.FlavorsUsage, usage)
			}
			return ""
		}
	}
	eventually(t, 10*time.Second, lqIs(metav1.ConditionFalse, "ClusterQueueDoesNotExist", nil))

	cq := makeCQ("fin-lq-cq").selector("team", ns).cohort("fin-lq-cohort").
		flavor("fin-model-d", quota("example.com/gpu", "5", "5", "")).flavor("fin-model-c", quota("example.com/gpu", "5", "5", "")).obj()
	create(t, cq)
	want := zeroUsage([2]string{"fin-model-d", "example.com/gpu"}, [2]string{"fin-model-c", "example.com/gpu"})
	eventually(t, 10*time.Second, lqIs(metav1.ConditionFalse, "ClusterQueueIsInactive", want))

	create(t, makeFlavor("fin-model-d"), makeFlavor("fin-model-c"))
	eventually(t, 10*time.Second, lqIs(metav1.ConditionTrue, "Ready", want))
	eventually(t, 10*time.Second, func() string {
		got := &kueue.ClusterQueue{}
		if err := env.Client.Get(context.Background(), keyOf("", "fin-lq-cq"), got); err != nil {
			return err.Error()
		}
		if !equality.Semantic.DeepEqual(got.Status.FlavorsReservation, want) || !equality.Semantic.DeepEqual(got.Status.FlavorsUsage, want) {
			return fmt.Sprintf("ClusterQueue usage %+v / %+v, want %+v", got.Status.FlavorsReservation, got.Status.FlavorsUsage, want)
		}
		return ""
	})

	deleteObj(t, cq)
	eventually(t, 10*time.Second, lqIs(metav1.ConditionFalse, "ClusterQueueDoesNotExist", nil))
}

// Kueue: workload_controller_test.go, When "changing the priority value of
// PriorityClass changes the priority of the workload", It "case of
// WorkloadPriorityClass": a Workload's spec.priority follows the value of the
// WorkloadPriorityClass it references, which is what the engine orders and
// preempts by.
func TestKueueWorkloadPriorityFollowsItsWorkloadPriorityClass(t *testing.T) {
	ns := "fin-wpc"
	wpc := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "fin-workload-priority-class"}, Value: 200}
	wl := makeWL(ns, "wl", "lq", "cpu", "1")
	wl.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup,
		Kind: kueue.WorkloadPriorityClassKind, Name: wpc.Name}
	wl.Spec.Priority = ptr.To[int32](200)
	create(t, makeNS(ns, nil), wpc, wl)
	startManager(t, nil)
	eventually(t, 10*time.Second, func() string {
		if len(getWL(t, ns, "wl").Status.Conditions) == 0 {
			return "the workload has no condition yet"
		}
		return ""
	})
	if p := getWL(t, ns, "wl").Spec.Priority; p == nil || *p != 200 {
		t.Fatalf("initial priority %v, want 200", p)
	}

	eventually(t, 10*time.Second, func() string {
		cur := &kueue.WorkloadPriorityClass{}
		if err := env.Client.Get(context.Background(), keyOf("", wpc.Name), cur); err != nil {
			return err.Error()
		}
		cur.Value = 150
		if err := env.Client.Update(context.Background(), cur); err != nil {
			return err.Error()
		}
		return ""
	})
	eventually(t, 10*time.Second, func() string {
		if p := getWL(t, ns, "wl").Spec.Priority; p == nil || *p != 150 {
			return fmt.Sprintf("priority %v, want 150", p)
		}
		return ""
	})
}
