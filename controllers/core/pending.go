package core

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/engine/workload"
)

// pendingTracker remembers the pending reason last written per workload, so that
// the engine's Pending decisions (one per pending workload per cycle) cause a
// write only when the reason changes (pendingUnchanged says why not the message); and the counts of workloads the
// last cycle found inadmissible, for the pending-workload gauges.
type pendingTracker struct {
	mu      sync.Mutex
	written map[types.NamespacedName]string
	byCQ    map[string]int
	byLQ    map[types.NamespacedName]int
}

func newPendingTracker() *pendingTracker {
	return &pendingTracker{written: map[types.NamespacedName]string{}, byCQ: map[string]int{},
		byLQ: map[types.NamespacedName]int{}}
}

func (p *pendingTracker) seen(key types.NamespacedName, reason, _ string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written[key] == reason
}

func (p *pendingTracker) remember(key types.NamespacedName, reason, _ string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written[key] = reason
}

func (p *pendingTracker) forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.written, key)
}

// endCycle drops what is known of workloads the cycle did not find pending (the
// object's own condition is checked before a write anyway) and records the
// inadmissible counts: replaced for the ClusterQueues and LocalQueues the cycle
// decided in, kept for the sleeping ones, whose workloads had no decision (the
// gauges clamp them to the pending count at scrape time).
func (p *pendingTracker) endCycle(pending workloadKeys, walkedCQ map[string]bool, byCQ map[string]int, byLQ map[types.NamespacedName]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.written {
		if _, ok := pending[k]; !ok {
			delete(p.written, k)
		}
	}
	for cq := range walkedCQ {
		p.byCQ[cq] = byCQ[cq]
	}
	for lq, n := range byLQ {
		p.byLQ[lq] = n
	}
}

func (p *pendingTracker) inadmissibleCQ(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byCQ[name]
}

func (p *pendingTracker) inadmissibleLQ(key types.NamespacedName) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byLQ[key]
}

// pendingOne writes QuotaReserved=False with Kueue's reason for the engine's
// (decision.KueueQuotaReservedReason) and the engine's message when the reason
// changed, with Admitted=False (NoReservation) beside it under the
// UnadmittedWorkloadsObservability gate, and a Warning event named by the
// reason, as Kueue's scheduler records one; the loop calls it for the heads of
// the queues only (see cycleTally). The engine's finer reasons change more
// often than Kueue's (a workload short of quota in its ClusterQueue, then in
// its cohort); a change the condition would not show is not written.
func (l *loop) pendingOne(ctx context.Context, d scheduler.Pending) error {
	reason, write := decision.KueueQuotaReservedReason(d.Reason, l.tieredReasons)
	if !write || l.pending.seen(d.Workload, reason, d.Message) {
		return nil
	}
	var env *workload.Environment
	l.engine.Do(func(s *scheduler.Scheduler) { env = s.Environment(d.Workload.Namespace) })
	wl, err := l.updateWorkloadStatus(ctx, d.Workload, func(wl *kueue.Workload) error {
		if wl.Status.Admission != nil || isTrue(wl, kueue.WorkloadFinished) {
			return errSkip
		}
		read := wl
		if l.ignoreReclaimable {
			read = workload.IgnoringReclaimablePods(wl)
		}
		requests, counted := resourceRequests(read, l.rules, env)
		if pendingUnchanged(wl, reason, d.Message) && (!counted || sameRequests(wl.Status.ResourceRequests, requests)) &&
			(!l.tieredReasons || hasNoReservation(wl)) {
			return errSkip
		}
		setCondition(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, reason, d.Message)
		if l.tieredReasons {
			setNoReservation(wl)
		}
		if counted {
			wl.Status.ResourceRequests = requests
		}
		return nil
	})
	switch {
	case errors.Is(err, errSkip):
		l.pending.remember(d.Workload, reason, d.Message)
	case apierrors.IsNotFound(err):
	case err != nil:
		l.log.Error(err, "writing pending reason", "workload", d.Workload, "reason", d.Reason)
		return fmt.Errorf("marking workload %s pending: %w", d.Workload, err)
	default:
		l.pending.remember(d.Workload, reason, d.Message)
		l.events.Eventf(wl, corev1.EventTypeWarning, reason, "%s", d.Message)
	}
	return nil
}
