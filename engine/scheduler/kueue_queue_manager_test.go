package scheduler

import (
	"slices"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Ports of Kueue's pkg/cache/queue/manager_test.go (ff69552): the queue
// manager, which routes workloads to their LocalQueue and ClusterQueue.
// Quokka's engine routes them itself (UpsertWorkload, UpsertLocalQueue,
// UpsertClusterQueue and their deletes); what the manager's queues hold is
// what the LocalQueue and ClusterQueue views count as pending and what a
// cycle offers, in order (see kueue_queue_order_test.go). Kueue's
// workloadAssignedQueues, its map from workload to LocalQueue, has no
// counterpart: the engine reads spec.queueName.

// kqMgrWl is a one-pod workload of 1 cpu in LocalQueue ns/lq, created at
// Epoch+created.
func kqMgrWl(ns, name, lq string, created time.Duration) *WorkloadWrapper {
	return MakeWorkload(ns, name).Queue(lq).Request("cpu", "1").Created(created)
}

// kqCQ is a ClusterQueue without a cohort with cpu of flavor default.
func kqCQ(name, cpu string) *kueue.ClusterQueue {
	return MakeClusterQueue(name).Quota("default", "cpu", cpu).Obj()
}

// kqNoCQ is a LocalQueue that names no ClusterQueue (Kueue's
// MakeLocalQueue without ClusterQueue).
func kqNoCQ(ns, name string) *kueue.LocalQueue {
	return MakeLocalQueue(ns, name, "").Obj()
}

// kqAdmittedInto checks that a cycle admitted exactly the workloads of want
// (name → ClusterQueue), in the order given by order.
func kqAdmittedInto(t *testing.T, ds []Decision, order []string, want map[string]string) {
	t.Helper()
	var got []string
	for _, a := range admits(ds) {
		got = append(got, a.Workload.Name)
		if cq, ok := want[a.Workload.Name]; !ok || cq != a.ClusterQueue {
			t.Errorf("%s admitted into %s, want %q", a.Workload.Name, a.ClusterQueue, cq)
		}
	}
	if !slices.Equal(got, order) {
		t.Fatalf("admitted %v, want %v (decisions %v)", got, order, ds)
	}
}

// Kueue: TestAddLocalQueueOrphans. Workloads created before their
// LocalQueue join it when it is added: the pending ones (a, c), not the one
// holding quota (d), the inactive one (e) or the finished one (f), nor one
// of another namespace (moon/a).
func TestKueueQueueManagerAddLocalQueueOrphans(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq", "10"),
		kqMgrWl("earth", "a", "foo", 0).Obj(), kqMgrWl("earth", "b", "bar", 0).Obj(), kqMgrWl("earth", "c", "foo", 0).Obj(),
		kqMgrWl("earth", "d", "foo", 0).ReserveQuota("cq", "default").QuotaReservedAt(time.Hour).Obj(),
		kqMgrWl("earth", "e", "foo", 0).Active(false).Obj(), kqMgrWl("earth", "f", "foo", 0).Finished().Obj(),
		kqMgrWl("moon", "a", "foo", 0).Obj())
	apply(t, s, MakeLocalQueue("earth", "foo", "cq").Obj())
	if got := kqLQPending(t, s, "earth", "foo"); got != 2 {
		t.Errorf("LocalQueue earth/foo has %d pending workloads, want 2 (earth/a and earth/c)", got)
	}
	ds := s.Cycle(now)
	kqAdmittedInto(t, ds, []string{"a", "c"}, map[string]string{"a": "cq", "c": "cq"})
	if p, _ := pendingFor(ds, "a"); p.Workload.Namespace != "moon" || p.Reason != ReasonLocalQueueNotFound {
		t.Errorf("moon/a: %v, want it pending with %s", p, ReasonLocalQueueNotFound)
	}
}

