package elasticquota

import (
	"fmt"
	"maps"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/resources"
)

// Reasons of a Pending decision. QueueNotFoundReason (mapping.go),
// ReasonWaitForPodsRunning (waitforpods.go) and ReasonPreempting
// (preemption.go) are the others.
const (
	// ReasonNoQuotaLabel: the unit carries no quota label (or an empty one), so
	// it resolves to no quota and no queue. Koord-Queue records nothing for it;
	// the reason exists so that a driver such as the simulator can show why.
	ReasonNoQuotaLabel = "NoQuotaLabel"
	// ReasonAddQueueFail: the quota asks for a queue policy the queue factory
	// does not register (Round), so its Queue never becomes a scheduling queue.
	ReasonAddQueueFail = "AddQueueFail"
	// ReasonFailedScheduling: the usage check refused the unit; the message is
	// CheckUsage's.
	ReasonFailedScheduling = "FailedScheduling"
	// ReasonQueueBlocked: a unit ahead of this one in a Block queue (or in the
	// high-priority part of an Intelligent queue) does not fit.
	ReasonQueueBlocked = "QueueBlocked"
	// ReasonBeyondMaxDepth: the unit is deeper in its queue than the queue's
	// koord-queue/max-depth, so it is not looked at.
	ReasonBeyondMaxDepth = "BeyondMaxDepth"
)

// Decision is one outcome of a Cycle: Admit, Pending or Preempt (preemption.go).
type Decision interface {
	UnitKey() types.NamespacedName
	isDecision()
}

// Admit: the unit is dequeued and its request is charged to Quota and every
// ancestor (already done by the cycle, through Reserve).
type Admit struct {
	Unit    types.NamespacedName
	Quota   string
	Request resources.Requests
}

// Pending: the unit stays in the queue, for Reason.
type Pending struct {
	Unit types.NamespacedName
	// Quota is the quota the unit's label names; "" when it carries none.
	Quota   string
	Reason  string
	Message string
	// Silent is true when Koord-Queue records no event at all for the unit
	// (ReasonNoQuotaLabel).
	Silent bool
}

func (a Admit) UnitKey() types.NamespacedName   { return a.Unit }
func (p Pending) UnitKey() types.NamespacedName { return p.Unit }
func (Admit) isDecision()                       {}
func (Pending) isDecision()                     {}

// Scheduler admits QueueUnits against ElasticQuotas, the way Koord-Queue's
// ElasticQuota plugin and its queue policies do, as a pure state machine: units
// and quotas go in, Cycle returns decisions, Finish and Delete release quota. It
// keeps no clock and starts no goroutine; it is not safe for concurrent use.
type Scheduler struct {
	cache    *Cache
	rate     OversellRate
	quotas   map[string]*koordv1alpha1.ElasticQuota
	configs  map[string]queueConfig
	pending  map[types.NamespacedName]*QueueUnit
	admitted map[types.NamespacedName]*admittedUnit
	// now is the driver's time (SetNow): admissions are stamped with it and
	// the reclaim protection is measured from them.
	now time.Time
	// protect is the reclaim protection after an admission
	// (SetReclaimProtectTime).
	protect time.Duration
	// rounds are the preemption rounds in flight, by queue (preemption.go).
	rounds map[string]*round
}

type admittedUnit struct {
	unit  *QueueUnit
	quota string
	// at is when the unit was admitted: Koord-Queue's status.lastAllocateTime,
	// from which the reclaim protection runs.
	at time.Time
	// replicas is how many replicas the unit holds (fewer than it asked for
	// after a partial reclaim); running is how many of them run (SetRunning).
	replicas, running int64
	// reclaiming is how many replicas a preemption marked and the driver has
	// not reclaimed yet (Koord-Queue's reclaimState); 0 when none.
	reclaiming int64
	// charged is what the unit charges to its quota chain now.
	charged resources.Requests
}

// newAdmitted is the record of a unit admitted to quota at the time at.
func newAdmitted(u *QueueUnit, quota string, at time.Time) *admittedUnit {
	a := &admittedUnit{unit: u, quota: quota, at: at, replicas: u.replicas(), charged: u.Request}
	if u.RunsAtAdmission {
		a.running = a.replicas
	}
	return a
}

