package scheduler

import (
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/workload"
)

// Options are the engine's feature gates and policies, resolved once by the
// driver; nothing in the hot path reads a global gate.
type Options struct {
	// DynamicQuotaOrchestration: when true and a ClusterQueue or Cohort has
	// status.effectiveQuotas != nil, its effectiveQuotas.resourceGroups replace
	// spec.resourceGroups (an empty list is used as is, with no fallback).
	DynamicQuotaOrchestration bool
	// FairSharing turns fair sharing on (the Configuration's fairSharing block,
	// already validated): admission orders a cohort's queues by share, lowest
	// first, and preemption uses the strategies in the order given. nil keeps
	// classic, first-come first-served borrowing.
	FairSharing *config.FairSharing
	// AdmissionFairSharing tunes admission fair sharing (the Configuration's
	// admissionFairSharing block, already validated). ClusterQueues with
	// spec.admissionScope.admissionMode UsageBasedAdmissionFairSharing use it;
	// nil leaves them in plain queue order.
	AdmissionFairSharing *config.AdmissionFairSharing
	// DisableIncrementalCycle makes every cycle assign flavors to every pending
	// workload again instead of reusing results the cache cannot have changed
	// (see incremental.go). Decisions are the same either way; it exists for
	// tests that prove so and for benchmarks.
	DisableIncrementalCycle bool
	// QuietCycles makes Cycle return Pending decisions only in the first
	// cycle after WakeAll. The other cycles still admit, preempt and evict
	// exactly as they would, but need not work out why a workload does not
	// fit, which on a loaded cluster is most of a cycle's time. For a driver
	// that reads reasons only when it asks for them, as the simulator does at
	// the end of a run.
	QuietCycles bool
	// WaitOnOverlappingTargets is Kueue's behaviour with its
	// RecomputeAssignmentUponPreemptionTargetsOverlap gate off (and Kueue's
	// before v0.20, where the gate did not exist): a preemption search lists
	// the workloads already being evicted, first, and a preemptor whose
	// victims would include one of them evicts nothing and waits for that
	// eviction to finish, searching again once it has. Off (the gate's
	// default), victims in flight count as gone and their room as promised
	// to their preemptors, so a second preemptor evicts victims of its own at
	// once (Kueue's recomputation upon overlap).
	WaitOnOverlappingTargets bool
	// WaitForPodsReady is Kueue's all-or-nothing start-up (the
	// Configuration's waitForPodsReady block); nil turns it off, as the
	// simulator does, whose pods are ready at admission.
	WaitForPodsReady *WaitForPodsReady
	// NoPartialAdmission is Kueue's PartialAdmission gate turned off: a pod
	// set's minCount is ignored and every workload is admitted with all its
	// pods or not at all. Off (the gate's default), see partial.go.
	NoPartialAdmission bool
	// NoReclaimablePods is Kueue's ReclaimablePods gate turned off:
	// status.reclaimablePods is ignored, and a workload counts all its pods
	// until it finishes. Off (the gate's default), see
	// engine/workload/reclaimable.go.
	NoReclaimablePods bool
	// NoPrioritySortingWithinCohort is Kueue's PrioritySortingWithinCohort
	// gate turned off: the heads of a cohort tree's queues (and fair
	// sharing's tournament) are ordered by borrowing and arrival only, not
	// by priority, and a workload preempted to reclaim what it borrowed
	// arrives again just after that preemption. Within a ClusterQueue
	// priority still orders its workloads. Off (the gate's default).
	NoPrioritySortingWithinCohort bool
	// NoEquivalenceHashing is Kueue's SchedulingEquivalenceHashing gate
	// turned off (and Kueue v0.17's default): only the workload whose
	// evaluation failed is parked, not the workloads of its queue equal to
	// it. On (the gate's default since Kueue v0.18), see equivalence.go.
	NoEquivalenceHashing bool
	// PriorityBoost is Kueue's PriorityBoost gate (alpha, off by default):
	// a Workload's kueue.x-k8s.io/priority-boost annotation is added to its
	// priority wherever priority decides (workload.Info.EffectivePriority).
	PriorityBoost bool
	// Resources decides what pod sets' requests count as (the
	// Configuration's resources block: excluded prefixes and
	// transformations); nil counts them as requested.
	Resources *workload.ResourceRules
}