// Kueue: TestAddClusterQueueOrphans. A ClusterQueue deleted and created
// again adopts the workloads of its LocalQueues; in between it offers
// nothing. The recreated queue pops b, then a (created a second later).
func TestKueueQueueManagerAddClusterQueueOrphans(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq", "3"),
		kqMgrWl("", "a", "foo", time.Second).Obj(), kqMgrWl("", "b", "bar", 0).Obj(),
		kqMgrWl("", "c", "foo", 0).ReserveQuota("cq", "default").QuotaReservedAt(time.Hour).Obj(),
		kqMgrWl("", "d", "baz", 0).Obj(),
		MakeLocalQueue("", "foo", "cq").Obj(), MakeLocalQueue("", "bar", "cq").Obj())
	if got := kqPending(t, s, "cq"); got != 2 {
		t.Fatalf("%d pending workloads after creating all objects, want 2 (a and b)", got)
	}
	s.DeleteClusterQueue("cq")
	if _, ok := s.ClusterQueueSnapshot("cq"); ok {
		t.Fatalf("ClusterQueue cq still known after its deletion")
	}
	ds := s.Cycle(now)
	kqAdmittedInto(t, ds, nil, nil)
	for _, name := range []string{"a", "b"} {
		mustPending(t, ds, name, ReasonClusterQueueNotFound)
	}
	apply(t, s, kqCQ("cq", "3"))
	kqAdmittedInto(t, s.Cycle(now.Add(time.Second)), []string{"b", "a"}, map[string]string{"a": "cq", "b": "cq"})
}

// Kueue: TestUpdateClusterQueue. A ClusterQueue that moves to another
// cohort is a requeue event for the workloads Kueue parked in the tree it
// joins: cq1's a (kqTree's "alpha", waiting for victims) searches again once
// the v queues borrow, and cq2's b, which got no flavor in beta where cq2 has
// no quota, is admitted in alpha by borrowing. Before the move, a, parked,
// does not search.
func TestKueueQueueManagerUpdateClusterQueue(t *testing.T) {
	for _, opts := range kqCycles {
		cq2 := MakeClusterQueue("cq2").Cohort("beta").Quota("default", "cpu", "0").Preemption(lower, never)
		s := kqTree(t, opts, "alpha", 2,
			MakeClusterQueue("cq1").Cohort("alpha").Quota("default", "cpu", "2").Preemption(lower, never).Obj(), cq2.Obj(),
			MakeLocalQueue("default", "foo", "cq1").Obj(), MakeLocalQueue("default", "bar", "cq2").Obj(),
			job("default", "a", 2, 10).Queue("foo").Created(time.Second).Obj(),
			MakeWorkload("default", "b").Queue("bar").Priority(10).Request("cpu", "500m").Obj())
		ds := s.Cycle(now)
		kqAdmittedInto(t, ds, nil, nil)
		mustPending(t, ds, "b", ReasonExceedsMaximumQuota)
		kqBorrow(t, s)
		if got := kqPreemptors(s.Cycle(now.Add(time.Second))); len(got) != 0 {
			t.Fatalf("%v searched for victims while inadmissible", got)
		}
		apply(t, s, cq2.Cohort("alpha").Obj())
		ds = s.Cycle(now.Add(2 * time.Second))
		if got := kqPreemptors(ds); !slices.Equal(got, []string{"default/a"}) {
			t.Errorf("incremental=%v: workloads searching for victims %v, want [default/a]", !opts.DisableIncrementalCycle, got)
		}
		kqAdmittedInto(t, ds, []string{"b"}, map[string]string{"b": "cq2"})
	}
}

// Kueue: TestRequeueWorkloadStrictFIFO, its cases but "not in client" and
// "already admitted" (see the notes). Kueue's RequeueWorkload puts back in
// its queue a workload that is pending in an existing LocalQueue and
// ClusterQueue, and not one holding quota, finished, deactivated or already
// there. The engine's counterpart is the upsert of the workload: whether it
// is then pending in cq, and offered.
func TestKueueQueueManagerRequeueWorkloadStrictFIFO(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wl      *WorkloadWrapper
		inQueue bool   // upserted before the requeue too
		queued  bool   // pending in cq (once) afterwards
		reason  string // the Pending reason when it reaches no ClusterQueue
	}{
		{name: "existing queue and obj", wl: kqMgrWl("", "wl", "foo", 0), queued: true},
		{name: "non existing queue", wl: kqMgrWl("", "wl", "baz", 0), reason: ReasonLocalQueueNotFound},
		{name: "non existing cluster queue", wl: kqMgrWl("", "wl", "bar", 0), reason: ReasonClusterQueueNotFound},
		{name: "has no quota reservation", wl: kqMgrWl("", "wl", "foo", 0).ReserveQuota("cq", "default").QuotaReservedAt(time.Hour), inQueue: true},
		{name: "finished", wl: kqMgrWl("", "wl", "foo", 0).Finished(), inQueue: true},
		{name: "deactivated", wl: kqMgrWl("", "wl", "foo", 0).Active(false), inQueue: true},
		{name: "already in queue", wl: kqMgrWl("", "wl", "foo", 0), inQueue: true, queued: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq", "1"),
				MakeLocalQueue("", "foo", "cq").Obj(), kqNoCQ("", "bar"))
			if tc.inQueue {
				apply(t, s, tc.wl.Obj())
			}
			apply(t, s, tc.wl.Obj())
			want := 0
			if tc.queued {
				want = 1
			}
			if got := kqPending(t, s, "cq"); got != want {
				t.Errorf("ClusterQueue cq has %d pending workloads, want %d", got, want)
			}
			ds := s.Cycle(now)
			if tc.queued {
				kqAdmittedInto(t, ds, []string{"wl"}, map[string]string{"wl": "cq"})
				return
			}
			kqAdmittedInto(t, ds, nil, nil)
			if tc.reason != "" {
				mustPending(t, ds, "wl", tc.reason)
			}
		})
	}
}

