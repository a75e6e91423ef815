package main

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// replayStep decides one of Kueue's events with Quokka's engine: a fresh
// engine is given the scenario's queues and Kueue's settled Workloads before
// the event (their admissions and condition times as Kueue wrote them), runs
// cycles until they change nothing, which must decide nothing (else warm says
// what it decided), then takes the event and runs cycles until nothing
// changes again, confirming every eviction at once as the player did on
// Kueue's side. It returns the admissions then held and the workloads evicted
// on the way, as kueueStep has them.
//
// Starting every event from Kueue's own state, rather than from the engine's
// previous answer, keeps one difference from hiding all later ones, and keeps
// the times Kueue orders preemption candidates by (second-resolution
// QuotaReserved times, then UIDs) the same on both sides. The engine is told
// which workloads Kueue holds in its inadmissible lists (parkedByKueue,
// ParkWorkload): they run no preemption search before a release, as in
// Kueue. A creation is played on that engine; only if it preempts, releasing
// quota, is it played again in the two steps below.
//
// Kueue requeues parked workloads in a batch one second after quota is
// released (requeueBatchPeriod in pkg/cache/queue), while a StrictFIFO head
// stays in its queue's heap and is tried in every cycle; so the quota a
// finished workload frees goes to StrictFIFO heads first, if they fit, and
// only a second later to the parked workloads. Quokka's engine wakes them
// all at once (docs/kueue-conformance.md, deliberate difference 5). To
// compare decisions rather than that pacing, every event is replayed in the
// same two steps: the engine first decides without the pending workloads of
// BestEffortFIFO queues that Kueue has parked, then with them. A creation
// releases quota only through the evictions of its preemptions, which Kueue
// paces alike. Kueue keeps
// in its heap the ones its cycles skip for another's sake again and again
// (inHeap; a guess from their conditions and the engine's own cycles).
func replayStep(opts scheduler.Options, sc *scenario, step *kueueStep) (warm string, after map[string]string, evicted []string, err error) {
	before := admissions(step.before)
	now := time.Now()
	if step.created != nil {
		now = step.created.CreationTimestamp.Time
	}
	s, err := replayEngine(opts, sc, step.before, nil)
	if err != nil {
		return "", nil, nil, err
	}
	bestEffort := map[string]bool{}
	for _, lq := range sc.lqs {
		for _, cq := range sc.cqs {
			if cq.Name == string(lq.Spec.ClusterQueue) {
				bestEffort[lq.Name] = cq.Spec.QueueingStrategy != kueue.StrictFIFO
			}
		}
	}
	for i := range step.before {
		if wl := &step.before[i]; parkedByKueue(wl, bestEffort) {
			s.ParkWorkload(types.NamespacedName{Namespace: wl.Namespace, Name: wl.Name})
		}
	}
	// A change of an active pending workload that leaves it active (a
	// priority change), or a reactivation, is played as a creation: Kueue
	// moves it within its queue, or into the heap, and requeues nothing else
	// (its workload controller's pending to pending update). Any other change
	// is played as a finish: one of an admitted workload's priority requeues
	// the tree's parked workloads (PriorityChanged), and so does a
	// deactivation (and any update of an inactive workload), which also
	// evicts an admitted workload.
	arrival := step.created
	if ch := step.changed; ch != nil && admissionOf(findWorkload(step.before, ch.Name)) == "" && ptr.Deref(ch.Spec.Active, true) {
		arrival = ch
	}
	after = maps.Clone(before)
	var skipping map[string]bool
	if evicted, skipping, err = settleEngine(s, now, after, sc.fullCount); err != nil {
		return "", nil, nil, fmt.Errorf("before the event: %w", err)
	}
	if diff := stepDiff(before, after, nil, evicted); diff != "" {
		return "before the event, from Kueue's settled state: " + diff, nil, nil, nil
	}
	if arrival != nil {
		// The settled engine has parked what Kueue has parked (park.go).
		// A creation releases nothing: unless it preempts, they stay parked.
		created := maps.Clone(after)
		if err := s.UpsertWorkload(arrival); err != nil {
			return "", nil, nil, err
		}
		ev, _, err := settleEngine(s, now.Add(time.Second), created, sc.fullCount)
		if err != nil {
			return "", nil, nil, err
		}
		if len(ev) == 0 {
			return "", created, nil, nil
		}
	}
	var parked []*kueue.Workload
	s, err = replayEngine(opts, sc, step.before, func(wl *kueue.Workload) bool {
		if arrival != nil && wl.Name == arrival.Name {
			// Played as the event, below.
			return true
		}
		if admissionOf(wl) == "" && !apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) &&
			bestEffort[string(wl.Spec.QueueName)] && !inHeap(wl, skipping) {
			parked = append(parked, wl)
			return true
		}
		return false
	})
	if err != nil {
		return "", nil, nil, err
	}
	if _, _, err = settleEngine(s, now, after, sc.fullCount); err != nil {
		return "", nil, nil, fmt.Errorf("before the event: %w", err)
	}
	switch {
	case arrival != nil:
		// A new workload releases nothing, so Kueue leaves its parked
		// workloads parked, unless the new one preempts: the eviction
		// releases quota as a finish does, and the parked workloads are
		// requeued a second later, after the StrictFIFO heads and the
		// preemptor itself (still in the heap) have been tried.
		if err := s.UpsertWorkload(arrival); err != nil {
			return "", nil, nil, err
		}
	case step.changed != nil:
		// An admitted workload's new priority changes which preemptions
		// its tree's workloads may make, and a deactivation releases quota
		// or lets a StrictFIFO queue move on: Kueue requeues the parked
		// workloads (QueueAssociatedInadmissibleWorkloadsAfter), paced as
		// after a finish.
		if err := s.UpsertWorkload(step.changed); err != nil {
			return "", nil, nil, err
		}
	case step.reclaimed != "":
		// A reclaim releases quota as a finish does, and Kueue requeues
		// its parked workloads the same way (QueueAssociatedInadmissible-
		// WorkloadsAfter): it is replayed in the same two steps.
		wl := findWorkload(step.before, step.reclaimed).DeepCopy()
		wl.Status.ReclaimablePods = step.reclaimable
		if err := s.UpsertWorkload(wl); err != nil {
			return "", nil, nil, err
		}
	default:
		s.FinishWorkload(types.NamespacedName{Namespace: sc.name, Name: step.finished})
		delete(after, step.finished)
	}
	if evicted, _, err = settleEngine(s, now.Add(time.Second), after, sc.fullCount); err != nil {
		return "", nil, nil, err
	}
	for _, wl := range parked {
		if err := s.UpsertWorkload(wl); err != nil {
			return "", nil, nil, err
		}
	}
	more, _, err := settleEngine(s, now.Add(2*time.Second), after, sc.fullCount)
	if err != nil {
		return "", nil, nil, err
	}
	evicted = append(evicted, more...)
	sort.Strings(evicted)
	return "", after, evicted, nil
}