// WaitForPodsReady: an admitted workload whose PodsReady condition is not
// True within Timeout of its admission (or within RecoveryTimeout of losing
// it) is evicted with reason PodsReadyTimeout and may be admitted again only
// after a back-off of BackoffBase × 2^(n-1), at most BackoffMax, n being its
// count of such evictions; past BackoffLimitCount it is deactivated instead.
type WaitForPodsReady struct {
	Timeout time.Duration
	// RecoveryTimeout is zero for no limit.
	RecoveryTimeout         time.Duration
	BackoffBase, BackoffMax time.Duration
	// BackoffLimitCount is nil for no limit.
	BackoffLimitCount *int32
	// OrderByEviction orders a workload evicted for a PodsReady timeout by
	// the eviction's time rather than its creation (requeuingStrategy
	// timestamp Eviction, Kueue's default).
	OrderByEviction bool
	// BlockAdmission admits nothing while a workload holding quota does not
	// have PodsReady=True (Kueue's waitForPodsReady.blockAdmission; see
	// blockadmission.go).
	BlockAdmission bool
}

// Scheduler holds the engine's state. It is not safe for concurrent use.
type Scheduler struct {
	opts  Options
	cache *quota.Cache

	namespaces map[string]labels.Set
	// env is the namespaces' LimitRanges and the RuntimeClasses
	// (environment.go).
	env         environments
	localQueues map[types.NamespacedName]*localQueue
	// lqsByCQ indexes LocalQueues by the ClusterQueue they point to.
	lqsByCQ map[string]map[types.NamespacedName]*localQueue
	wpc     map[string]int32
	pc      map[string]int32

	workloads map[types.NamespacedName]*record
	// pendingByLQ holds pending workloads by LocalQueue key (namespace,
	// queueName), whether or not that LocalQueue exists.
	pendingByLQ map[types.NamespacedName]map[types.NamespacedName]*record
	// inactiveByLQ counts the pendingByLQ workloads with spec.active=false:
	// Kueue keeps them out of its queues, so they are no pending workloads
	// of a LocalQueue's or ClusterQueue's status (views.go), though the
	// engine still says why they wait.
	inactiveByLQ map[types.NamespacedName]int
	// admittedByCQ and admittedByLQ index workloads that hold quota (admitted or
	// assumed); deactivated holds those of them with spec.active=false.
	admittedByCQ map[string]map[types.NamespacedName]*record
	admittedByLQ map[types.NamespacedName]map[types.NamespacedName]*record
	// admittedSorted caches admittedByCQ's lists by priority (byPriority).
	admittedSorted map[string][]*record
	// admittedCands caches preemption candidates per ClusterQueue within a
	// cycle (source.Admitted).
	admittedCands map[string]candidateList
	deactivated   map[types.NamespacedName]*record
	// timed holds the workloads holding quota that have a maximum
	// execution time (see maxexec.go); notReady those whose pods are not
	// ready while waitForPodsReady is on, and backoff the pending ones with
	// a requeueAt not yet reached by a cycle (see podsready.go).
	timed    map[types.NamespacedName]*record
	notReady map[types.NamespacedName]*record
	backoff  map[types.NamespacedName]*record
	// lists holds the ordered pending workloads per ClusterQueue name.
	lists map[string]*pendingList
	gen   uint64

	// strategies is Options.FairSharing resolved; nil without fair sharing.
	strategies []fairsharing.Strategy
	// preemptionConfigs holds the compiled PreemptionConfigs by name, which
	// ClusterQueues reference through the kueue.x-k8s.io/preemption-config-name
	// annotation (see preemptionconfig.go); nil until the first upsert.
	preemptionConfigs map[string]*preemption.Rules
	// preempting holds, per preemptor, the victims it asked to evict and the
	// assignment it waits to get; victimOf maps each such victim back.
	preempting map[types.NamespacedName]*inflight
	victimOf   map[types.NamespacedName]types.NamespacedName
	// orphans are victims whose preemption was dropped (its preemptor was
	// admitted, removed, or can no longer fit) and that still hold quota:
	// the driver evicts them all the same.
	orphans []types.NamespacedName
	// listEvicting is set while a search under WaitOnOverlappingTargets
	// runs: it sees the victims in flight still holding their quota, and
	// the candidate lists include them (source.Admitted).
	listEvicting bool
	// phantoms are the charges made for waiting preemptors during a cycle.
	phantoms []types.NamespacedName
	// ready lists, per ClusterQueue, the preemptors whose victims have all let
	// go of their quota since the last cycle; the cycle offers them that room
	// before anyone else (see admitReady) and then forgets them.
	ready map[string][]types.NamespacedName
	// readyFor holds the assignment each ready preemptor preempted for.
	readyFor map[types.NamespacedName]*flavorassigner.Assignment
	// readyAdmits lists the ready preemptors admitted at the start of the
	// tree being scheduled (see nominatedFit).
	readyAdmits []types.NamespacedName
	// cycleCharges lists what the running cycle has charged so far: its
	// admissions and its new preemptors' reservations, which the snapshot
	// Kueue's cycle nominates against does not have (see atCycleStart).
	cycleCharges []cycleCharge
	// now is the time of the running cycle; cycle counts cycles.
	now     time.Time
	cycle   uint64
	inCycle bool
	// nodeVer counts usage changes below each fair-sharing node, to keep
	// cached shares of heads exact.
	nodeVer map[quota.FairNode]uint64
	nodeIDs map[quota.FairNode]int
	fairBuf fairBuffers
	// epoch counts usage changes in cycles (admissions, reservations), and
	// failedPreemption remembers, per ClusterQueue, the searches of the
	// current epoch that found nothing (or were hopeless), so that equal
	// workloads behind them do not search again.
	epoch            uint64
	failedPreemption map[string][]failedSearch
	// holdMoves counts the moves of epoch made by holds, which nominations
	// do not see (see viewEpoch).
	holdMoves uint64
	// strictHolds numbers the holds of StrictFIFO heads (see holder.seq).
	strictHolds uint64
	// heldOnce is set by a cycle in which a BestEffortFIFO workload held
	// quota, which it does for that cycle only (see WantsCycle).
	heldOnce bool
	// unfitOnceEvicted remembers, per ClusterQueue, assignments that would
	// not fit even once the evictions in flight complete (see deferFit).
	unfitOnceEvicted map[string][]unfitOnceEvicted
	// afs is the admission fair sharing state; nil when off.
	afs *afsState
	// inc lets a cycle reuse the previous cycle's flavor assignments.
	inc incremental
	// sleep tracks the queues a cycle may skip (see sleep.go).
	sleep sleepState
	// structVer counts changes of structure (wakeAll), and avail is the
	// availability table of the queue being walked (see prefilter.go).
	structVer uint64
	avail     availTable
	// structChanges counts the changes of structure alone (structVer also
	// moves on WakeAll).
	structChanges uint64
	// standing lists draining and unroutable queues (see standing.go).
	standing standing
	// shapes shares answers between workloads of one shape, per queue (see
	// shapes.go), for the structure version shapesStructVer.
	shapes          map[string]*shapeCache
	shapesStructVer uint64
	// explainNext is set by WakeAll; quiet is true in a cycle that returns
	// no Pending decisions (Options.QuietCycles).
	explainNext bool
	// lastDecisions is how many decisions the last cycle made (see Cycle).
	lastDecisions int
	quiet         bool
	// lost counts the heads lostForGood spared an evaluation, for tests, and
	// hopelessMemo remembers hopelessThroughout's answers; oracleRuns counts
	// the flavor assigner's preemption searches, for tests.
	lost         uint64
	oracleRuns   uint64
	hopelessMemo map[string]hopelessAnswer
	// runs and heads are the cycle's walks and candidates (see slab.go).
	runs  slab[run]
	heads slab[head]
	// victimsVer counts changes of victimOf, for rootBound.
	victimsVer uint64
	// dfr is the deferral state of the tree being scheduled, nil when its
	// walks cannot be deferred, and dfrBuf its reused storage; deferrals,
	// rewalks and revivals count what deferred.go did, for tests.
	dfr    *deferral
	dfrBuf deferral
	// walk is the tree being scheduled, for lateWalks; lateWakes counts the
	// sleeping queues a preemption woke in its cycle, for tests.
	walk      treeWalk
	lateWakes uint64
	// trace is what the last settleUnfit did, repeatNeeds the buffer
	// rememberSettle compares a run's needs in; repeats counts the
	// workloads settled by a memo and repeatsAhead those of them settled
	// ahead of the heap, for tests (repeat.go).
	trace                 settleTrace
	repeatNeeds           []need
	repeats, repeatsAhead uint64
	// ahead is aheadBound's last answer.
	ahead aheadMemo
	// probed counts the sleeping queues whose arrivals kept them asleep,
	// for tests.
	probed                       uint64
	deferrals, rewalks, revivals uint64
	// holds are the cycle's holds of workloads waiting for preemption that
	// found no victims, and releases counts, per tree, the releases of quota
	// that let a BestEffortFIFO workload hold again (see hold.go).
	// seen is what the engine last read of each configuring object (see
	// seen.go).
	seen     map[seenKey]any
	holds    []heldCharge
	releases map[treeKey]*releaseCount
	// treeAdmits keeps, per tree, the last cycles that admitted, and
	// tentative the parkings of the tree being walked that its admissions
	// may undo (park.go).
	treeAdmits map[treeKey]*admitCycles
	tentative  []tentativePark
	// classes indexes the workloads parked for good by class
	// (equivalence.go).
	classes classIndex
	// releaseVer counts every release (noteRelease), and epochs caches
	// holdEpoch's answers between them.
	releaseVer uint64
	epochs     epochCache
	// lastWalkStruct is structChanges as the previous cycle's walks saw
	// it, and walkStruct as this cycle's do (see park.go).
	lastWalkStruct, walkStruct uint64
	// liftedHolds and holdsLifted are releasingHolds' own: the holds it
	// set aside (indexes into holds), and that it has.
	liftedHolds []int
	holdsLifted bool
	// deferredFits are the cycle's reservations of workloads that fit once
	// the evictions in flight complete (see deferFit); unlike holds, their
	// own queue sees them.
	deferredFits []heldCharge
	// skips counts, per ClusterQueue, the workloads of the last cycle whose
	// preemption was skipped because earlier heads of the cycle needed the
	// same room (see PreemptionSkips).
	skips map[string]int
	// candVer counts changes of what a preemption search may take beyond the
	// cache's usage (the admitted set, victims in flight, and the workloads
	// admitted by the last cycle becoming candidates): a remembered flavor
	// assignment that consulted the preemption oracle holds only while it is
	// unchanged. admittedInCycle tells that the running cycle admitted.
	candVer         uint64
	admittedInCycle bool
	// unready holds, under BlockAdmission, every workload holding quota
	// whose PodsReady is not True; blocked tells that a cycle stopped for
	// one, stopCycle that the running cycle did (see blockadmission.go).
	unready            map[types.NamespacedName]*record
	blocked, stopCycle bool
}

