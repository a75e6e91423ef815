package main

import (
	"fmt"
	"math/rand"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// A scenario is one small random world (one namespace, one or two flavors, a few
// ClusterQueues, mostly in one cohort, with random quotas, limits and policies)
// and the events played on it: workloads created one at a time, and admitted
// workloads finished. --load decisions plays each scenario through Kueue's
// scheduler and replays every event through Quokka's engine.
//
// The worlds stay within what both schedulers implement and what Kueue v0.17.0
// decides with its default Configuration: classic preemption (no fair
// sharing), one resource (cpu), one pod set per workload, priorities set in
// spec.priority. Cohorts may form a tree of two levels, and a Cohort may have
// quota of its own. Every name is prefixed with the scenario's, so that scenarios
// share one API server and one minimalkueue without touching each other.
type scenario struct {
	name string
	scenarioKinds
	flavors []*kueue.ResourceFlavor
	// memFlavors are the flavors of memory's own resource group (groups).
	memFlavors []*kueue.ResourceFlavor
	// cohorts are the Cohort objects: sometimes a child cohort under the
	// scenario's cohort, and sometimes quota of a cohort's own.
	cohorts []*kueue.Cohort
	cqs     []*kueue.ClusterQueue
	lqs     []*kueue.LocalQueue
	// classes are the WorkloadPriorityClasses, one per priority, that the
	// workloads name (reprioritize).
	classes []*kueue.WorkloadPriorityClass
	events  []scenarioEvent
}

// scenarioKinds says what a scenario's world and workloads may use beyond
// classic preemption.
type scenarioKinds struct {
	// fair gives queues and cohorts fair-sharing weights.
	fair bool
	// partial gives half the workloads two to four pods and a minCount
	// below that (Kueue's partial admission, on in Kueue v0.17.0).
	partial bool
	// reclaim gives half the workloads two to four pods and turns half the
	// finishes into reclaims: one more pod of an admitted workload marked
	// reclaimable (Kueue's ReclaimablePods, on in Kueue v0.17.0).
	reclaim bool
	// memory makes every resource group cover cpu and memory, with a quota
	// (and limits) of each per flavor, and most workloads ask for both:
	// a flavor must fit every resource of its group, and a workload may
	// borrow or preempt for one resource and fit the other.
	memory bool
	// groups, with memory, puts memory in a resource group of its own with
	// flavors of its own, so that a workload gets a flavor per group.
	groups bool
	// reprioritize gives every workload a WorkloadPriorityClass (and its
	// value as spec.priority, as Kueue's job integrations write it) and
	// turns some finishes into priority changes: a pending or admitted
	// workload moves to another class, as when a user relabels its Job.
	reprioritize bool
	// toggle turns some finishes into flips of spec.active: a pending or
	// admitted workload is deactivated (Kueue evicts it if admitted), or a
	// deactivated one reactivated.
	toggle bool
}

// scenarioEvent is a workload to create, or else an admitted workload to
// finish: the pick-th of the admitted workloads in name order, modulo their
// number (nothing happens when none is admitted); with reclaim, the pick-th
// of the admitted workloads with a pod not yet reclaimable gets one more
// reclaimable pod instead; with reprioritize, the pick-th of the workloads
// not finished, pending or admitted, moves to another priority class: shift+1
// places further in scenarioPriorities, wrapping; with toggle, the pick-th of
// them has its spec.active flipped. Picking at play time keeps the scenario
// independent of the decisions it tests.
type scenarioEvent struct {
	create       *kueue.Workload
	pick         int
	reclaim      bool
	reprioritize bool
	shift        int
	toggle       bool
}

// covered lists what each of a scenario's resource groups covers.
func (k scenarioKinds) covered() [][]corev1.ResourceName {
	switch {
	case k.memory && k.groups:
		return [][]corev1.ResourceName{{corev1.ResourceCPU}, {corev1.ResourceMemory}}
	case k.memory:
		return [][]corev1.ResourceName{{corev1.ResourceCPU, corev1.ResourceMemory}}
	}
	return [][]corev1.ResourceName{{corev1.ResourceCPU}}
}

// groupFlavors are the flavors resource group g of the scenario may use:
// memory's own group has flavors of its own.
func (sc *scenario) groupFlavors(g int) []*kueue.ResourceFlavor {
	if g == 0 {
		return sc.flavors
	}
	return sc.memFlavors
}

// amount is n units of resource name: cpu in cores, memory in GiB.
func amount(name corev1.ResourceName, n int) *resource.Quantity {
	if name == corev1.ResourceMemory {
		return resource.NewQuantity(int64(n)<<30, resource.BinarySI)
	}
	return resource.NewQuantity(int64(n), resource.DecimalSI)
}

// Shape of the generated worlds.
const (
	scenarioCreates     = 14
	scenarioTailFinish  = 4
	scenarioFinishOdds  = 0.35
	scenarioMaxCQs      = 4
	scenarioMaxNominal  = 6
	scenarioMaxBorrow   = 4
	scenarioMaxPodCPU   = 3
	scenarioMaxPodCount = 2
)

var scenarioPriorities = []int32{0, 10, 20}

// newScenario builds scenario number i of the run seeded with seed. With
// fair sharing, queues and cohorts get weights, and no queue has
// borrowWithinCohort, which applies to classic preemption only. With
// partial, workloads may be admitted with fewer pods, and with reclaim
// they may get reclaimable pods (see scenarioKinds); the world (flavors,
// Cohorts, queues) is that of the seed without them.
func newScenario(seed int64, i int, kinds scenarioKinds) *scenario {
	fair := kinds.fair
	r := rand.New(rand.NewSource(seed*1_000_003 + int64(i)))
	sc := &scenario{name: fmt.Sprintf("s%d-%d", seed, i), scenarioKinds: kinds}
	for f := 1; f <= 1+r.Intn(2); f++ {
		sc.flavors = append(sc.flavors, &kueue.ResourceFlavor{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-f%d", sc.name, f)},
		})
	}
	if kinds.memory && kinds.groups {
		for f := 1; f <= 1+r.Intn(2); f++ {
			sc.memFlavors = append(sc.memFlavors, &kueue.ResourceFlavor{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-m%d", sc.name, f)},
			})
		}
	}
	cohorts := []string{sc.name + "-c"}
	if r.Float64() < 0.4 {
		// A child cohort: its queues share with each other first, then
		// with the rest of the tree.
		child := &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: sc.name + "-c2"},
			Spec: kueue.CohortSpec{ParentName: kueue.CohortReference(cohorts[0])}}
		sc.cohorts = append(sc.cohorts, child)
		cohorts = append(cohorts, child.Name)
	}
	if r.Float64() < 0.3 {
		root := &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: cohorts[0]}}
		sc.cohorts = append([]*kueue.Cohort{root}, sc.cohorts...)
	}
	for _, c := range sc.cohorts {
		if r.Float64() < 0.5 {
			c.Spec.ResourceGroups = sc.cohortQuota(r)
		}
		if fair {
			c.Spec.FairSharing = fairWeight(r)
		}
	}
	nCQ := 2 + r.Intn(scenarioMaxCQs-1)
	for q := 1; q <= nCQ; q++ {
		cq := sc.clusterQueue(r, q, cohorts)
		sc.cqs = append(sc.cqs, cq)
		sc.lqs = append(sc.lqs, &kueue.LocalQueue{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.name, Name: "lq-" + cq.Name},
			Spec:       kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq.Name)},
		})
	}
	if kinds.reprioritize {
		for _, p := range scenarioPriorities {
			sc.classes = append(sc.classes, &kueue.WorkloadPriorityClass{
				ObjectMeta: metav1.ObjectMeta{Name: sc.className(p)},
				Value:      p,
			})
		}
	}
	for w := 1; w <= scenarioCreates; w++ {
		if w > 3 && r.Float64() < scenarioFinishOdds {
			sc.events = append(sc.events, sc.finishOrReclaim(r))
		}
		sc.events = append(sc.events, scenarioEvent{create: sc.workload(r, w)})
	}
	for f := 0; f < scenarioTailFinish; f++ {
		sc.events = append(sc.events, sc.finishOrReclaim(r))
	}
	return sc
}

