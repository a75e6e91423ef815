//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core"
)

// cpuQueue creates namespace ns with a LocalQueue "q" pointing at a ClusterQueue
// of the same name that has cpus CPUs of flavor "default".
func cpuQueue(t *testing.T, ns string, cpus string) {
	t.Helper()
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}),
		makeCQ(ns).selector("team", ns).flavor("default", quota("cpu", cpus, "", "")).obj(),
		makeLQ(ns, "q", ns))
}

func waitAdmitted(t *testing.T, ns string, names ...string) {
	t.Helper()
	eventually(t, 20*time.Second, func() string {
		for _, n := range names {
			if !isAdmitted(getWL(t, ns, n)) {
				return n + " not admitted"
			}
		}
		return ""
	})
}

func waitPending(t *testing.T, ns, name, reason string) {
	t.Helper()
	eventually(t, 20*time.Second, func() string {
		c := cond(getWL(t, ns, name), kueue.WorkloadQuotaReserved)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != reason {
			return fmt.Sprintf("%s QuotaReserved = %+v, want False/%s", name, c, reason)
		}
		return ""
	})
}

// 002 (Workloads): quota is held until the workload finishes; Finished=True
// releases it at once, and so does a deletion. A Workload created with the
// finalizer (as the Job integration creates its own) loses it once finished.
func TestFinishedAndDeletedWorkloadsReleaseQuota(t *testing.T) {
	ns := "lifecycle"
	cpuQueue(t, ns, "1")
	startManager(t, nil)
	create(t, makeWL(ns, "a", "q", "cpu", "1"))
	waitAdmitted(t, ns, "a")
	// As Kueue's core, Quokka adds no finalizer to a Workload created on its
	// own: a write per workload that a restart's rebuild makes unnecessary.
	if controllerutil.ContainsFinalizer(getWL(t, ns, "a"), core.Finalizer) {
		t.Errorf("admitted standalone workload got finalizer %s", core.Finalizer)
	}
	// The manager's cache drops Workloads' managedFields, so its status writes
	// carry none; the API server must keep the creator's entry and record the
	// manager's own status write beside it.
	var creator, statusWriter bool
	for _, mf := range getWL(t, ns, "a").ManagedFields {
		creator = creator || (mf.Subresource == "" && mf.Operation == metav1.ManagedFieldsOperationUpdate)
		statusWriter = statusWriter || mf.Subresource == "status"
	}
	if !creator || !statusWriter {
		t.Errorf("managedFields %+v: want the creator's entry and the manager's status entry", getWL(t, ns, "a").ManagedFields)
	}
	create(t, makeWL(ns, "b", "q", "cpu", "1"))
	waitPending(t, ns, "b", kueue.WorkloadQuotaReservedReasonWaitingForQuota)

	finish(t, getWL(t, ns, "a"))
	waitAdmitted(t, ns, "b")

	create(t, makeWL(ns, "c", "q", "cpu", "1"))
	waitPending(t, ns, "c", kueue.WorkloadQuotaReservedReasonWaitingForQuota)
	if err := env.Client.Delete(context.Background(), getWL(t, ns, "b")); err != nil {
		t.Fatalf("deleting b: %v", err)
	}
	waitAdmitted(t, ns, "c")
	eventually(t, 10*time.Second, func() string {
		err := env.Client.Get(context.Background(), keyOf(ns, "b"), &kueue.Workload{})
		if !apierrors.IsNotFound(err) {
			return fmt.Sprintf("deleted workload b still there (%v)", err)
		}
		return ""
	})

	d := makeWL(ns, "d", "q", "cpu", "1")
	d.Finalizers = []string{core.Finalizer}
	create(t, d)
	finish(t, getWL(t, ns, "c"))
	waitAdmitted(t, ns, "d")
	finish(t, getWL(t, ns, "d"))
	eventually(t, 10*time.Second, func() string {
		if controllerutil.ContainsFinalizer(getWL(t, ns, "d"), core.Finalizer) {
			return "finished workload d still has the finalizer"
		}
		return ""
	})
}

