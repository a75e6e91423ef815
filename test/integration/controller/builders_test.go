//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Fluent builders in the style of Kueue's test wrappers, so that a fixture fits
// on a line.

type cqBuilder struct{ cq *kueue.ClusterQueue }

func makeCQ(name string) *cqBuilder {
	return &cqBuilder{cq: &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.ClusterQueueSpec{NamespaceSelector: &metav1.LabelSelector{}}}}
}

func (b *cqBuilder) cohort(name string) *cqBuilder {
	b.cq.Spec.CohortName = kueue.CohortReference(name)
	return b
}

func (b *cqBuilder) selector(key, value string) *cqBuilder {
	b.cq.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}
	return b
}

func (b *cqBuilder) reclaimAny() *cqBuilder {
	b.cq.Spec.Preemption = &kueue.ClusterQueuePreemption{
		ReclaimWithinCohort: kueue.PreemptionPolicyAny,
		WithinClusterQueue:  kueue.PreemptionPolicyLowerPriority,
	}
	return b
}

// flavor adds a flavor with quotas to one resource group covering all of them.
func (b *cqBuilder) flavor(name string, quotas ...kueue.ResourceQuota) *cqBuilder {
	if len(b.cq.Spec.ResourceGroups) == 0 {
		rg := kueue.ResourceGroup{}
		for _, q := range quotas {
			rg.CoveredResources = append(rg.CoveredResources, q.Name)
		}
		b.cq.Spec.ResourceGroups = append(b.cq.Spec.ResourceGroups, rg)
	}
	rg := &b.cq.Spec.ResourceGroups[0]
	rg.Flavors = append(rg.Flavors, kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(name), Resources: quotas})
	return b
}

func (b *cqBuilder) obj() *kueue.ClusterQueue { return b.cq }

// quota is a nominal quota with optional borrowing and lending limits ("" = unset).
func quota(r corev1.ResourceName, nominal, borrowing, lending string) kueue.ResourceQuota {
	q := kueue.ResourceQuota{Name: r, NominalQuota: resource.MustParse(nominal)}
	if borrowing != "" {
		q.BorrowingLimit = ptr.To(resource.MustParse(borrowing))
	}
	if lending != "" {
		q.LendingLimit = ptr.To(resource.MustParse(lending))
	}
	return q
}

func makeLQ(ns, name, cq string) *kueue.LocalQueue {
	return &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq)}}
}

func makeNS(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func makeFlavor(name string) *kueue.ResourceFlavor {
	return &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// makeWL is a one-pod-set Workload with one container requesting reqs
// (resource name, quantity pairs).
func makeWL(ns, name, queue string, reqs ...string) *kueue.Workload {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(reqs); i += 2 {
		rl[corev1.ResourceName(reqs[i])] = resource.MustParse(reqs[i+1])
	}
	return &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kueue.WorkloadSpec{
			QueueName: kueue.LocalQueueName(queue),
			PodSets: []kueue.PodSet{{
				Name:  kueue.DefaultPodSetName,
				Count: 1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox",
						Resources: corev1.ResourceRequirements{Requests: rl}}},
				}},
			}},
		},
	}
}

// gpuWL is the spec's 8-GPU job: 12 CPU and 120Gi per GPU.
func gpuWL(ns, name, queue string, gpus int) *kueue.Workload {
	return makeWL(ns, name, queue,
		"nvidia.com/gpu", itoa(gpus), "cpu", itoa(12*gpus), "memory", itoa(120*gpus)+"Gi")
}

func itoa(n int) string { return resource.NewQuantity(int64(n), resource.DecimalSI).String() }

// create creates objects, ignoring ones that exist (flavors shared by tests).
func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client.Create(context.Background(), o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating %T %s: %v", o, client.ObjectKeyFromObject(o), err)
		}
	}
}

// eventually polls cond until it returns "" or the timeout passes, then fails
// with the last explanation.
func eventually(t *testing.T, timeout time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var why string
	for {
		if why = cond(); why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", timeout, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// consistently checks cond for the whole duration.
func consistently(t *testing.T, d time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if why := cond(); why != "" {
			t.Fatalf("%s", why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func getWL(t *testing.T, ns, name string) *kueue.Workload {
	t.Helper()
	wl := &kueue.Workload{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, wl); err != nil {
		t.Fatalf("reading workload %s/%s: %v", ns, name, err)
	}
	return wl
}

func listWLs(t *testing.T, ns string) []kueue.Workload {
	t.Helper()
	var list kueue.WorkloadList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatalf("listing workloads in %s: %v", ns, err)
	}
	return list.Items
}

func cond(wl *kueue.Workload, typ string) *metav1.Condition {
	return meta.FindStatusCondition(wl.Status.Conditions, typ)
}

func isAdmitted(wl *kueue.Workload) bool {
	return wl.Status.Admission != nil && meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved) &&
		meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted)
}

func countAdmitted(wls []kueue.Workload) int {
	n := 0
	for i := range wls {
		if isAdmitted(&wls[i]) && !meta.IsStatusConditionTrue(wls[i].Status.Conditions, kueue.WorkloadFinished) {
			n++
		}
	}
	return n
}

// finish sets Finished=True, as the job integration does when a job completes.
func finish(t *testing.T, wl *kueue.Workload) {
	t.Helper()
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadFinished,
		Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "done"})
	if err := env.Client.Status().Update(context.Background(), wl); err != nil {
		t.Fatalf("finishing workload %s: %v", wl.Name, err)
	}
}

func keyOf(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

// waitForSample waits until the manager's metric name, with labels among its
// labels, has the value want.
func waitForSample(t *testing.T, mgr *runningManager, name string, labels map[string]string, want float64) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		if v, _ := sample(mgr.scrape(t), name, labels); v != want {
			return fmt.Sprintf("%s%v = %v, want %v", name, labels, v, want)
		}
		return ""
	})
}

// waitForEvent waits until an event with that type, reason and message is
// recorded on the object named name in namespace ns.
func waitForEvent(t *testing.T, ns, name, eventType, reason, message string) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		var events corev1.EventList
		if err := env.Client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			return err.Error()
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == name && e.Type == eventType && e.Reason == reason && e.Message == message {
				return ""
			}
		}
		return fmt.Sprintf("no %s event %s %q on %s/%s", eventType, reason, message, ns, name)
	})
}