// Kueue: TestHeads. Each active ClusterQueue gives its head to the cycle:
// the oldest of its workloads; an inactive one (here pending-bazCq, whose
// flavor does not exist; Kueue's test fakes the status) gives none. Each
// queue has room for one workload.
func TestKueueQueueManagerHeads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wls     []*WorkloadWrapper
		want    []string
		pending map[string]string
	}{
		{name: "empty clusterQueues"},
		{name: "active clusterQueues", wls: []*WorkloadWrapper{kqMgrWl("", "a", "foo", 0), kqMgrWl("", "b", "bar", 0)},
			want: []string{"a", "b"}},
		{name: "active clusterQueues with multiple workloads",
			wls:  []*WorkloadWrapper{kqMgrWl("", "a1", "foo", 0), kqMgrWl("", "a2", "foo", time.Hour), kqMgrWl("", "b", "bar", 0)},
			want: []string{"a1", "b"}, pending: map[string]string{"a2": ReasonInsufficientQuota}},
		{name: "inactive clusterQueues",
			wls:  []*WorkloadWrapper{kqMgrWl("", "a", "foo", 0), kqMgrWl("", "b", "bar", 0), kqMgrWl("", "c", "baz", time.Hour)},
			want: []string{"a", "b"}, pending: map[string]string{"c": ReasonClusterQueueInactive}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("active-fooCq", "1"), kqCQ("active-barCq", "1"),
				MakeClusterQueue("pending-bazCq").Quota("missing", "cpu", "1").Obj(),
				MakeLocalQueue("", "foo", "active-fooCq").Obj(), MakeLocalQueue("", "bar", "active-barCq").Obj(),
				MakeLocalQueue("", "baz", "pending-bazCq").Obj())
			for _, w := range tc.wls {
				apply(t, s, w.Obj())
			}
			ds := s.Cycle(now)
			var got []string
			for _, a := range admits(ds) {
				got = append(got, a.Workload.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("heads admitted %v, want %v", got, tc.want)
			}
			for name, reason := range tc.pending {
				mustPending(t, ds, name, reason)
			}
		})
	}
}

