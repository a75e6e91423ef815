package flavorassigner_test

// Helpers for the tests ported from Kueue's flavor assigner tables
// (pkg/scheduler/flavorassigner/flavorassigner_test.go). Kueue's tables
// charge usage straight into a snapshot and answer preemption with a stub
// oracle; here usage is held by admitted workloads charged into a
// quota.Cache, and the flavor assigner consults the real preemption oracle,
// which looks for victims among those workloads.

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/workload"
)

const (
	kaGPU = corev1.ResourceName("example.com/gpu")
	kaCPU = corev1.ResourceCPU
	kaMem = corev1.ResourceMemory
	kaPod = corev1.ResourcePods

	// kaMain and kaSecondary are the ClusterQueue names of Kueue's
	// TestAssignFlavors.
	kaMain      = "test-clusterqueue"
	kaSecondary = "test-secondary-clusterqueue"
)

// kaWorld is what a case puts into the cache before assigning flavors.
type kaWorld struct {
	flavors []*kueue.ResourceFlavor
	cohorts []*kueue.Cohort
	queues  []*kueue.ClusterQueue
	// admitted are workloads holding quota (status.admission set); they are
	// charged to their ClusterQueue and offered to the preemption oracle.
	admitted []*kueue.Workload
	// fairSharing turns fair sharing on, with Kueue's default strategies.
	fairSharing bool
}

// kaWant is Kueue's expectation, in the terms Quokka exposes.
type kaWant struct {
	// mode is Kueue's representative mode: "Fit" (Result.Fits), "Preempt"
	// (Result.Preemption set) or "NoFit" (neither).
	mode string
	// flavors are the chosen flavors of each pod set, in order (Kueue's
	// PodSetAssignment.Flavors); nil when the mode is NoFit.
	flavors []map[corev1.ResourceName]string
	// borrowing is Kueue's Assignment.Borrowing: the height of the lowest
	// Cohort subtree that holds the assignment, 0 without borrowing.
	borrowing int
	// reason, when set, is Quokka's reason code for Kueue's NoFitReason
	// category (ExceedsMaxQuota: ExceedsMaximumQuota; NoMatchingFlavor:
	// FlavorSkipped, or ResourceNotCovered for a resource no group covers).
	reason string
}

// kaCase is one ported case; the workload is assigned in ClusterQueue cq
// (kaMain when empty).
type kaCase struct {
	name  string
	world kaWorld
	cq    string
	wl    *kueue.Workload
	want  kaWant
	// skipBorrowing leaves the borrowing level unchecked, for the tables in
	// which Kueue does not assert it.
	skipBorrowing bool
}

type kaSource map[string][]*preemption.Candidate

func (s kaSource) Admitted(cq string) []*preemption.Candidate { return s[cq] }

// kaAssign builds the cache of the world and assigns flavors to wl in
// ClusterQueue cq, with the real preemption oracle.
func kaAssign(t *testing.T, w kaWorld, cq string, wl *kueue.Workload) flavorassigner.Result {
	t.Helper()
	return kaAssignWith(t, w, cq, wl, flavorassigner.Options{})
}

// kaAssignWith is kaAssign with options; the oracle and FairSharing are set
// from the world.
func kaAssignWith(t *testing.T, w kaWorld, cq string, wl *kueue.Workload, opts flavorassigner.Options) flavorassigner.Result {
	t.Helper()
	c := quota.New(quota.Options{})
	for _, f := range w.flavors {
		c.UpsertResourceFlavor(f)
	}
	for _, co := range w.cohorts {
		if err := c.UpsertCohort(co); err != nil {
			t.Fatalf("cohort %s: %v", co.Name, err)
		}
	}
	for _, q := range w.queues {
		if err := c.UpsertClusterQueue(q); err != nil {
			t.Fatalf("ClusterQueue %s: %v", q.Name, err)
		}
	}
	src := kaSource{}
	for _, a := range w.admitted {
		info, err := workload.FromAPI(a)
		if err != nil {
			t.Fatal(err)
		}
		if info.Admission == nil {
			t.Fatalf("admitted workload %s has no admission", info.Key)
		}
		cand := &preemption.Candidate{Key: info.Key, UID: info.UID, ClusterQueue: info.Admission.ClusterQueue,
			Priority: kaPriority(info), Created: info.Created, AdmittedAt: info.QuotaReservedAt, Usage: info.Admission.Usage}
		c.Charge(info.Key, cand.ClusterQueue, cand.Usage)
		src[cand.ClusterQueue] = append(src[cand.ClusterQueue], cand)
	}
	q, ok := c.ClusterQueue(cq)
	if !ok {
		t.Fatalf("ClusterQueue %s not in the cache", cq)
	}
	info, err := workload.FromAPI(wl)
	if err != nil {
		t.Fatal(err)
	}
	var popts preemption.Options
	if w.fairSharing {
		popts.FairSharing = []fairsharing.Strategy{fairsharing.LessThanOrEqualToFinalShare, fairsharing.LessThanInitialShare}
	}
	oracle := &preemption.Oracle{Cache: c, Source: src, Options: popts,
		Preemptor: preemption.Preemptor{Key: info.Key, UID: info.UID, Priority: kaPriority(info), Created: info.Created}}
	opts.Oracle, opts.FairSharing = oracle, w.fairSharing
	return flavorassigner.Assign(c, q, info.PodSets, opts)
}

