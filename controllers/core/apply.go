package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/scheduler"
)

// errSkip means the decision no longer applies to the object (it was deleted,
// finished, or already carries the outcome); nothing is written.
var errSkip = errors.New("decision does not apply to the current object")

// applyResult sums up what one cycle's writes did.
type applyResult struct {
	mu               sync.Mutex
	admitted, failed int
	// pendingKeys are the heads the cycle left pending (see plan).
	pendingKeys workloadKeys
	// walkedCQ are the ClusterQueues with a decision in the cycle: their
	// inadmissible counts are replaced, the others' kept.
	walkedCQ         map[string]bool
	inadmissibleByCQ map[string]int
	inadmissibleByLQ map[types.NamespacedName]int
	// cohorts are, for kueue_cohort_subtree_admitted_workloads_total, the
	// Cohorts each admitting ClusterQueue's admissions count in, read from
	// the engine with the cycle (nil when the cycle admitted nothing).
	cohorts map[string]metrics.CohortPath
}

// plan counts a cycle's decisions and picks those that write, for cycleWrites.
// Decisions of one cycle name distinct workloads (a Preempt names its victims,
// which are admitted and so appear in no other decision), so their order
// between its workers is free.
func (l *loop) plan(decisions []scheduler.Decision, now time.Time) (*applyResult, []scheduler.Decision) {
	res := &applyResult{pendingKeys: workloadKeys{}, walkedCQ: map[string]bool{}, inadmissibleByCQ: map[string]int{},
		inadmissibleByLQ: map[types.NamespacedName]int{}}
	// Most decisions of a loaded cycle are Pending decisions that write
	// nothing: they are counted here, in one pass, with the LocalQueue each
	// decision names (reading the cached object only to learn its queue cost
	// a fifth of the manager's CPU under Kueue's harness, every read being a
	// deep copy, and asking the engine for it a twentieth). Only decisions
	// that write go to the workers; a head's reason is written once the head
	// has stayed pending for LoopOptions.PendingReasonAfter (see
	// deferredReasons).
	//
	// A workload that is no longer its queue's head keeps its deferred
	// reason until deferredReasons.prune, after this pass, forgets it: the
	// queue was walked and the workload is not among its heads.
	var writes []scheduler.Decision
	var tally cycleTally
	for _, d := range decisions {
		p, ok := d.(scheduler.Pending)
		if !ok {
			if cq := decisionCQ(d); cq != "" {
				tally.queue(cq)
			}
			if a, ok := d.(scheduler.Admit); ok {
				l.deferred.drop(a.Workload)
			}
			writes = append(writes, d)
			continue
		}
		// The workload a blockAdmission cycle stopped at is explained even
		// when it is not its queue's first: Kueue writes it before it blocks.
		if head := tally.pending(p); head || p.Reason == scheduler.ReasonWaitingForPodsReady {
			res.pendingKeys[p.Workload] = struct{}{}
			if !l.pending.seen(p.Workload, p.Reason, p.Message) && l.deferred.due(p, now) {
				writes = append(writes, d)
			}
		}
	}
	tally.flush(res)
	return res, writes
}

// applyOne writes one decision; a Pending decision that reaches it is a
// queue's head, whose reason is written.
func (l *loop) applyOne(ctx context.Context, d scheduler.Decision, res *applyResult) {
	switch d := d.(type) {
	case scheduler.Admit:
		if err := l.admit(ctx, d, res.cohorts[d.ClusterQueue]); err != nil {
			res.add(func() { res.failed++ })
			return
		}
		res.add(func() { res.admitted++ })
	case scheduler.Pending:
		if err := l.pendingOne(ctx, d); err != nil {
			res.add(func() { res.failed++ })
		}
	case scheduler.Evict:
		var b *backoff
		if d.Reason == scheduler.EvictReasonPodsReadyTimeout {
			b = &backoff{cause: d.UnderlyingCause, requeueAt: d.RequeueAt}
		}
		if err := l.evict(ctx, d.Workload, d.ClusterQueue, d.Reason, d.Message, nil, b); err != nil {
			res.add(func() { res.failed++ })
		}
	case scheduler.Deactivate:
		if err := l.deactivate(ctx, d); err != nil {
			res.add(func() { res.failed++ })
		}
	case scheduler.Preempt:
		for _, v := range d.Victims {
			p := &preemption{preemptor: d.Preemptor, preemptorCQ: d.PreemptorClusterQueue, reason: v.Reason}
			if err := l.evict(ctx, v.Workload, v.ClusterQueue, kueue.WorkloadEvictedByPreemption, v.Message, p, nil); err != nil {
				res.add(func() { res.failed++ })
			}
		}
	default:
		l.log.Info("ignoring a decision this driver does not know", "type", fmt.Sprintf("%T", d), "workload", d.WorkloadKey())
	}
}

// decisionCQ is the ClusterQueue a decision was made in, "" when none.
func decisionCQ(d scheduler.Decision) string {
	switch d := d.(type) {
	case scheduler.Admit:
		return d.ClusterQueue
	case scheduler.Pending:
		return d.ClusterQueue
	case scheduler.Evict:
		return d.ClusterQueue
	case scheduler.Deactivate:
		return d.ClusterQueue
	case scheduler.Preempt:
		return d.PreemptorClusterQueue
	}
	return ""
}

func (r *applyResult) add(fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn()
}

// updateWorkloadStatus reads the workload (the informer's copy first, the API
// server's after a conflict), lets mutate change it, and writes its status,
// retrying on conflict. mutate returns errSkip when there is nothing to write.
// The workload returned is the one written, with the resourceVersion it was
// read with (see workloadStatusWriter).
func (l *loop) updateWorkloadStatus(ctx context.Context, key types.NamespacedName, mutate func(wl *kueue.Workload) error) (*kueue.Workload, error) {
	attempt := 0
	var wl *kueue.Workload
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		wl = &kueue.Workload{}
		var err error
		if attempt == 0 {
			err = l.client.Get(ctx, key, wl)
		} else {
			err = l.apiReader.Get(ctx, key, wl)
		}
		attempt++
		if err != nil {
			return err
		}
		if err := mutate(wl); err != nil {
			return err
		}
		return l.statusWriter.update(ctx, wl)
	})
	return wl, err
}

// ignoreGone treats a workload that vanished or no longer needs the write as
// done.
func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) || errors.Is(err, errSkip) {
		return nil
	}
	return err
}