// Kueue: TestQueueInadmissibleWorkloads. A requeue event in a ClusterQueue
// of a Cohort tree moves the parked workloads of every ClusterQueue of the
// tree, under each of its Cohorts, back to the heap (Kueue logs it once per
// root; that log and the count it returns are its internals). The workloads
// are parked by a first cycle (kqTree: their search finds no victims); the
// v queues then borrow by an admission, which leaves them parked; after the
// event (kqRelease) each searches for victims. In a Cohort cycle there is
// no tree to requeue: the ClusterQueue is inactive and its workload waits.
func TestKueueQueueManagerQueueInadmissibleWorkloads(t *testing.T) {
	tree := []any{MakeCohort("root").Obj(), MakeCohort("child1").Parent("root").Obj(), MakeCohort("child2").Parent("root").Obj()}
	cq := func(name, cohort, cpu string) *kueue.ClusterQueue {
		return MakeClusterQueue(name).Cohort(cohort).Quota("default", "cpu", cpu).Preemption(lower, never).Obj()
	}
	for _, tc := range []struct {
		name string
		lent int
		objs []any
		want []string
	}{
		{name: "deduplication with shared root", lent: 4, objs: append(tree, cq("cq1", "child1", "2"), cq("cq2", "child2", "2"),
			MakeLocalQueue("default", "foo", "cq1").Obj(), MakeLocalQueue("default", "bar", "cq2").Obj(),
			job("default", "a", 2, 10).Queue("foo").Obj(), job("default", "b", 2, 10).Queue("bar").Created(time.Second).Obj()),
			want: []string{"default/a", "default/b"}},
		{name: "cohort subtree aggregates count across multiple cluster queues", lent: 8, objs: append(tree,
			cq("cq1", "child1", "2"), cq("cq2", "child1", "2"), cq("cq3", "child2", "4"),
			MakeLocalQueue("default", "q1", "cq1").Obj(), MakeLocalQueue("default", "q2", "cq2").Obj(), MakeLocalQueue("default", "q3", "cq3").Obj(),
			job("default", "a", 2, 10).Queue("q1").Obj(), job("default", "b", 2, 10).Queue("q2").Created(time.Second).Obj(),
			job("default", "c", 2, 10).Queue("q3").Created(2*time.Second).Obj(), job("default", "d", 2, 10).Queue("q3").Created(3*time.Second).Obj()),
			want: []string{"default/a", "default/b", "default/c", "default/d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opts := range kqCycles {
				s := kqTree(t, opts, "root", tc.lent, tc.objs...)
				if ds := s.Cycle(now); len(admits(ds)) != 0 || len(preempts(ds)) != 0 {
					t.Fatalf("first cycle decided %v, want every workload to wait", ds)
				}
				kqBorrow(t, s)
				if got := kqPreemptors(s.Cycle(now.Add(time.Second))); len(got) != 0 {
					t.Fatalf("%v searched for victims while inadmissible", got)
				}
				kqRelease(s)
				if got := kqPreemptors(s.Cycle(now.Add(2 * time.Second))); !slices.Equal(got, tc.want) {
					t.Errorf("incremental=%v: workloads searching for victims after the requeue event %v, want %v", !opts.DisableIncrementalCycle, got, tc.want)
				}
			}
		})
	}
	t.Run("cohort cycle", func(t *testing.T) {
		s := kqCohortCycle(t)
		kqRequeueCycle(t, s)
	})
}

// kqCohortCycle is Kueue's Cohorts cohort-a → cohort-b → cohort-c →
// cohort-a with cq1 in cohort-a, LocalQueue default/foo and its workload a,
// after a first cycle: a waits, cq1 being inactive.
func kqCohortCycle(t *testing.T) *Scheduler {
	t.Helper()
	s := world(t, Options{}, MakeFlavor("default").Obj(), MakeCohort("cohort-a").Parent("cohort-b").Obj(),
		MakeCohort("cohort-b").Parent("cohort-c").Obj(), MakeCohort("cohort-c").Parent("cohort-a").Obj(),
		MakeClusterQueue("cq1").Cohort("cohort-a").Quota("default", "cpu", "2").Obj(), MakeLocalQueue("default", "foo", "cq1").Obj(),
		kqMgrWl("default", "a", "foo", 0).Obj())
	ds := s.Cycle(now)
	kqAdmittedInto(t, ds, nil, nil)
	mustPending(t, ds, "a", ReasonClusterQueueInactive)
	return s
}

// kqRequeueCycle is a requeue event for cq1 of kqCohortCycle (a change of
// its spec, as Kueue's UpdateClusterQueue notifies), after which cq1, still
// in the cycle, admits nothing and a waits.
func kqRequeueCycle(t *testing.T, s *Scheduler) {
	t.Helper()
	apply(t, s, MakeClusterQueue("cq1").Cohort("cohort-a").Quota("default", "cpu", "3").Obj())
	ds := s.Cycle(now.Add(time.Second))
	kqAdmittedInto(t, ds, nil, nil)
	mustStillPending(t, s, ds, "a", ReasonClusterQueueInactive)
}