type localQueue struct {
	key  types.NamespacedName
	cq   string
	stop kueue.StopPolicy
	// weight is spec.fairSharing.weight, for admission fair sharing, as
	// Kueue reads it (a float, 1 when unset).
	weight float64
}

func (lq *localQueue) stopped() bool {
	return lq.stop == kueue.Hold || lq.stop == kueue.HoldAndDrain
}

// State is where a workload is in its life.
type State string

const (
	StatePending State = "Pending"
	// StateAssumed: admitted by a Cycle, not yet confirmed by an UpsertWorkload
	// that carries status.admission.
	StateAssumed  State = "Assumed"
	StateAdmitted State = "Admitted"
	StateFinished State = "Finished"
)

type record struct {
	info *workload.Info
	lq   types.NamespacedName
	// priority is the effective priority (with the PriorityBoost gate, the
	// priority-boost annotation added), which orders queues and preemption;
	// basePriority the one without the boost, which a PreemptionConfig's
	// rule compares in its Base mode.
	priority, basePriority int32
	state                  State
	// gen identifies the record's current entry in a pending list; entries with
	// another gen are stale.
	gen       uint64
	admission *workload.Admission
	borrowing bool
	// admittedAt is when it got quota: the cycle's now for assumed admissions,
	// else the QuotaReserved condition's time.
	admittedAt time.Time
	// admittedCycle is the cycle that assumed it (0 for upserted admissions):
	// a workload is never preempted in the cycle that admitted it.
	admittedCycle uint64
	// cand is the record as a preemption candidate, built on first use while
	// it holds quota; attachAdmitted, detach and a priority change drop it.
	cand *preemption.Candidate
	// memo is its last flavor assignment that did not fit, while pending.
	memo *assignMemo
	// shape is shapeOf's key, computed for shapeFor.
	shape    string
	shapeFor *workload.Info
	// heldAt is the release epoch in which it last held quota (hold.go).
	heldAt holdMark
	// parked is the release epoch at which its evaluation in cycle
	// parkedCycle parked it (park.go).
	parked      holdMark
	parkedCycle uint64
	// queuedCycle is the cycle count when it was last queued.
	queuedCycle uint64
	// turn is its place among the workloads its queue's walk evaluated in
	// cycle turnCycle (see noteTurn).
	turn      int
	turnCycle uint64
	// keptCycle is the cycle whose walk found it parked from an earlier
	// one, or by its class: in Kueue's inadmissible list, no head of that
	// cycle (noteTurn). tentativeCycle is the cycle in which its parking is
	// tentative (see parkIfDue).
	keptCycle, tentativeCycle uint64
	// orderAt is the time it is ordered by in its queue: its creation, or
	// its eviction for a PodsReady timeout (WaitForPodsReady.OrderByEviction),
	// or, with NoPrioritySortingWithinCohort, just after its preemption to
	// reclaim what it borrowed.
	orderAt time.Time
	// headPriority is the priority heads of different queues are ordered by
	// (compareHeadOrder): its priority, or 0 for all with
	// NoPrioritySortingWithinCohort.
	headPriority int32
	// uidKey is the UID's first eight bytes, big-endian and zero-padded:
	// where two keys differ they order as the UIDs do, which spares
	// compareQueueOrder most string comparisons (creation times have one
	// second's resolution, so ties on them are common).
	uidKey uint64
	// excluded is set when filter turns the workload away whatever its queue
	// (inactive or invalid), so that the walk need not read its info.
	excluded bool
	// partial is info.CanBePartiallyAdmitted(), which settleUnfit asks of
	// every unfit workload it walks: reading it through info, far from the
	// record in memory, was a twelfth of the manager's CPU under Kueue's
	// harness, whose workloads have no minCount.
	partial bool
	// name is info.Key.Name, for pendingKey, which the walk builds for
	// every unfit workload: kept here for the reason partial is.
	name string
	// lastPending is the Pending decision last emitted for it, boxed: a
	// pending workload is usually settled with the same decision cycle after
	// cycle, and boxing a fresh one for each was most of what a cycle
	// allocated under Kueue's harness (see pendingDecision).
	lastPending Decision
	// lastP is lastPending's value, kept in the record (see pendingDecision).
	lastP Pending
	// orc is the preemption oracle its flavor assignments consult
	// (assignOptions).
	orc oracle
	// inflight is its entry in Scheduler.preempting while it waits for its
	// victims: the walk asks every pending workload (waiting), and a map
	// lookup by its key read two strings far from the record each time.
	inflight *inflight
}

