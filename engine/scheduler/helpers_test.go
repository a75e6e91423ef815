package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// namespace is a test object for UpsertNamespace.
type namespace struct {
	name   string
	labels map[string]string
}

var now = time.Date(2026, 10, 28, 12, 0, 0, 0, time.UTC)

// world builds a scheduler from objects, upserting each by type.
func world(t testing.TB, opts Options, objs ...any) *Scheduler {
	t.Helper()
	s := New(opts)
	for _, o := range objs {
		apply(t, s, o)
	}
	return s
}

func apply(t testing.TB, s *Scheduler, o any) {
	t.Helper()
	var err error
	switch v := o.(type) {
	case *kueue.ResourceFlavor:
		s.UpsertResourceFlavor(v)
	case *kueue.ClusterQueue:
		err = s.UpsertClusterQueue(v)
	case *kueue.Cohort:
		err = s.UpsertCohort(v)
	case *kueue.LocalQueue:
		s.UpsertLocalQueue(v)
	case *kueue.Workload:
		err = s.UpsertWorkload(v)
	case namespace:
		s.UpsertNamespace(v.name, v.labels)
	case *corev1.LimitRange:
		// One per namespace in these tests.
		s.SetLimitRanges(v.Namespace, []corev1.LimitRange{*v})
	default:
		t.Fatalf("unknown object %T", o)
	}
	if err != nil {
		t.Fatalf("upsert %T: %v", o, err)
	}
}

func admits(ds []Decision) []Admit {
	var out []Admit
	for _, d := range ds {
		if a, ok := d.(Admit); ok {
			out = append(out, a)
		}
	}
	return out
}

func admittedNames(ds []Decision) []string {
	out := []string{}
	for _, a := range admits(ds) {
		out = append(out, a.Workload.Name)
	}
	return out
}

func pendingFor(ds []Decision, name string) (Pending, bool) {
	for _, d := range ds {
		if p, ok := d.(Pending); ok && p.Workload.Name == name {
			return p, true
		}
	}
	return Pending{}, false
}

func mustPending(t *testing.T, ds []Decision, name, reason string) Pending {
	t.Helper()
	p, ok := pendingFor(ds, name)
	if !ok {
		t.Fatalf("%s: no pending decision; decisions: %v", name, ds)
	}
	if p.Reason != reason {
		t.Fatalf("%s: reason %s (%s), want %s", name, p.Reason, p.Message, reason)
	}
	return p
}

func usage(t *testing.T, s *Scheduler, cq, flavor, res string) int64 {
	t.Helper()
	v, ok := s.ClusterQueueSnapshot(cq)
	if !ok {
		t.Fatalf("no ClusterQueue %s", cq)
	}
	for _, u := range v.Usage {
		if u.Flavor == flavor && string(u.Resource) == res {
			return u.Total
		}
	}
	return 0
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// mustStillPending is mustPending for a cycle after the one that explained the
// workload: a cycle need not explain again a workload whose outcome cannot have
// changed (it keeps its last decision, see sleep.go), so either the cycle
// explains it with the reason, or it is still pending in the engine.
func mustStillPending(t *testing.T, s *Scheduler, ds []Decision, name, reason string) {
	t.Helper()
	if p, ok := pendingFor(ds, name); ok {
		if p.Reason != reason {
			t.Fatalf("%s: reason %s (%s), want %s", name, p.Reason, p.Message, reason)
		}
		return
	}
	for _, d := range ds {
		if a, ok := d.(Admit); ok && a.Workload.Name == name {
			t.Fatalf("%s was admitted, want it pending with %s", name, reason)
		}
	}
	for k, r := range s.workloads {
		if k.Name == name {
			if r.state != StatePending {
				t.Fatalf("%s is %s, want it pending with %s", name, r.state, reason)
			}
			return
		}
	}
	t.Fatalf("%s: unknown workload", name)
}