// A workload that reaches no ClusterQueue waits with the reason: its LocalQueue
// is missing, or the ClusterQueue does not select its namespace.
func TestUnroutableWorkloadsStayPending(t *testing.T) {
	ns := "unroutable"
	cpuQueue(t, ns, "10")
	other := "unroutable-other"
	// The namespace lacks the label team=unroutable that the queue selects.
	create(t, makeNS(other, nil), makeLQ(other, "q", ns))
	startManager(t, nil)
	create(t, makeWL(ns, "no-lq", "missing", "cpu", "1"), makeWL(other, "not-selected", "q", "cpu", "1"))
	waitPending(t, ns, "no-lq", kueue.WorkloadQuotaReservedReasonMisconfigured)
	waitPending(t, other, "not-selected", kueue.WorkloadQuotaReservedReasonMisconfigured)
	// The reason is written once, not every cycle: the object stays unchanged
	// while other workloads keep the loop cycling.
	rv := getWL(t, ns, "no-lq").ResourceVersion
	for i := range 5 {
		create(t, makeWL(ns, fmt.Sprintf("churn-%d", i), "q", "cpu", "1"))
	}
	consistently(t, 2*time.Second, func() string {
		for _, wl := range []*kueue.Workload{getWL(t, ns, "no-lq"), getWL(t, other, "not-selected")} {
			if wl.Status.Admission != nil {
				return wl.Name + " was admitted"
			}
		}
		if got := getWL(t, ns, "no-lq").ResourceVersion; got != rv {
			return fmt.Sprintf("pending workload rewritten (resourceVersion %s -> %s) although its reason did not change", rv, got)
		}
		return ""
	})
}

// The engine is rebuilt from the API when a manager starts: admissions made by a
// previous manager are charged before the first cycle, so nothing is admitted
// twice, and pending work resumes when quota frees.
func TestRestartKeepsAdmissions(t *testing.T) {
	ns := "restart"
	cpuQueue(t, ns, "4")
	first := startManager(t, nil)
	for i := range 6 {
		create(t, makeWL(ns, fmt.Sprintf("w%d", i), "q", "cpu", "1"))
	}
	eventually(t, 20*time.Second, func() string {
		if n := countAdmitted(listWLs(t, ns)); n != 4 {
			return fmt.Sprintf("%d admitted, want 4", n)
		}
		return ""
	})
	first.stop()

	// Created while no manager runs: the new one must not admit it into quota
	// that the first one's admissions hold.
	create(t, makeWL(ns, "late", "q", "cpu", "1"))
	startManager(t, nil)
	// The new manager has rebuilt and cycled once its ClusterQueue status
	// counts "late" among the pending. (Its own pending reason is not the
	// sync point: as in Kueue, only a queue's head carries one, and "late"
	// may sort behind w4 and w5.)
	eventually(t, 20*time.Second, func() string {
		cq := &kueue.ClusterQueue{}
		if err := env.Client.Get(context.Background(), keyOf("", ns), cq); err != nil {
			return err.Error()
		}
		if total, _ := flavorCell(cq.Status.FlavorsUsage, "default", "cpu"); total != 4 || cq.Status.AdmittedWorkloads != 4 || cq.Status.PendingWorkloads != 3 {
			return fmt.Sprintf("after restart: usage %d, admitted %d, pending %d; want 4, 4, 3", total, cq.Status.AdmittedWorkloads, cq.Status.PendingWorkloads)
		}
		return ""
	})
	consistently(t, 3*time.Second, func() string {
		if n := countAdmitted(listWLs(t, ns)); n != 4 {
			return fmt.Sprintf("%d admitted after restart, want 4", n)
		}
		return ""
	})

	var admitted *kueue.Workload
	for _, wl := range listWLs(t, ns) {
		if isAdmitted(&wl) {
			admitted = &wl
			break
		}
	}
	finish(t, admitted)
	eventually(t, 20*time.Second, func() string {
		if n := countAdmitted(listWLs(t, ns)); n != 4 {
			return fmt.Sprintf("%d admitted after one finished, want 4 again", n)
		}
		return ""
	})
}