func kaPriority(info *workload.Info) int32 {
	if info.Priority != nil {
		return *info.Priority
	}
	return 0
}

// kaRun runs one case and compares the outcome with Kueue's.
func kaRun(t *testing.T, tc kaCase) {
	t.Helper()
	cq := tc.cq
	if cq == "" {
		cq = kaMain
	}
	res := kaAssign(t, tc.world, cq, tc.wl)
	mode, flavors, borrowing := kaOutcome(res)
	if mode != tc.want.mode {
		t.Errorf("representative mode %s, want %s (reason %q: %s)", mode, tc.want.mode, res.Reason, res.Message)
	}
	if !reflect.DeepEqual(flavors, tc.want.flavors) {
		// Kueue counts pods as a resource when a resource group covers it;
		// say so when that is all that differs.
		note := ""
		if reflect.DeepEqual(kaWithout(flavors, kaPod), kaWithout(tc.want.flavors, kaPod)) {
			note = " (only pods differs: Kueue requests one pods per pod when a resource group covers pods)"
		}
		t.Errorf("flavors %s, want %s%s", kaFormat(flavors), kaFormat(tc.want.flavors), note)
	}
	if !tc.skipBorrowing && borrowing != tc.want.borrowing {
		t.Errorf("borrowing level %d, want %d", borrowing, tc.want.borrowing)
	}
	if tc.want.reason != "" && res.Reason != tc.want.reason {
		t.Errorf("reason %q, want %q (message: %s)", res.Reason, tc.want.reason, res.Message)
	}
}

// kaOutcome reads Kueue's representative mode, the chosen flavors of each pod
// set and the borrowing level out of a result.
func kaOutcome(res flavorassigner.Result) (string, []map[corev1.ResourceName]string, int) {
	switch {
	case res.Fits:
		return "Fit", kaFlavorsOf(res.PodSets), res.BorrowLevel
	case res.Preemption != nil:
		return "Preempt", kaFlavorsOf(res.Preemption.PodSets), res.Preemption.BorrowLevel
	}
	return "NoFit", nil, 0
}

func kaFlavorsOf(podSets []decision.PodSetAssignment) []map[corev1.ResourceName]string {
	if podSets == nil {
		return nil
	}
	out := make([]map[corev1.ResourceName]string, 0, len(podSets))
	for _, ps := range podSets {
		m := map[corev1.ResourceName]string{}
		for r, f := range ps.Flavors {
			m[r] = f
		}
		out = append(out, m)
	}
	return out
}

// kaWithout is flavors without resource r.
func kaWithout(flavors []map[corev1.ResourceName]string, r corev1.ResourceName) []map[corev1.ResourceName]string {
	if flavors == nil {
		return nil
	}
	out := make([]map[corev1.ResourceName]string, 0, len(flavors))
	for _, m := range flavors {
		c := map[corev1.ResourceName]string{}
		for k, v := range m {
			if k != r {
				c[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}

func kaFormat(flavors []map[corev1.ResourceName]string) string {
	if flavors == nil {
		return "none"
	}
	s := "["
	for i, m := range flavors {
		if i > 0 {
			s += " "
		}
		keys := make([]string, 0, len(m))
		for r := range m {
			keys = append(keys, string(r))
		}
		sort.Strings(keys)
		s += "{"
		for j, k := range keys {
			if j > 0 {
				s += ","
			}
			s += fmt.Sprintf("%s:%s", k, m[corev1.ResourceName(k)])
		}
		s += "}"
	}
	return s + "]"
}

// kaPS is the flavors of one pod set, by resource: kaPS(kaCPU, "one",
// kaMem, "b_one").
func kaPS(pairs ...any) map[corev1.ResourceName]string {
	m := map[corev1.ResourceName]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i].(corev1.ResourceName)] = pairs[i+1].(string)
	}
	return m
}

// kaFlavors is the flavors of the pod sets of a workload.
func kaFlavors(podSets ...map[corev1.ResourceName]string) []map[corev1.ResourceName]string {
	return podSets
}

// kaHolding is an admitted workload in ClusterQueue cq holding qty of res in
// flavor, at the given priority (the pending workload has priority 0, so
// that a holding of priority -1 is a victim for a LowerPriority policy and
// one of priority 0 is not).
func kaHolding(name, cq string, priority int32, flavor string, res corev1.ResourceName, qty string) *kueue.Workload {
	return MakeWorkload("ns", name).Priority(priority).Request(res, qty).ReserveQuota(cq, flavor).Obj()
}

// kaPending is the workload to assign: one pod set "main" with one pod.
func kaPending() *WorkloadWrapper { return MakeWorkload("ns", "wl") }