// Kueue: TestRequeueWorkloadsCohortCycle. A workload of a ClusterQueue in
// a Cohort cycle, requeued (upserted again) before a requeue event, stays
// its LocalQueue's: still counted there, still waiting.
func TestKueueQueueManagerRequeueWorkloadsCohortCycle(t *testing.T) {
	s := kqCohortCycle(t)
	apply(t, s, kqMgrWl("default", "a", "foo", 0).Obj())
	kqRequeueCycle(t, s)
	if got := kqLQPending(t, s, "default", "foo"); got != 1 {
		t.Errorf("LocalQueue default/foo has %d pending workloads, want 1", got)
	}
}

// Kueue: TestClusterQueueToActive. When a ClusterQueue becomes active, the
// manager wakes the scheduler: its workloads are scheduled. Kueue's test
// flips the Active condition by hand; the engine derives it from the spec,
// so here cq1 is held (stopPolicy Hold) and then runs.
func TestKueueQueueManagerClusterQueueToActive(t *testing.T) {
	stopped := MakeClusterQueue("cq1").Cohort("alpha").Quota("default", "cpu", "1").StopPolicy(kueue.Hold)
	s := world(t, Options{}, MakeFlavor("default").Obj(), stopped.Obj(), MakeLocalQueue("default", "foo", "cq1").Obj(),
		kqMgrWl("default", "a", "foo", 0).Obj())
	ds := s.Cycle(now)
	kqAdmittedInto(t, ds, nil, nil)
	mustPending(t, ds, "a", ReasonStopped)
	apply(t, s, stopped.StopPolicy(kueue.None).Obj())
	kqAdmittedInto(t, s.Cycle(now.Add(time.Second)), []string{"a"}, map[string]string{"a": "cq1"})
}

// Kueue: TestUpdateWorkload. An update moves a workload within its queue
// (a, now created a minute later, comes after b), between LocalQueues of a
// ClusterQueue or of two, out of the queues (to a LocalQueue that does not
// exist) or into them (from one that does not exist). Kueue's queue order
// is the order of one cycle's admissions; its LocalQueue members are the
// LocalQueues' pending counts. Each queue has room for every workload.
func TestKueueQueueManagerUpdateWorkload(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cqs       []string
		lqs       [][2]string // name, ClusterQueue
		wls       []*WorkloadWrapper
		update    func(*WorkloadWrapper)
		wantOrder []string
		wantCQ    map[string]string // workload → the ClusterQueue it is admitted into
		wantLQ    map[string]int    // LocalQueue → pending workloads after the update
		reason    string            // a's Pending reason when it reaches no ClusterQueue
	}{
		{name: "in queue", cqs: []string{"cq"}, lqs: [][2]string{{"foo", "cq"}},
			wls:       []*WorkloadWrapper{kqMgrWl("", "a", "foo", 0), kqMgrWl("", "b", "foo", time.Second)},
			update:    func(w *WorkloadWrapper) { w.Created(time.Minute) },
			wantOrder: []string{"b", "a"}, wantCQ: map[string]string{"a": "cq", "b": "cq"}, wantLQ: map[string]int{"foo": 2}},
		{name: "between queues", cqs: []string{"cq"}, lqs: [][2]string{{"foo", "cq"}, {"bar", "cq"}},
			wls:       []*WorkloadWrapper{kqMgrWl("", "a", "foo", 0)},
			update:    func(w *WorkloadWrapper) { w.Queue("bar") },
			wantOrder: []string{"a"}, wantCQ: map[string]string{"a": "cq"}, wantLQ: map[string]int{"foo": 0, "bar": 1}},
		{name: "between cluster queues", cqs: []string{"cq1", "cq2"}, lqs: [][2]string{{"foo", "cq1"}, {"bar", "cq2"}},
			wls:       []*WorkloadWrapper{kqMgrWl("", "a", "foo", 0)},
			update:    func(w *WorkloadWrapper) { w.Queue("bar") },
			wantOrder: []string{"a"}, wantCQ: map[string]string{"a": "cq2"}, wantLQ: map[string]int{"foo": 0, "bar": 1}},
		{name: "to non existent queue", cqs: []string{"cq"}, lqs: [][2]string{{"foo", "cq"}},
			wls:    []*WorkloadWrapper{kqMgrWl("", "a", "foo", 0)},
			update: func(w *WorkloadWrapper) { w.Queue("bar") },
			wantLQ: map[string]int{"foo": 0}, reason: ReasonLocalQueueNotFound},
		{name: "from non existing queue", cqs: []string{"cq"}, lqs: [][2]string{{"foo", "cq"}},
			wls:       []*WorkloadWrapper{kqMgrWl("", "a", "bar", 0)},
			update:    func(w *WorkloadWrapper) { w.Queue("foo") },
			wantOrder: []string{"a"}, wantCQ: map[string]string{"a": "cq"}, wantLQ: map[string]int{"foo": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("default").Obj())
			for _, cq := range tc.cqs {
				apply(t, s, kqCQ(cq, "2"))
			}
			for _, lq := range tc.lqs {
				apply(t, s, MakeLocalQueue("", lq[0], lq[1]).Obj())
			}
			for _, w := range tc.wls {
				apply(t, s, w.Obj())
			}
			updated := tc.wls[0].Clone()
			tc.update(updated)
			apply(t, s, updated.Obj())
			for lq, want := range tc.wantLQ {
				if got := kqLQPending(t, s, "", lq); got != want {
					t.Errorf("LocalQueue %s has %d pending workloads, want %d", lq, got, want)
				}
			}
			ds := s.Cycle(now)
			kqAdmittedInto(t, ds, tc.wantOrder, tc.wantCQ)
			if tc.reason != "" {
				mustPending(t, ds, "a", tc.reason)
			}
		})
	}
}

