package koord

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
)

func testQuota(name, maxCPU string) koordv1alpha1.ElasticQuota {
	return koordv1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "1"},
		Spec:       koordv1alpha1.ElasticQuotaSpec{Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(maxCPU)}},
	}
}

func testUnit(name, quota, cpu string, phase queuev1alpha1.QueueUnitPhase, rv string) queuev1alpha1.QueueUnit {
	return queuev1alpha1.QueueUnit{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), ResourceVersion: rv,
			Labels: map[string]string{koordv1alpha1.QuotaNameLabel: quota}},
		Spec:   queuev1alpha1.QueueUnitSpec{Resource: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
		Status: queuev1alpha1.QueueUnitStatus{Phase: phase},
	}
}

func admittedCount(ds []elasticquota.Decision) int {
	n := 0
	for _, d := range ds {
		if _, ok := d.(elasticquota.Admit); ok {
			n++
		}
	}
	return n
}

// Usage is rebuilt from every unit that the API records as admitted before
// anything is admitted; ended units release at once; a unit admitted by the
// loop stays admitted while the cache still shows it pending.
func TestSyncUnits(t *testing.T) {
	s := newSyncState(elasticquota.NoOversell)
	if errs := s.syncQuotas([]koordv1alpha1.ElasticQuota{testQuota("q", "4")}, nil); len(errs) > 0 {
		t.Fatal(errs)
	}
	units := []queuev1alpha1.QueueUnit{
		testUnit("running", "q", "3", queuev1alpha1.Running, "1"),
		testUnit("waiting", "q", "2", queuev1alpha1.Enqueued, "1"),
	}
	s.syncUnits(units)
	if got := admittedCount(s.sched.Cycle()); got != 0 {
		t.Fatalf("admitted %d over a unit restored as running (3 of 4 cpu used)", got)
	}

	// The running unit ends: its quota is free at once.
	units[0] = testUnit("running", "q", "3", queuev1alpha1.Succeed, "2")
	s.syncUnits(units)
	if got := admittedCount(s.sched.Cycle()); got != 1 {
		t.Fatalf("admitted %d after the running unit succeeded, want 1", got)
	}
	s.units[types.NamespacedName{Namespace: "ns", Name: "waiting"}].admitted = true

	// The cache still shows "waiting" pending (same version): it stays
	// admitted, and a new unit of 3 does not fit beside it.
	units = append(units, testUnit("third", "q", "3", queuev1alpha1.Enqueued, "1"))
	s.syncUnits(units)
	if got := admittedCount(s.sched.Cycle()); got != 0 {
		t.Fatalf("admitted %d: the loop's own admission was forgotten", got)
	}

	// Units that are gone are forgotten, releasing their quota.
	s.syncUnits(units[2:])
	if got := admittedCount(s.sched.Cycle()); got != 1 {
		t.Fatalf("admitted %d after the admitted unit was deleted, want 1", got)
	}
}

func TestMessageStemIgnoresAmounts(t *testing.T) {
	a := "insufficient quota: limited quotaName:org, limited resKey:cpu, used 3 + request 2 > max 4 × oversell rate 1.00"
	b := "insufficient quota: limited quotaName:org, limited resKey:cpu, used 2 + request 2 > max 3 × oversell rate 1.00"
	c := "insufficient quota: limited quotaName:team, limited resKey:cpu, used 2 + request 2 > max 3 × oversell rate 1.00"
	if messageStem(a) != messageStem(b) || messageStem(a) == messageStem(c) {
		t.Errorf("stems: %q, %q, %q", messageStem(a), messageStem(b), messageStem(c))
	}
}