// parkedByKueue tells whether Kueue's settled state has the workload in its
// queue's inadmissible list: pending in a BestEffortFIFO queue, evaluated
// (a QuotaReserved=False condition) and not skipped for another's sake, which
// Kueue keeps in the heap for another try (see inHeap). The engine rebuilt
// from that state is told so (ParkWorkload): it would otherwise take every
// such workload as new, and let it preempt where Kueue waits for a release.
func parkedByKueue(wl *kueue.Workload, bestEffort map[string]bool) bool {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	return admissionOf(wl) == "" && bestEffort[string(wl.Spec.QueueName)] &&
		!apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) &&
		c != nil && c.Status == metav1.ConditionFalse && !strings.HasPrefix(c.Message, kueueSkippedMessage) &&
		!strings.HasPrefix(c.Message, "Workload has overlapping preemption targets with another workload")
}

// inHeap guesses whether Kueue keeps the pending workload in its queue's
// heap rather than parked. Kueue requeues a workload it skipped for another's
// sake (setSkipped in pkg/scheduler/scheduler.go: it no longer fit once an
// earlier head's admission or hold was counted, or its preemption targets
// overlapped another's) at once (RequeueReasonFailedAfterNomination), and
// tries it again in its next cycle, milliseconds later. If that try fails to
// get a flavor, Kueue parks it, and usually writes no condition: it compares
// the new message with the condition of the Workload in its cache, which
// still has the message from before the skip, often the same. So a skipped
// workload is still in the heap after the event settled only when every
// cycle skips it, as under a StrictFIFO head's hold; the engine's own cycles
// on the same state (skipping, the workloads its last settling cycle
// skipped so) tell which those are.
func inHeap(wl *kueue.Workload, skipping map[string]bool) bool {
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	return c != nil && c.Status == metav1.ConditionFalse && skipping[wl.Name] &&
		(strings.HasPrefix(c.Message, kueueSkippedMessage) ||
			strings.HasPrefix(c.Message, "Workload has overlapping preemption targets with another workload"))
}