// Kueue: TestAddWorkload. A workload is queued when its LocalQueue exists
// (here earth/foo, in cq); one finished, deactivated or holding quota is
// not; one whose LocalQueue does not exist in its namespace is not; one
// whose LocalQueue names no ClusterQueue (mars/bar) is queued in the
// LocalQueue, and waits. Queued: counted by its LocalQueue and offered.
func TestKueueQueueManagerAddWorkload(t *testing.T) {
	for _, tc := range []struct {
		wl      *WorkloadWrapper
		lq      string // the LocalQueue it is counted in, "" for none
		admit   bool
		reason  string // the Pending reason when it reaches no ClusterQueue
		holding bool   // it holds quota in cq
	}{
		{wl: kqMgrWl("earth", "finished", "foo", 0).Finished()},
		{wl: kqMgrWl("earth", "inactive", "foo", 0).Active(false)},
		{wl: kqMgrWl("earth", "quota_already_reserved", "foo", 0).ReserveQuota("cq", "default").QuotaReservedAt(time.Hour), holding: true},
		{wl: kqMgrWl("earth", "existing_queue", "foo", 0), lq: "earth/foo", admit: true},
		{wl: kqMgrWl("earth", "non_existing_queue", "baz", 0), reason: ReasonLocalQueueNotFound},
		{wl: kqMgrWl("mars", "non_existing_cluster_queue", "bar", 0), lq: "mars/bar", reason: ReasonClusterQueueNotFound},
		{wl: kqMgrWl("mars", "wrong_namespace", "foo", 0), reason: ReasonLocalQueueNotFound},
		{wl: kqMgrWl("earth", "non_existing_local_queue", "baz", 0), reason: ReasonLocalQueueNotFound},
	} {
		t.Run(tc.wl.Name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq", "1"),
				MakeLocalQueue("earth", "foo", "cq").Obj(), kqNoCQ("mars", "bar"), tc.wl.Obj())
			for _, lq := range [][2]string{{"earth", "foo"}, {"mars", "bar"}} {
				want := 0
				if tc.lq == lq[0]+"/"+lq[1] {
					want = 1
				}
				if got := kqLQPending(t, s, lq[0], lq[1]); got != want {
					t.Errorf("LocalQueue %s/%s has %d pending workloads, want %d", lq[0], lq[1], got, want)
				}
			}
			if v, _ := s.ClusterQueueSnapshot("cq"); (v.AdmittedWorkloads == 1) != tc.holding {
				t.Errorf("cq holds %d workloads, want the workload to hold quota: %v", v.AdmittedWorkloads, tc.holding)
			}
			ds := s.Cycle(now)
			if tc.admit {
				kqAdmittedInto(t, ds, []string{tc.wl.Name}, map[string]string{tc.wl.Name: "cq"})
				return
			}
			kqAdmittedInto(t, ds, nil, nil)
			if tc.reason != "" {
				mustPending(t, ds, tc.wl.Name, tc.reason)
			}
		})
	}
}

