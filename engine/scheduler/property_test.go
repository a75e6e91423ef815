package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

var (
	propFlavors   = []string{"h100", "a100"}
	propResources = []corev1.ResourceName{gpu, "cpu"}
	propCohorts   = []string{"root-1", "root-2", "mid-1", "mid-2", "leaf-1"}
	propQueues    = []string{"q0", "q1", "q2", "q3", "q4", "q5", "q6"}
)

// op is one step of a random stream; both schedulers of a pair get the same ops.
type op func(s *Scheduler)

// gen draws random objects and steps from a seeded source.
type gen struct {
	rnd  *rand.Rand
	t    *testing.T
	next int
	wls  map[types.NamespacedName]*kueue.Workload
	// fair draws fair-sharing weights and never borrowWithinCohort (which
	// Kueue rejects together with fair sharing).
	fair bool
	// oneFlavor gives every ClusterQueue the h100 flavor only, reclaim
	// within its Cohort Any and BestEffortFIFO, and every Cohort no parent:
	// queues whose preemption searches find no victims sleep (see
	// settleUnfit).
	oneFlavor bool
	// partial gives half the workloads two to six pods and a minCount
	// below that (partial admission).
	partial bool
	// afsLQs sends half the workloads to each ClusterQueue's second
	// LocalQueue (named after it, with "-2"), for admission fair sharing.
	afsLQs bool
	// reclaim gives half the workloads two to five pods, and marks some of
	// the pods of pending and admitted workloads reclaimable, their counts
	// only growing while they hold quota (as the API server enforces).
	reclaim bool
	// reclaimed counts the reclaimable updates made.
	reclaimed int
}

func (g *gen) maybe(p float64) bool { return g.rnd.Float64() < p }

func (g *gen) quotaOpts(nominal int) []QuotaOption {
	var opts []QuotaOption
	if g.maybe(0.5) {
		opts = append(opts, Borrowing(fmt.Sprint(g.rnd.IntN(8))))
	}
	if g.maybe(0.4) {
		opts = append(opts, Lending(fmt.Sprint(g.rnd.IntN(nominal+1))))
	}
	return opts
}

func (g *gen) clusterQueue(name string) *kueue.ClusterQueue {
	cq := MakeClusterQueue(name)
	cohort := ""
	if g.maybe(0.85) {
		cohort = propCohorts[g.rnd.IntN(len(propCohorts))]
		cq.Cohort(cohort)
	}
	for _, f := range propFlavors {
		if f == "a100" && (g.maybe(0.3) || g.oneFlavor) {
			continue
		}
		for _, r := range propResources {
			n := g.rnd.IntN(16)
			var opts []QuotaOption
			if cohort != "" {
				opts = g.quotaOpts(n)
			} else if g.maybe(0.4) {
				opts = append(opts, Lending(fmt.Sprint(g.rnd.IntN(n+1))))
			}
			cq.Quota(f, r, fmt.Sprint(n), opts...)
		}
	}
	if g.maybe(0.2) && !g.oneFlavor {
		cq.Strategy(kueue.StrictFIFO)
	}
	if g.maybe(0.2) {
		cq.WhenCanBorrow(kueue.TryNextFlavor)
	}
	// Preemption policies, drawn last so that the draws above keep their
	// meaning across versions of this test.
	reclaims := []kueue.PreemptionPolicy{never, lower, any_}
	withins := []kueue.PreemptionPolicy{never, lower, lowerEq}
	reclaim := reclaims[g.rnd.IntN(3)]
	if g.oneFlavor {
		reclaim = any_
	}
	cq.Preemption(reclaim, withins[g.rnd.IntN(3)])
	if !g.fair && g.maybe(0.2) && cq.Spec.Preemption.ReclaimWithinCohort != never {
		cq.BorrowWithinCohort(nil)
	}
	if g.maybe(0.2) {
		cq.WhenCanPreempt(kueue.MayStopSearch)
	}
	if g.fair && g.maybe(0.3) {
		cq.FairWeight([]string{"0", "0.5", "2"}[g.rnd.IntN(3)])
	}
	return cq.Obj()
}

func (g *gen) cohort(name string) *kueue.Cohort {
	c := MakeCohort(name)
	parent := ""
	if g.maybe(0.6) {
		parent = propCohorts[g.rnd.IntN(len(propCohorts))]
		if g.oneFlavor {
			parent = "" // every Cohort a root: the queues sleep (late.go)
		} else {
			c.Parent(parent)
		}
	}
	if g.maybe(0.5) {
		n := g.rnd.IntN(6)
		var opts []QuotaOption
		if parent != "" {
			opts = g.quotaOpts(n)
		}
		c.Quota("h100", gpu, fmt.Sprint(n), opts...)
	}
	return c.Obj()
}