// pendingDecision returns p as a Decision, reusing the one last emitted for r
// when it is equal: a boxed value is never changed, so sharing it is safe.
//
// The comparison reads the copy kept in the record, not the box: under
// Kueue's harness, loading each record's box (allocated cycles ago, far from
// the record) and comparing its strings byte by byte was a third of a
// cycle's CPU. The copy takes p's strings, equal to the box's, so that next
// cycle the strings the assigner hands over again compare by pointer.
func (r *record) pendingDecision(p Pending) Decision {
	if r.lastPending != nil && r.lastP == p {
		r.lastP = p
		return r.lastPending
	}
	r.lastP = p
	r.lastPending = p
	return r.lastPending
}

// pendingKey is r's key for its Pending decisions: r.info.Key, with the
// namespace string of its LocalQueue's shared key (equal, since a workload's
// LocalQueue is in its namespace). Drivers tally a cycle's Pending decisions
// per LocalQueue; strings that share their bytes compare without reading
// them, where each workload's own namespace string sits in memory far from
// the rest of the walk (under Kueue's harness comparing them was half of
// the loop's tally).
func (r *record) pendingKey() types.NamespacedName {
	return types.NamespacedName{Namespace: r.lq.Namespace, Name: r.name}
}

// setInfo points r at info, keeping what is derived from it in step.
func (r *record) setInfo(info *workload.Info) {
	r.info = info
	r.orderAt = info.Created
	// A requeueAt is checked against the cycle's time by filter.
	r.excluded = !info.Active || info.Invalid != "" || !info.RequeueAt.IsZero()
	r.partial = info.CanBePartiallyAdmitted()
	r.name = info.Key.Name
	r.uidKey = 0
	for i := 0; i < 8; i++ {
		r.uidKey <<= 8
		if i < len(info.UID) {
			r.uidKey |= uint64(info.UID[i])
		}
	}
}