// Kueue: TestDeleteWorkload, "workload deleted but not forgotten": wl1
// deleted, its LocalQueue and ClusterQueue hold wl2 only (Kueue keeps wl1's
// LocalQueue in workloadAssignedQueues, its internal).
func TestKueueQueueManagerDeleteWorkload(t *testing.T) {
	t.Run("workload deleted but not forgotten", func(t *testing.T) {
		s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq", "2"),
			MakeLocalQueue("earth", "foo", "cq").Obj(), kqNoCQ("mars", "bar"),
			kqMgrWl("earth", "wl1", "foo", 0).Obj(), kqMgrWl("earth", "wl2", "foo", 0).Obj())
		s.DeleteWorkload(key("earth", "wl1"))
		if got := kqLQPending(t, s, "earth", "foo"); got != 1 {
			t.Errorf("LocalQueue earth/foo has %d pending workloads, want 1", got)
		}
		if got := kqPending(t, s, "cq"); got != 1 {
			t.Errorf("ClusterQueue cq has %d pending workloads, want 1", got)
		}
		kqAdmittedInto(t, s.Cycle(now), []string{"wl2"}, map[string]string{"wl2": "cq"})
	})
}

// Kueue: TestUpdateLocalQueue. A LocalQueue pointed at another ClusterQueue
// takes its workloads there: cq1 is left empty, cq2 pops b, then a (created
// a second later).
func TestKueueQueueManagerUpdateLocalQueue(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq1", "2"), kqCQ("cq2", "2"),
		MakeLocalQueue("", "foo", "cq1").Obj(), MakeLocalQueue("", "bar", "cq2").Obj(),
		kqMgrWl("", "a", "foo", time.Second).Obj(), kqMgrWl("", "b", "bar", 0).Obj())
	apply(t, s, MakeLocalQueue("", "foo", "cq2").Obj())
	if got := kqPending(t, s, "cq1"); got != 0 {
		t.Errorf("cq1 has %d pending workloads, want 0", got)
	}
	if got := kqPending(t, s, "cq2"); got != 2 {
		t.Errorf("cq2 has %d pending workloads, want 2", got)
	}
	kqAdmittedInto(t, s.Cycle(now), []string{"b", "a"}, map[string]string{"a": "cq2", "b": "cq2"})
}

// Kueue: TestDeleteLocalQueue. A LocalQueue deleted, its workloads are no
// longer in its ClusterQueue: nothing pending there, nothing offered.
func TestKueueQueueManagerDeleteLocalQueue(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(), kqCQ("cq", "1"), MakeLocalQueue("", "foo", "cq").Obj(),
		kqMgrWl("", "a", "foo", 0).Obj())
	if got := kqPending(t, s, "cq"); got != 1 {
		t.Fatalf("cq has %d pending workloads after setup, want 1", got)
	}
	s.DeleteLocalQueue("", "foo")
	if got := kqPending(t, s, "cq"); got != 0 {
		t.Errorf("cq has %d pending workloads after deleting the LocalQueue, want 0", got)
	}
	ds := s.Cycle(now)
	kqAdmittedInto(t, ds, nil, nil)
	mustPending(t, ds, "a", ReasonLocalQueueNotFound)
}

// Kueue: TestStatus. A LocalQueue's pending workloads are counted whether
// or not its ClusterQueue exists (none does here): foo 3, bar 1; a
// LocalQueue that does not exist has no status.
func TestKueueQueueManagerStatus(t *testing.T) {
	s := world(t, Options{}, MakeLocalQueue("", "foo", "fooCq").Obj(), MakeLocalQueue("", "bar", "barCq").Obj(),
		kqMgrWl("", "a", "foo", time.Hour).Obj(), kqMgrWl("", "b", "bar", 0).Obj(),
		kqMgrWl("", "c", "foo", 0).Obj(), kqMgrWl("", "d", "foo", 0).Obj())
	for _, tc := range []struct {
		name   string
		want   int
		exists bool
	}{{"foo", 3, true}, {"bar", 1, true}, {"fake", 0, false}} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := s.LocalQueueSnapshot("", tc.name)
			if ok != tc.exists || v.PendingWorkloads != tc.want {
				t.Errorf("LocalQueue %s: exists %v with %d pending workloads, want exists %v with %d", tc.name, ok, v.PendingWorkloads, tc.exists, tc.want)
			}
		})
	}
}