// NewScheduler returns an empty scheduler that scales every max by rate
// (Koord-Queue's --oversellrate).
func NewScheduler(rate OversellRate) *Scheduler {
	return &Scheduler{
		cache:    NewCache(),
		rate:     rate,
		quotas:   map[string]*koordv1alpha1.ElasticQuota{},
		configs:  map[string]queueConfig{},
		pending:  map[types.NamespacedName]*QueueUnit{},
		admitted: map[types.NamespacedName]*admittedUnit{},
		rounds:   map[string]*round{},
	}
}

// SetNow sets the time of the next cycles; the scheduler keeps no clock. A
// driver calls it before every Cycle: admissions are stamped with it, and a
// unit admitted less than the reclaim protection before it is not reclaimed
// (SetReclaimProtectTime). A driver that never calls it, and sets no
// protection, gets the same decisions.
func (s *Scheduler) SetNow(now time.Time) { s.now = now }

// Cache is the quota cache behind the scheduler, for reading usage.
func (s *Scheduler) Cache() *Cache { return s.cache }

// UpsertQuota adds or replaces an ElasticQuota, and with it its queue (004, Step
// 2: "Update: The Queue is reconciled: policy, parent label and synchronised
// annotations are updated"). Usage already charged to it is kept: admitted
// units are never evicted by a quota change.
func (s *Scheduler) UpsertQuota(eq *koordv1alpha1.ElasticQuota) error {
	if err := s.cache.Upsert(eq); err != nil {
		return err
	}
	s.quotas[eq.Name] = eq.DeepCopy()
	s.configs[eq.Name] = queueConfigOf(eq)
	return nil
}

// DeleteQuota removes a quota and its queue. 004: "Units that are still enqueued
// lose their queue and are reported through QueueNotFound events until a
// matching quota exists again."
func (s *Scheduler) DeleteQuota(name string) {
	s.cache.Delete(name)
	delete(s.quotas, name)
	delete(s.configs, name)
}

// AddUnit enqueues a unit. A key already known (pending or admitted) is an error:
// a driver that replaces a unit deletes the old one first.
func (s *Scheduler) AddUnit(u QueueUnit) error {
	key := u.Key()
	if _, ok := s.pending[key]; ok {
		return fmt.Errorf("queueUnit %s is already queued", key)
	}
	if _, ok := s.admitted[key]; ok {
		return fmt.Errorf("queueUnit %s is already admitted", key)
	}
	u.Labels = maps.Clone(u.Labels)
	u.Request = u.Request.Clone()
	s.pending[key] = &u
	return nil
}

// RestoreAdmitted records a unit that was admitted before this scheduler
// existed (a manager that restarts, or takes over as leader, rebuilds usage from
// every QueueUnit with admissions before it admits anything). The unit is
// charged to quota and every ancestor without a usage check: it holds that
// quota already, whatever the quotas say now. A unit whose quota no longer
// exists is recorded as admitted and charged nowhere: it is never admitted
// twice, and it runs on as Koord-Queue lets a unit of a deleted quota run.
//
// The unit's admission time is u.AllocatedAt (its status.lastAllocateTime),
// and none of its replicas count as running (it is assumed, as Koord-Queue's
// AddQueueUnitInfo assumes a unit that is reserved and not all running) until
// SetRunning says otherwise, unless u.RunsAtAdmission.
func (s *Scheduler) RestoreAdmitted(u QueueUnit, quota string) error {
	key := u.Key()
	if _, ok := s.pending[key]; ok {
		return fmt.Errorf("queueUnit %s is already queued", key)
	}
	if _, ok := s.admitted[key]; ok {
		return fmt.Errorf("queueUnit %s is already admitted", key)
	}
	u.Labels = maps.Clone(u.Labels)
	u.Request = u.Request.Clone()
	if _, ok := s.quotas[quota]; ok {
		if err := s.cache.Reserve(reservationUID(key), quota, u.Request); err != nil {
			return fmt.Errorf("restoring admitted queueUnit %s: %w", key, err)
		}
	}
	s.admitted[key] = newAdmitted(&u, quota, u.AllocatedAt)
	return nil
}