func (g *gen) workload() *kueue.Workload {
	g.next++
	name := fmt.Sprintf("w%05d", g.next)
	lq := propQueues[g.rnd.IntN(len(propQueues))]
	if g.afsLQs && g.maybe(0.5) {
		lq += "-2"
	}
	if g.maybe(0.03) {
		lq = "missing"
	}
	count := int32(1 + g.rnd.IntN(2))
	var minCount int32
	if g.reclaim && g.maybe(0.5) {
		count = int32(2 + g.rnd.IntN(4))
	}
	if g.partial && g.maybe(0.5) {
		count = int32(2 + g.rnd.IntN(5))
		minCount = int32(1 + g.rnd.IntN(int(count-1)))
	}
	w := MakeWorkload("ns", name).Queue(lq).Created(time.Duration(g.next)*time.Second).Priority(int32(g.rnd.IntN(3))).
		PodSet("main", count).Request(gpu, fmt.Sprint(1+g.rnd.IntN(4))).Request("cpu", fmt.Sprint(g.rnd.IntN(3)))
	if g.maybe(0.05) {
		w.Active(false)
	}
	obj := w.Obj()
	if minCount > 0 {
		obj.Spec.PodSets[0].MinCount = &minCount
	}
	return obj
}

// step draws one operation. Choices that depend on the state are made from the
// first scheduler's state, and recorded in the op so that the twin gets the same.
func (g *gen) step(s *Scheduler) (op, bool) {
	switch x := g.rnd.IntN(100); {
	case x < 40:
		wl := g.workload()
		g.wls[types.NamespacedName{Namespace: wl.Namespace, Name: wl.Name}] = wl
		return func(s *Scheduler) { _ = s.UpsertWorkload(wl.DeepCopy()) }, false
	case x < 60:
		return nil, true // cycle
	case x < 85:
		// Pick among workloads holding quota most of the time, so that quota
		// turns over.
		keys := sortedWorkloadKeys(g.wls)
		if g.maybe(0.8) {
			var held []types.NamespacedName
			for _, k := range keys {
				if v, ok := s.WorkloadState(k); ok && (v.State == StateAdmitted || v.State == StateAssumed) {
					held = append(held, k)
				}
			}
			keys = held
		}
		if len(keys) == 0 {
			return nil, true
		}
		k := keys[g.rnd.IntN(len(keys))]
		v, _ := s.WorkloadState(k)
		switch y := g.rnd.IntN(8); {
		case y == 0:
			delete(g.wls, k)
			return func(s *Scheduler) { s.DeleteWorkload(k) }, false
		case y <= 3:
			delete(g.wls, k)
			return func(s *Scheduler) { s.FinishWorkload(k) }, false
		case y == 4:
			return func(s *Scheduler) { s.EvictWorkload(k) }, false
		case y == 5:
			return func(s *Scheduler) { s.Forget(k) }, false
		default:
			// The driver confirms an assumed admission.
			if v.State != StateAssumed {
				return nil, true
			}
			wl := g.wls[k].DeepCopy()
			wl.Status.Admission = admissionOf(v)
			return func(s *Scheduler) { _ = s.UpsertWorkload(wl.DeepCopy()) }, false
		}
	case x < 93:
		if g.reclaim && g.maybe(0.6) {
			return g.reclaimOp(s)
		}
		cq := g.clusterQueue(propQueues[g.rnd.IntN(len(propQueues))])
		return func(s *Scheduler) { _ = s.UpsertClusterQueue(cq.DeepCopy()) }, false
	case x < 98:
		name := propCohorts[g.rnd.IntN(len(propCohorts))]
		if g.maybe(0.2) {
			return func(s *Scheduler) { s.DeleteCohort(name) }, false
		}
		c := g.cohort(name)
		return func(s *Scheduler) { _ = s.UpsertCohort(c.DeepCopy()) }, false
	default:
		f := propFlavors[g.rnd.IntN(len(propFlavors))]
		if g.maybe(0.5) {
			return func(s *Scheduler) { s.DeleteResourceFlavor(f) }, false
		}
		return func(s *Scheduler) { s.UpsertResourceFlavor(MakeFlavor(f).Obj()) }, false
	}
}

