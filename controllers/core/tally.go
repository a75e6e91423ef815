package core

import (
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

// cycleTally counts a cycle's Pending decisions per ClusterQueue and per
// LocalQueue, for the pending-workload gauges, and picks the heads whose
// reason is written, in one pass over the decisions (see plan).
//
// A loaded cycle has one Pending decision per pending workload, and the
// engine's heads take turns across the queues of a tree, so consecutive
// decisions often name different queues: a map update per decision (or per
// run of one queue's decisions) was a twentieth of the manager's CPU under
// Kueue's harness. Here a decision costs a comparison with the previous
// decision's queue, whose name the engine's decisions share, and a map
// lookup only when the queue changes; the result maps are filled once per
// queue, at flush.
//
// Heads: in each ClusterQueue the first Pending decision, in the engine's
// order, and every workload that reaches no ClusterQueue. Kueue writes a
// pending condition only for the heads its scheduler tried; the workloads
// behind them wait without one. A status write per pending workload would
// compete with every other write the API server serves (under Kueue's own
// harness it was a third of Quokka's writes); the gauges count every Pending
// decision all the same.
type cycleTally struct {
	// queues are the ClusterQueues with a decision, in the order of their
	// first one; last is the previous decision's, byCQ the index.
	queues []cqTally
	last   int
	byCQ   map[string]int
	// noCQ counts the Pending decisions of workloads that reach no
	// ClusterQueue, per LocalQueue.
	noCQ lqTallies
}

// cqTally is one ClusterQueue's part of a cycle: it had a decision, and
// pending Pending ones.
type cqTally struct {
	name    string
	pending int
	lqs     lqTallies
}

// queue returns the tally of ClusterQueue cq, which had a decision.
func (t *cycleTally) queue(cq string) *cqTally {
	if t.last < len(t.queues) && t.queues[t.last].name == cq {
		return &t.queues[t.last]
	}
	i, ok := t.byCQ[cq]
	if !ok {
		if t.byCQ == nil {
			t.byCQ = map[string]int{}
		}
		i = len(t.queues)
		t.queues = append(t.queues, cqTally{name: cq})
		t.byCQ[cq] = i
	}
	t.last = i
	return &t.queues[i]
}

// pending counts p and tells whether it is a head, whose reason is written. A
// workload with spec.active=false is no pending workload of its queues (as in
// Kueue, which keeps it out of them): it is not counted, and its reason is
// written all the same.
func (t *cycleTally) pending(p scheduler.Pending) bool {
	if p.Reason == scheduler.ReasonInactive {
		return true
	}
	if p.ClusterQueue == "" {
		t.noCQ.add(p.Workload.Namespace, p.LocalQueue)
		return true
	}
	c := t.queue(p.ClusterQueue)
	head := c.pending == 0
	c.pending++
	c.lqs.add(p.Workload.Namespace, p.LocalQueue)
	return head
}

// flush writes the counts into res: every ClusterQueue with a decision is
// walked, and the ones with Pending decisions and their LocalQueues get
// their counts.
func (t *cycleTally) flush(res *applyResult) {
	for i := range t.queues {
		c := &t.queues[i]
		res.walkedCQ[c.name] = true
		if c.pending > 0 {
			res.inadmissibleByCQ[c.name] += c.pending
		}
		c.lqs.flush(res)
	}
	t.noCQ.flush(res)
}

// lqTallies counts Pending decisions per LocalQueue. A ClusterQueue usually
// has few LocalQueues, searched in order; past linearLQs an index takes over.
type lqTallies struct {
	last  int
	list  []lqTally
	index map[types.NamespacedName]int
}

type lqTally struct {
	lq types.NamespacedName
	n  int
}

const linearLQs = 8

func (l *lqTallies) add(namespace, name string) {
	if name == "" {
		return
	}
	if l.last < len(l.list) {
		if e := &l.list[l.last]; e.lq.Name == name && e.lq.Namespace == namespace {
			e.n++
			return
		}
	}
	key := types.NamespacedName{Namespace: namespace, Name: name}
	i, ok := l.find(key)
	if !ok {
		i = len(l.list)
		l.list = append(l.list, lqTally{lq: key})
		if l.index != nil {
			l.index[key] = i
		} else if len(l.list) > linearLQs {
			l.index = make(map[types.NamespacedName]int, len(l.list))
			for j, e := range l.list {
				l.index[e.lq] = j
			}
		}
	}
	l.list[i].n++
	l.last = i
}

func (l *lqTallies) find(key types.NamespacedName) (int, bool) {
	if l.index != nil {
		i, ok := l.index[key]
		return i, ok
	}
	for i := range l.list {
		if l.list[i].lq == key {
			return i, true
		}
	}
	return 0, false
}

func (l *lqTallies) flush(res *applyResult) {
	for _, e := range l.list {
		res.inadmissibleByLQ[e.lq] += e.n
	}
}