// finishOrReclaim draws an event that is not a create: a finish, or with
// reclaim half the time a reclaim, or with reprioritize (of what is not a
// reclaim) two times in five a priority change, or with toggle (of what is
// neither) about one time in three a flip of spec.active.
func (sc *scenario) finishOrReclaim(r *rand.Rand) scenarioEvent {
	ev := scenarioEvent{pick: r.Intn(1000)}
	ev.reclaim = sc.reclaim && r.Float64() < 0.5
	if !ev.reclaim && sc.reprioritize && r.Float64() < 0.4 {
		ev.reprioritize, ev.shift = true, r.Intn(len(scenarioPriorities)-1)
	}
	if !ev.reclaim && !ev.reprioritize && sc.toggle && r.Float64() < 0.35 {
		ev.toggle = true
	}
	return ev
}

// className names the scenario's WorkloadPriorityClass of priority p.
func (sc *scenario) className(p int32) string {
	return fmt.Sprintf("%s-p%d", sc.name, p)
}

// shifted is the priority a priority change with shift moves a workload of
// priority p to: shift+1 places further in scenarioPriorities, wrapping, so
// never p itself.
func shifted(p int32, shift int) int32 {
	i := slices.Index(scenarioPriorities, p)
	return scenarioPriorities[(i+1+shift)%len(scenarioPriorities)]
}