// FinishUnit ends an admitted unit: its quota is released on every level it was
// charged to, and the unit is forgotten.
func (s *Scheduler) FinishUnit(key types.NamespacedName) error {
	if _, ok := s.admitted[key]; !ok {
		return fmt.Errorf("queueUnit %s is not admitted", key)
	}
	s.release(key)
	return nil
}

// DeleteUnit forgets a unit, pending or admitted, releasing its quota if it held
// any. It reports whether the unit was known.
func (s *Scheduler) DeleteUnit(key types.NamespacedName) bool {
	if _, ok := s.pending[key]; ok {
		delete(s.pending, key)
		return true
	}
	if _, ok := s.admitted[key]; ok {
		s.release(key)
		return true
	}
	return false
}

func (s *Scheduler) release(key types.NamespacedName) {
	s.cache.Unreserve(reservationUID(key))
	s.endVictim(key)
	delete(s.admitted, key)
}

// PendingCount and AdmittedCount count the units in each state.
func (s *Scheduler) PendingCount() int  { return len(s.pending) }
func (s *Scheduler) AdmittedCount() int { return len(s.admitted) }

// AdmittedQuota returns the quota an admitted unit is charged to.
func (s *Scheduler) AdmittedQuota(key types.NamespacedName) (string, bool) {
	a, ok := s.admitted[key]
	return a.quota, ok
}

func reservationUID(key types.NamespacedName) types.UID { return types.UID(key.String()) }

// QuotaStatus is one quota as a report shows it.
type QuotaStatus struct {
	Name string
	// Parent is the quota's parent (koordinator-root-quota by default).
	Parent   string
	Min, Max corev1.ResourceList
	// Used is what admitted units charge to the quota and its descendants.
	Used corev1.ResourceList
}

// Quotas lists every quota, sorted by name.
func (s *Scheduler) Quotas() []QuotaStatus {
	out := make([]QuotaStatus, 0, len(s.quotas))
	for _, name := range s.cache.Names() {
		eq := s.quotas[name]
		out = append(out, QuotaStatus{
			Name: name, Parent: ParentName(eq),
			Min: eq.Spec.Min.DeepCopy(), Max: eq.Spec.Max.DeepCopy(), Used: s.cache.Used(name),
		})
	}
	return out
}

// queueCursor walks one queue during a cycle.
type queueCursor struct {
	cfg   queueConfig
	units []*QueueUnit
	next  int
	// blockedBy is the unit that blocks the rest of the queue in this cycle.
	blockedBy *QueueUnit
	// assumed are the queue's admitted units whose replicas do not all run,
	// in queue order; kept only when the queue waits for pods running.
	assumed []*admittedUnit
}