// kueueSkippedMessage is the Pending message of a workload that Kueue's
// cycle nominated and then skipped, which the engine gives too.
const kueueSkippedMessage = "Workload no longer fits after processing another workload"

// replayEngine builds an engine with the scenario's queues and the given
// workloads, but those skip (when not nil) leaves out.
func replayEngine(opts scheduler.Options, sc *scenario, wls []kueue.Workload, skip func(*kueue.Workload) bool) (*scheduler.Scheduler, error) {
	s := scheduler.New(opts)
	s.UpsertNamespace(sc.name, nil)
	for _, rf := range sc.allFlavors() {
		s.UpsertResourceFlavor(rf)
	}
	for _, wpc := range sc.classes {
		s.UpsertWorkloadPriorityClass(wpc.Name, wpc.Value)
	}
	for _, c := range sc.cohorts {
		if err := s.UpsertCohort(c); err != nil {
			return nil, fmt.Errorf("Cohort %s: %w", c.Name, err)
		}
	}
	for _, cq := range sc.cqs {
		if err := s.UpsertClusterQueue(cq); err != nil {
			return nil, fmt.Errorf("ClusterQueue %s: %w", cq.Name, err)
		}
	}
	for _, lq := range sc.lqs {
		s.UpsertLocalQueue(lq)
	}
	for i := range wls {
		if skip != nil && skip(&wls[i]) {
			continue
		}
		if err := s.UpsertWorkload(&wls[i]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// settleEngine runs cycles until one changes nothing and asks for no other,
// keeping held up to date (workload name → admission) and confirming each
// eviction at once. It returns the workloads evicted, in name order, and
// those its last cycle skipped for another's sake (see inHeap).
func settleEngine(s *scheduler.Scheduler, now time.Time, held map[string]string, full func(name string) int32) (evicted []string, skipping map[string]bool, err error) {
	// A scenario has a few workloads: a few hundred cycles mean the
	// engine is going round in circles.
	return settleEngineWithin(s, now, held, full, engineCycleLimit)
}

// settleEngineWithin is settleEngine giving up after limit cycles.
func settleEngineWithin(s *scheduler.Scheduler, now time.Time, held map[string]string, full func(name string) int32, limit int) (evicted []string, skipping map[string]bool, err error) {
	var recent []string
	for cycle := 0; ; cycle++ {
		if cycle == limit {
			return nil, nil, &engineUnsettled{cycles: cycle, last: recent}
		}
		changed := false
		skipping = map[string]bool{}
		var did []string
		for _, d := range s.Cycle(now.Add(time.Duration(cycle) * time.Millisecond)) {
			switch d := d.(type) {
			case scheduler.Pending:
				if d.Message == kueueSkippedMessage {
					skipping[d.Workload.Name] = true
				}
			case scheduler.Admit:
				ps := d.PodSets[0]
				held[d.Workload.Name] = admissionString(d.ClusterQueue, ps.Flavors[corev1.ResourceCPU], ps.Flavors[corev1.ResourceMemory], ps.Count, full(d.Workload.Name))
				did = append(did, "admit "+d.Workload.Name+" in "+held[d.Workload.Name])
				changed = true
			case scheduler.Evict:
				// A deactivated workload's eviction (the only kind a
				// scenario's world gives), confirmed at once as the
				// player completes Kueue's.
				s.EvictWorkload(d.Workload)
				delete(held, d.Workload.Name)
				evicted = append(evicted, d.Workload.Name)
				did = append(did, "evict "+d.Workload.Name+" ("+d.Reason+")")
				changed = true
			case scheduler.Preempt:
				for _, v := range d.Victims {
					s.EvictWorkload(v.Workload)
					delete(held, v.Workload.Name)
					evicted = append(evicted, v.Workload.Name)
					did = append(did, "evict "+v.Workload.Name+" for "+d.Preemptor.Name)
				}
				changed = true
			}
		}
		if len(did) > 0 {
			recent = append(recent, fmt.Sprintf("cycle %d: %s", cycle, strings.Join(did, ", ")))
			if len(recent) > engineCyclesShown {
				recent = recent[1:]
			}
		}
		if !changed && !s.WantsCycle() {
			break
		}
	}
	sort.Strings(evicted)
	return evicted, skipping, nil
}

// engineCycleLimit is how many cycles settleEngine runs before it gives up: a
// scenario has a few workloads, so a few hundred cycles mean the engine is
// going round in circles.
const engineCycleLimit = 500

// engineCyclesShown is how many of its last deciding cycles an
// engineUnsettled reports.
const engineCyclesShown = 8

// engineUnsettled is an event after which Quokka's engine kept deciding: the
// run reports it with the world, as a difference, and goes on to the next
// event.
type engineUnsettled struct {
	cycles int
	// last are the last cycles that decided something, oldest first.
	last []string
}

func (e *engineUnsettled) Error() string {
	return fmt.Sprintf("Quokka's engine still deciding after %d cycles; its last deciding cycles: %s", e.cycles, strings.Join(e.last, "; "))
}

// stepDiff says how Quokka's outcome of a step differs from Kueue's, or "" when
// they are the same: every admission (queue and flavor) and every eviction.
func stepDiff(kueueAfter, quokkaAfter map[string]string, kueueEvicted, quokkaEvicted []string) string {
	var out []string
	names := map[string]bool{}
	for n := range kueueAfter {
		names[n] = true
	}
	for n := range quokkaAfter {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		if k, q := kueueAfter[n], quokkaAfter[n]; k != q {
			out = append(out, fmt.Sprintf("%s: Kueue %s, Quokka %s", n, orPending(k), orPending(q)))
		}
	}
	if strings.Join(kueueEvicted, ",") != strings.Join(quokkaEvicted, ",") {
		out = append(out, fmt.Sprintf("evicted: Kueue [%s], Quokka [%s]", strings.Join(kueueEvicted, " "), strings.Join(quokkaEvicted, " ")))
	}
	return strings.Join(out, "; ")
}

func orPending(admission string) string {
	if admission == "" {
		return "pending"
	}
	return "admitted in " + admission
}

// describeWorld prints a scenario's queues, for a difference's report.
func describeWorld(sc *scenario) string {
	var b strings.Builder
	for _, c := range sc.cohorts {
		fmt.Fprintf(&b, "  Cohort %s parent=%q", c.Name, c.Spec.ParentName)
		writeWeight(&b, c.Spec.FairSharing)
		writeQuotas(&b, c.Spec.ResourceGroups)
		b.WriteString("\n")
	}
	for _, cq := range sc.cqs {
		p := cq.Spec.Preemption
		fmt.Fprintf(&b, "  %s cohort=%q %s whenCanBorrow=%s whenCanPreempt=%s withinClusterQueue=%s reclaimWithinCohort=%s",
			cq.Name, cq.Spec.CohortName, cq.Spec.QueueingStrategy, cq.Spec.FlavorFungibility.WhenCanBorrow,
			cq.Spec.FlavorFungibility.WhenCanPreempt, p.WithinClusterQueue, p.ReclaimWithinCohort)
		if bwc := p.BorrowWithinCohort; bwc != nil && bwc.Policy != kueue.BorrowWithinCohortPolicyNever {
			fmt.Fprintf(&b, " borrowWithinCohort=%s", bwc.Policy)
			if bwc.MaxPriorityThreshold != nil {
				fmt.Fprintf(&b, "(<=%d)", *bwc.MaxPriorityThreshold)
			}
		}
		writeWeight(&b, cq.Spec.FairSharing)
		writeQuotas(&b, cq.Spec.ResourceGroups)
		b.WriteString("\n")
	}
	return b.String()
}

// writeWeight prints a fair-sharing weight (" weight=500m"), or nothing when
// there is none: the default weight, 1, which fair sharing's order depends on
// as much as on quotas.
func writeWeight(b *strings.Builder, fs *kueue.FairSharing) {
	if fs != nil && fs.Weight != nil {
		fmt.Fprintf(b, " weight=%s", fs.Weight.String())
	}
}

// writeQuotas prints resource groups, a ClusterQueue's or a Cohort's, " |"
// between groups: each flavor's nominal quotas, each further resource after a
// slash, with their limits ("f1:4,borrow<=2/2Gi").
func writeQuotas(b *strings.Builder, groups []kueue.ResourceGroup) {
	for gi, g := range groups {
		if gi > 0 {
			b.WriteString(" |")
		}
		for _, f := range g.Flavors {
			fmt.Fprintf(b, " %s:", f.Name)
			for i, rq := range f.Resources {
				if i > 0 {
					b.WriteString("/")
				}
				b.WriteString(rq.NominalQuota.String())
				if rq.BorrowingLimit != nil {
					fmt.Fprintf(b, ",borrow<=%s", rq.BorrowingLimit.String())
				}
				if rq.LendingLimit != nil {
					fmt.Fprintf(b, ",lend<=%s", rq.LendingLimit.String())
				}
			}
		}
	}
}

// describeWorkloads prints workloads one per line: queue, priority, pods
// (with their minCount) × requests, creation time and admission (with the
// pods marked reclaimable), so that a difference's world can be rebuilt in an
// engine test.
func describeWorkloads(wls []kueue.Workload) string {
	var b strings.Builder
	for i := range wls {
		wl := &wls[i]
		ps := wl.Spec.PodSets[0]
		requests := ps.Template.Spec.Containers[0].Resources.Requests
		cpu := requests[corev1.ResourceCPU]
		perPod := cpu.String() + " cpu"
		if mem, ok := requests[corev1.ResourceMemory]; ok {
			perPod += " + " + mem.String() + " memory"
		}
		prio := int32(0)
		if wl.Spec.Priority != nil {
			prio = *wl.Spec.Priority
		}
		state := orPending(admissionOf(wl))
		if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved); state == "pending" && c != nil && c.Message != "" {
			state += " (" + c.Message + ")"
		}
		if apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			state = "finished"
		}
		if !ptr.Deref(wl.Spec.Active, true) {
			state += ", inactive"
		}
		pods := fmt.Sprintf("%d pod(s)", ps.Count)
		if ps.MinCount != nil {
			pods += fmt.Sprintf(" (min %d)", *ps.MinCount)
		}
		for _, rp := range wl.Status.ReclaimablePods {
			if rp.Name == ps.Name && rp.Count > 0 {
				state += fmt.Sprintf(", %d pod(s) reclaimable", rp.Count)
			}
		}
		fmt.Fprintf(&b, "  %s queue=%s priority=%d %s x %s, created %s: %s\n", wl.Name, wl.Spec.QueueName, prio,
			pods, perPod, wl.CreationTimestamp.UTC().Format("15:04:05"), state)
	}
	return b.String()
}