// clusterQueue draws ClusterQueue number q: a random non-empty subset of the
// flavors in random order, a nominal quota each, and, in the cohort (most
// queues), sometimes a borrowing or lending limit; random preemption policies
// and flavor fungibility, as Kueue's validation allows them.
func (sc *scenario) clusterQueue(r *rand.Rand, q int, cohorts []string) *kueue.ClusterQueue {
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-cq%d", sc.name, q)}}
	inCohort := r.Float64() < 0.85
	if inCohort {
		cq.Spec.CohortName = kueue.CohortReference(cohorts[r.Intn(len(cohorts))])
	}
	cq.Spec.ResourceGroups = sc.resourceGroups(r, func(name corev1.ResourceName) kueue.ResourceQuota {
		nominal := r.Intn(scenarioMaxNominal + 1)
		rq := kueue.ResourceQuota{Name: name, NominalQuota: *amount(name, nominal)}
		if inCohort && r.Float64() < 0.4 {
			rq.BorrowingLimit = amount(name, r.Intn(scenarioMaxBorrow+1))
		}
		if inCohort && r.Float64() < 0.25 {
			rq.LendingLimit = amount(name, r.Intn(nominal+1))
		}
		return rq
	})
	cq.Spec.NamespaceSelector = &metav1.LabelSelector{}
	if r.Float64() < 0.3 {
		cq.Spec.QueueingStrategy = kueue.StrictFIFO
	} else {
		cq.Spec.QueueingStrategy = kueue.BestEffortFIFO
	}
	fungibility := []kueue.FlavorFungibilityPolicy{kueue.MayStopSearch, kueue.TryNextFlavor}
	cq.Spec.FlavorFungibility = &kueue.FlavorFungibility{
		WhenCanBorrow:  fungibility[r.Intn(2)],
		WhenCanPreempt: fungibility[r.Intn(2)],
	}
	within := []kueue.PreemptionPolicy{kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority}
	reclaim := []kueue.PreemptionPolicy{kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyAny}
	p := &kueue.ClusterQueuePreemption{
		WithinClusterQueue:  within[r.Intn(len(within))],
		ReclaimWithinCohort: reclaim[r.Intn(len(reclaim))],
	}
	if sc.fair {
		cq.Spec.FairSharing = fairWeight(r)
	} else if p.ReclaimWithinCohort != kueue.PreemptionPolicyNever && r.Float64() < 0.25 {
		p.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicyLowerPriority}
		if r.Float64() < 0.5 {
			p.BorrowWithinCohort.MaxPriorityThreshold = ptr.To(scenarioPriorities[r.Intn(len(scenarioPriorities))])
		}
	}
	cq.Spec.Preemption = p
	return cq
}

// fairWeight draws a fair-sharing weight: none (1) half the time, else 0.5,
// 1, 2 or, rarely, 0 (any borrowing is then an infinite share).
func fairWeight(r *rand.Rand) *kueue.FairSharing {
	if r.Float64() < 0.5 {
		return nil
	}
	weights := []string{"500m", "1", "2", "2", "0"}
	w := resource.MustParse(weights[r.Intn(len(weights))])
	return &kueue.FairSharing{Weight: &w}
}