// Cycle looks at every pending unit once and admits every unit that fits, in
// queue order. Units are resolved to their queue first (no label, unknown quota
// and unregistered policy keep a unit out of any queue); then queues take turns,
// sorted by name (every Queue the plugin creates has spec.priority 1000), each
// offering its next unit in its policy's order, until every queue is through.
// Koord-Queue runs one scheduling loop per queue concurrently; taking turns is
// the deterministic stand-in for that.
//
// A unit fits when CheckUsage accepts it; it is then reserved at once, so the
// next unit sees its usage. Since usage only grows within a cycle, a unit that
// did not fit would not fit later in the same cycle: one cycle settles, and a
// second one without a change in between admits nothing.
//
// An admission is stamped with the time of the last SetNow.
func (s *Scheduler) Cycle() []Decision {
	keys := make([]types.NamespacedName, 0, len(s.pending))
	for k := range s.pending {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })

	var out []Decision
	queues := map[string]*queueCursor{}
	for _, k := range keys {
		u := s.pending[k]
		res := s.cache.Resolve(u.Labels)
		switch {
		case res.Quota == "":
			out = append(out, Pending{Unit: k, Reason: ReasonNoQuotaLabel, Silent: true,
				Message: fmt.Sprintf("no label %s: the unit resolves to no quota and no queue; Koord-Queue records no event for it", koordv1alpha1.QuotaNameLabel)})
			continue
		case !res.Found:
			out = append(out, Pending{Unit: k, Quota: res.Quota, Reason: QueueNotFoundReason,
				Message: QueueNotFoundMessage(res.Queue, u.Namespace, u.Name)})
			continue
		}
		cfg := s.configs[res.Queue]
		if !factoryPolicies[cfg.policy] {
			out = append(out, Pending{Unit: k, Quota: res.Quota, Reason: ReasonAddQueueFail,
				Message: fmt.Sprintf("queue %s was not added: queue policy %s is not registered by the queue factory; set the label %s of ElasticQuota %s to Priority, Block or Intelligent",
					res.Queue, cfg.policy, queuev1alpha1.QueuePolicyLabel, res.Quota)})
			continue
		}
		c := queues[res.Queue]
		if c == nil {
			c = &queueCursor{cfg: cfg}
			queues[res.Queue] = c
		}
		c.units = append(c.units, u)
	}

	names := make([]string, 0, len(queues))
	for n, c := range queues {
		names = append(names, n)
		sort.Slice(c.units, func(i, j int) bool { return dequeuedBefore(c.units[i], c.units[j]) })
	}
	sort.Strings(names)
	s.collectAssumed(queues)
	for more := true; more; {
		more = false
		for _, n := range names {
			c := queues[n]
			if c.next >= len(c.units) {
				continue
			}
			more = true
			out = s.offer(c, out)
		}
	}
	return out
}

// offer decides the next unit of a queue and appends the decisions to out:
// one for the unit, preceded by a Preempt for each victim when the unit
// preempts.
func (s *Scheduler) offer(c *queueCursor, out []Decision) []Decision {
	pos := c.next
	u := c.units[pos]
	c.next++
	key := u.Key()
	quota := c.cfg.name
	switch {
	case c.blockedBy != nil:
		return append(out, Pending{Unit: key, Quota: quota, Reason: ReasonQueueBlocked, Message: c.blockedMessage()})
	case c.cfg.scansDepth() && c.cfg.maxDepth > 0 && pos >= c.cfg.maxDepth:
		return append(out, Pending{Unit: key, Quota: quota, Reason: ReasonBeyondMaxDepth,
			Message: fmt.Sprintf("position %d in queue %s is beyond its scan depth (%s: %d)", pos+1, quota, MaxDepthAnnotation, c.cfg.maxDepth)})
	}
	if err := s.cache.CheckUsage(key.String(), quota, u.Request, s.rate); err != nil {
		if c.cfg.blocksOnFailure(u) {
			c.blockedBy = u
		}
		if c.cfg.preempts() {
			return s.preemptFor(c, u, err, out)
		}
		return append(out, Pending{Unit: key, Quota: quota, Reason: ReasonFailedScheduling, Message: err.Error()})
	}
	if c.cfg.waitPodsRunning && len(c.assumed) > 0 {
		return s.beforeReserving(c, u, out)
	}
	if err := s.cache.Reserve(reservationUID(key), quota, u.Request); err != nil {
		// CheckUsage has just found the quota; a failure here is a bug.
		return append(out, Pending{Unit: key, Quota: quota, Reason: ReasonFailedScheduling, Message: err.Error()})
	}
	delete(s.pending, key)
	a := newAdmitted(u, quota, s.now)
	s.admitted[key] = a
	if c.cfg.waitPodsRunning && a.assumed() {
		c.assumed = append(c.assumed, a)
	}
	return append(out, Admit{Unit: key, Quota: quota, Request: u.Request.Clone()})
}

func (c *queueCursor) blockedMessage() string {
	b := c.blockedBy
	if c.cfg.policy == queuev1alpha1.IntelligentPolicy {
		return fmt.Sprintf("queue %s (policy Intelligent) is held by %s/%s, priority %d at or above the threshold %d, which does not fit",
			c.cfg.name, b.Namespace, b.Name, b.Priority, c.cfg.threshold)
	}
	return fmt.Sprintf("queue %s (policy %s) is blocked by %s/%s, the first of its units that does not fit", c.cfg.name, c.cfg.policy, b.Namespace, b.Name)
}