// reclaimOp marks more pods of a workload reclaimable: one holding quota most
// of the time, a pending one otherwise.
func (g *gen) reclaimOp(s *Scheduler) (op, bool) {
	var keys []types.NamespacedName
	wantHeld := g.maybe(0.7)
	for _, k := range sortedWorkloadKeys(g.wls) {
		v, ok := s.WorkloadState(k)
		held := ok && (v.State == StateAdmitted || v.State == StateAssumed)
		if ok && held == wantHeld && g.wls[k].Spec.PodSets[0].Count > 1 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, true
	}
	k := keys[g.rnd.IntN(len(keys))]
	wl := g.wls[k]
	ps := wl.Spec.PodSets[0]
	var had int32
	if len(wl.Status.ReclaimablePods) > 0 {
		had = wl.Status.ReclaimablePods[0].Count
	}
	if had >= ps.Count {
		return nil, true
	}
	wl.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: ps.Name, Count: had + 1 + g.rnd.Int32N(ps.Count-had)}}
	g.reclaimed++
	v, _ := s.WorkloadState(k)
	up := wl.DeepCopy()
	if v.State == StateAdmitted {
		up.Status.Admission = admissionOf(v)
	}
	return func(s *Scheduler) { _ = s.UpsertWorkload(up.DeepCopy()) }, false
}

// settle confirms the evictions in flight, then runs cycles on a and b with
// every eviction confirmed at once and nothing else happening, until one admits and preempts nothing: no
// admission or preemption may go on for ever (decisions run dec-45 found a
// world where one did). holding and evicting are kept as the stream keeps
// them.
func settle(t *testing.T, a, b *Scheduler, holding, evicting map[types.NamespacedName]bool) {
	t.Helper()
	// The driver carries out the evictions it was told of and has not yet:
	// a victim left holding quota for ever is counted free by every search
	// and would keep preemptors evicting for room that never comes.
	keys := make([]types.NamespacedName, 0, len(evicting))
	for k := range evicting {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		a.EvictWorkload(k)
		b.EvictWorkload(k)
		delete(holding, k)
		delete(evicting, k)
	}
	for range 200 {
		da, db := a.Cycle(now), b.Cycle(now)
		if !reflect.DeepEqual(da, db) {
			t.Fatalf("settling: same input, different decisions:\n%v\n%v", da, db)
		}
		if len(admits(da)) == 0 && len(preempts(da)) == 0 {
			return
		}
		for _, d := range admits(da) {
			holding[d.Workload] = true
		}
		for _, p := range preempts(da) {
			for _, v := range p.Victims {
				a.EvictWorkload(v.Workload)
				b.EvictWorkload(v.Workload)
				delete(holding, v.Workload)
				delete(evicting, v.Workload)
			}
		}
	}
	t.Fatalf("still admitting or preempting after 200 cycles with nothing else happening")
}

// checkCounts fails the test unless every pod set of the admission d of wl
// has between its minCount (its count when unset) and its count pods, and
// usage of that many pods; it tells whether some pod set got fewer.
func checkCounts(t *testing.T, step int, d Admit, wl *kueue.Workload) bool {
	t.Helper()
	reduced := false
	for i, ps := range d.PodSets {
		spec := wl.Spec.PodSets[i]
		hi := spec.Count
		for _, rp := range wl.Status.ReclaimablePods {
			if rp.Name == spec.Name {
				hi -= rp.Count
			}
		}
		lo := hi
		if spec.MinCount != nil {
			lo = min(*spec.MinCount, hi)
		}
		if ps.Count < lo || ps.Count > hi {
			t.Fatalf("step %d: %s admitted with %d pods in %s, want %d to %d", step, d.Workload, ps.Count, ps.Name, lo, hi)
		}
		perPod := spec.Template.Spec.Containers[0].Resources.Requests[gpu]
		if want := perPod.Value() * int64(ps.Count); ps.Usage[gpu] != want {
			t.Fatalf("step %d: %s charged %d %s for %d pods, want %d", step, d.Workload, ps.Usage[gpu], gpu, ps.Count, want)
		}
		reduced = reduced || ps.Count < spec.Count
	}
	return reduced
}