// cohortQuota draws a Cohort's own quota: 1–4 cpu (and with memory 1–4 GiB)
// in a random non-empty subset of each group's flavors.
func (sc *scenario) cohortQuota(r *rand.Rand) []kueue.ResourceGroup {
	return sc.resourceGroups(r, func(name corev1.ResourceName) kueue.ResourceQuota {
		return kueue.ResourceQuota{Name: name, NominalQuota: *amount(name, 1+r.Intn(4))}
	})
}

// resourceGroups draws the scenario's resource groups: each group's flavors
// in random order, a random non-empty part of them, and each covered
// resource's quota from quota. The draws keep their order, so a seed's
// scenarios stay what earlier runs recorded.
func (sc *scenario) resourceGroups(r *rand.Rand, quota func(corev1.ResourceName) kueue.ResourceQuota) []kueue.ResourceGroup {
	var groups []kueue.ResourceGroup
	for gi, covered := range sc.covered() {
		group := kueue.ResourceGroup{CoveredResources: covered}
		flavors := sc.groupFlavors(gi)
		for _, fi := range r.Perm(len(flavors))[:1+r.Intn(len(flavors))] {
			fq := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(flavors[fi].Name)}
			for _, name := range group.CoveredResources {
				fq.Resources = append(fq.Resources, quota(name))
			}
			group.Flavors = append(group.Flavors, fq)
		}
		groups = append(groups, group)
	}
	return groups
}

// allFlavors are every ResourceFlavor the scenario's queues name.
func (sc *scenario) allFlavors() []*kueue.ResourceFlavor {
	return append(append([]*kueue.ResourceFlavor{}, sc.flavors...), sc.memFlavors...)
}

// workload draws workload number w: a LocalQueue, one pod set of one or two
// pods of 1–3 cpu (with partial, half of them two to four pods and a
// minCount), and a priority.
func (sc *scenario) workload(r *rand.Rand, w int) *kueue.Workload {
	lq := sc.lqs[r.Intn(len(sc.lqs))]
	count := int32(1)
	if r.Float64() < 0.3 {
		count = int32(1 + r.Intn(scenarioMaxPodCount))
	}
	cpu := resource.NewQuantity(int64(1+r.Intn(scenarioMaxPodCPU)), resource.DecimalSI)
	var minCount *int32
	if sc.partial && r.Float64() < 0.5 {
		count = int32(2 + r.Intn(3))
		minCount = ptr.To(int32(1 + r.Intn(int(count-1))))
	} else if sc.reclaim && r.Float64() < 0.5 {
		count = int32(2 + r.Intn(3))
	}
	requests := corev1.ResourceList{corev1.ResourceCPU: *cpu}
	if sc.memory && r.Float64() < 0.8 {
		requests[corev1.ResourceMemory] = *amount(corev1.ResourceMemory, 1+r.Intn(scenarioMaxPodCPU))
	}
	priority := scenarioPriorities[r.Intn(len(scenarioPriorities))]
	var class *kueue.PriorityClassRef
	if sc.reprioritize {
		class = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: sc.className(priority)}
	}
	return &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: sc.name, Name: fmt.Sprintf("w%02d", w)},
		Spec: kueue.WorkloadSpec{
			QueueName:        kueue.LocalQueueName(lq.Name),
			PriorityClassRef: class,
			Priority:         ptr.To(priority),
			PodSets: []kueue.PodSet{{
				Name:     "main",
				Count:    count,
				MinCount: minCount,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:      "c",
						Image:     "registry.k8s.io/pause:3.10",
						Resources: corev1.ResourceRequirements{Requests: requests},
					}},
				}},
			}},
		},
	}
}

// fullCount is the pod count workload name asks for, 0 when the scenario
// creates no such workload.
func (sc *scenario) fullCount(name string) int32 {
	for _, e := range sc.events {
		if e.create != nil && e.create.Name == name {
			return e.create.Spec.PodSets[0].Count
		}
	}
	return 0
}