func (r *record) holdsQuota() bool { return r.state == StateAssumed || r.state == StateAdmitted }

// New returns an empty scheduler.
func New(opts Options) *Scheduler {
	return &Scheduler{
		opts:           opts,
		cache:          quota.New(quota.Options{DynamicQuotaOrchestration: opts.DynamicQuotaOrchestration}),
		namespaces:     map[string]labels.Set{},
		localQueues:    map[types.NamespacedName]*localQueue{},
		lqsByCQ:        map[string]map[types.NamespacedName]*localQueue{},
		wpc:            map[string]int32{},
		pc:             map[string]int32{},
		workloads:      map[types.NamespacedName]*record{},
		pendingByLQ:    map[types.NamespacedName]map[types.NamespacedName]*record{},
		inactiveByLQ:   map[types.NamespacedName]int{},
		admittedByCQ:   map[string]map[types.NamespacedName]*record{},
		admittedSorted: map[string][]*record{},
		admittedCands:  map[string]candidateList{},
		hopelessMemo:   map[string]hopelessAnswer{},
		admittedByLQ:   map[types.NamespacedName]map[types.NamespacedName]*record{},
		deactivated:    map[types.NamespacedName]*record{},
		timed:          map[types.NamespacedName]*record{},
		notReady:       map[types.NamespacedName]*record{},
		unready:        map[types.NamespacedName]*record{},
		backoff:        map[types.NamespacedName]*record{},
		lists:          map[string]*pendingList{},
		preempting:     map[types.NamespacedName]*inflight{},
		ready:          map[string][]types.NamespacedName{},
		readyFor:       map[types.NamespacedName]*flavorassigner.Assignment{},
		nodeVer:        map[quota.FairNode]uint64{},
		nodeIDs:        map[quota.FairNode]int{},

		failedPreemption: map[string][]failedSearch{},
		unfitOnceEvicted: map[string][]unfitOnceEvicted{},
		victimOf:         map[types.NamespacedName]types.NamespacedName{},
		strategies:       strategiesOf(opts.FairSharing),
		afs:              newAFS(opts.AdmissionFairSharing),
		sleep:            newSleepState(),
	}
}

// strategiesOf resolves the validated strategy list; an unknown name (which
// validation rejects) is skipped rather than failing New.
func strategiesOf(fs *config.FairSharing) []fairsharing.Strategy {
	if fs == nil {
		return nil
	}
	var out []fairsharing.Strategy
	for _, n := range fs.PreemptionStrategies {
		if st, err := fairsharing.Strategies([]config.PreemptionStrategy{n}); err == nil {
			out = append(out, st...)
		}
	}
	if len(out) == 0 {
		out = []fairsharing.Strategy{fairsharing.LessThanOrEqualToFinalShare, fairsharing.LessThanInitialShare}
	}
	return out
}

// Cache exposes the quota cache read-only for packages built on the scheduler
// (preemption, fair sharing, views). Do not mutate it.
func (s *Scheduler) Cache() *quota.Cache { return s.cache }