func admissionOf(v WorkloadView) *kueue.Admission {
	adm := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(v.ClusterQueue)}
	for _, ps := range v.PodSets {
		a := kueue.PodSetAssignment{Name: kueue.PodSetReference(ps.Name), Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{}}
		for r, f := range ps.Flavors {
			a.Flavors[r] = kueue.ResourceFlavorReference(f)
		}
		c := ps.Count
		a.Count = &c
		adm.PodSetAssignments = append(adm.PodSetAssignments, a)
	}
	return adm
}

func sortedWorkloadKeys(m map[types.NamespacedName]*kueue.Workload) []types.NamespacedName {
	keys := make([]types.NamespacedName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
	return keys
}

// violations measures, per named limit, how far usage is beyond it. Admissions
// must never make any of them grow: with quotas that never changed they are all
// zero; after an edit shrank a quota they may be positive, but a cycle must not
// add to them.
func violations(s *Scheduler) map[string]int64 {
	c := s.Cache()
	out := map[string]int64{}
	for _, name := range c.ClusterQueueNames() {
		q, _ := c.ClusterQueue(name)
		for _, f := range propFlavors {
			for _, r := range propResources {
				fr := resources.FlavorResource{Flavor: f, Resource: r}
				qq, ok := q.Quota(fr)
				if !ok {
					continue
				}
				u := q.Usage(fr)
				ceiling := qq.Nominal
				if q.CohortName() != "" {
					ceiling = resources.Add(qq.Nominal, qq.BorrowingLimit)
				}
				out["cq-ceiling/"+name+"/"+fr.String()] = max(0, u-ceiling)
				// The lender's kept-back share must stay available to itself.
				if qq.LendingLimit != resources.Unlimited && !q.InCycle() {
					keep := max(0, qq.Nominal-qq.LendingLimit-u)
					out["kept-share/"+name+"/"+fr.String()] = max(0, keep-c.Available(q, fr).Available)
				}
			}
		}
	}
	for _, name := range c.CohortNames() {
		co, _ := c.Cohort(name)
		if co.InCycle() {
			continue
		}
		sub, use := co.SubtreeQuota(), co.Usage()
		for _, f := range propFlavors {
			for _, r := range propResources {
				fr := resources.FlavorResource{Flavor: f, Resource: r}
				limit := sub[fr]
				if co.ParentName() != "" {
					limit = resources.Unlimited
					if own, ok := co.OwnQuota(fr); ok && own.BorrowingLimit != resources.Unlimited {
						limit = resources.Add(sub[fr], own.BorrowingLimit)
					}
				}
				out["subtree/"+name+"/"+fr.String()] = max(0, use[fr]-limit)
			}
		}
	}
	return out
}

// brief: "after every cycle no CQ exceeds nominal+borrowingLimit, no subtree uses
// more than its quota allows, no lender drops below its kept-back share
// (nominal−lendingLimit available to itself), no workload admitted twice, and the
// same input twice gives identical decisions. Also check incremental usage equals
// usage recomputed from scratch." And, without fair sharing, that the
// cycles settle: with the evictions in flight carried out and nothing else
// happening, a few cycles admit and preempt nothing more (see settle).
func TestPropertyRandomStreams(t *testing.T) {
	steps := 3000
	if testing.Short() {
		steps = 500
	}
	for seed := uint64(1); seed <= 12; seed++ {
		// Seeds 5, 6, 8 and 10 run with fair sharing; 7 and 8 with preemptors
		// waiting on overlapping targets (the
		// RecomputeAssignmentUponPreemptionTargetsOverlap gate off); 9 and 10
		// with workloads that may be admitted partially, whose admitted
		// counts must lie between their minCount and their count; 11 and 12
		// with reclaimable pods (12 with partial admission too), whose
		// admitted counts leave the reclaimable pods out.
		fair := seed > 4 && seed <= 10 && seed != 7 && seed != 9
		partial := seed > 8 && seed != 11
		reclaim := seed > 10
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			g := &gen{rnd: rand.New(rand.NewPCG(seed, 42)), t: t, wls: map[types.NamespacedName]*kueue.Workload{}, fair: fair, partial: partial, reclaim: reclaim}
			opts := Options{WaitOnOverlappingTargets: seed == 7 || seed == 8}
			if fair {
				opts.FairSharing = &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}
			}
			a, b := New(opts), New(opts)
			setup := []op{}
			for _, f := range propFlavors {
				rf := MakeFlavor(f).Obj()
				setup = append(setup, func(s *Scheduler) { s.UpsertResourceFlavor(rf) })
			}
			for _, name := range propCohorts {
				c := g.cohort(name)
				setup = append(setup, func(s *Scheduler) { _ = s.UpsertCohort(c.DeepCopy()) })
			}
			for _, name := range propQueues {
				cq := g.clusterQueue(name)
				lq := MakeLocalQueue("ns", name, name).Obj()
				setup = append(setup, func(s *Scheduler) { _ = s.UpsertClusterQueue(cq.DeepCopy()); s.UpsertLocalQueue(lq) })
			}
			setup = append(setup, func(s *Scheduler) { s.UpsertNamespace("ns", nil) })
			for _, o := range setup {
				o(a)
				o(b)
			}
			holding := map[types.NamespacedName]bool{}
			// evicting holds victims named by a Preempt and not yet confirmed.
			evicting := map[types.NamespacedName]bool{}
			cycles, admitted, preempted, overlaps, reduced := 0, 0, 0, 0, 0
			for i := range steps {
				o, cycle := g.step(a)
				if !cycle {
					o(a)
					o(b)
					for k := range holding {
						if v, ok := a.WorkloadState(k); !ok || (v.State != StateAdmitted && v.State != StateAssumed) {
							delete(holding, k)
							delete(evicting, k)
						}
					}
				} else {
					before := violations(a)
					da, db := a.Cycle(now), b.Cycle(now)
					cycles++
					if !reflect.DeepEqual(da, db) {
						t.Fatalf("step %d: same input, different decisions:\n%v\n%v", i, da, db)
					}
					for _, d := range da {
						if p, ok := d.(Pending); ok && p.Message == overlappingTargetsMessage {
							overlaps++
						}
					}
					for k, v := range violations(a) {
						if v > before[k] {
							t.Fatalf("step %d: cycle pushed %s over its limit: %d -> %d (decisions %v)", i, k, before[k], v, admits(da))
						}
					}
					for _, p := range preempts(da) {
						for _, v := range p.Victims {
							st, _ := a.WorkloadState(v.Workload)
							if st.State != StateAdmitted && st.State != StateAssumed {
								t.Fatalf("step %d: victim %s of %s holds no quota", i, v.Workload, p.Preemptor)
							}
							if evicting[v.Workload] {
								t.Fatalf("step %d: %s preempted again while its eviction is in flight", i, v.Workload)
							}
							evicting[v.Workload] = true
							preempted++
						}
						// The driver confirms most evictions at once, some later
						// (the evicting map keeps them) and some never (they finish).
						if g.maybe(0.7) {
							for _, v := range p.Victims {
								a.EvictWorkload(v.Workload)
								b.EvictWorkload(v.Workload)
								delete(holding, v.Workload)
								delete(evicting, v.Workload)
							}
						}
					}
					for _, d := range admits(da) {
						if holding[d.Workload] {
							t.Fatalf("step %d: %s admitted twice", i, d.Workload)
						}
						holding[d.Workload] = true
						admitted++
						if checkCounts(t, i, d, g.wls[d.Workload]) {
							reduced++
						}
					}
				}
				if err := a.Cache().Verify(); err != nil {
					t.Fatalf("step %d: incremental state differs from recomputation: %v", i, err)
				}
				if !fair && i%250 < 10 {
					settle(t, a, b, holding, evicting)
				}
			}
			// Under fair sharing some worlds never settle: a queue's
			// fair-sharing preemption and another's reclamation evict each
			// other's workloads in turn, as in Kueue (decisions runs dec-42
			// and dec-45, where Kueue evicted one workload hundreds of times
			// in one event). Not settled; see docs/kueue-decisions.md.
			if !fair {
				settle(t, a, b, holding, evicting)
			}
			if cycles == 0 || admitted < steps/25 {
				t.Fatalf("the stream must exercise admission: %d cycles, %d admissions", cycles, admitted)
			}
			if preempted == 0 {
				t.Fatalf("the stream must exercise preemption")
			}
			if opts.WaitOnOverlappingTargets && overlaps == 0 {
				t.Fatalf("the stream must make a preemptor wait on overlapping targets")
			}
			if reclaim && g.reclaimed == 0 {
				t.Fatalf("the stream must mark some pods reclaimable")
			}
			if partial && reduced == 0 {
				t.Fatalf("the stream must admit some workload with fewer pods than it asks for")
			}
			t.Logf("%d steps, %d cycles, %d admissions (%d with fewer pods), %d preemptions, %d waits on overlapping targets", steps, cycles, admitted, reduced, preempted, overlaps)
		})
	}
}
