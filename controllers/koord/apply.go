package koord

import (
	"context"
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/engine/resources"
)

// Event reasons and messages on QueueUnits, Koord-Queue's.
const (
	// EventScheduled is the Normal event of an admission ("dequeue success").
	EventScheduled = "Scheduled"
	// MessageDequeued is the unit's status.message once admitted.
	MessageDequeued = "Dequeued because schedule successfully"
	// EventFailedScheduling is the Warning event of a unit the usage check
	// refused; its message is CheckUsage's.
	EventFailedScheduling = "FailedScheduling"
	// EventAddQueueFail is the Warning event on a Queue whose policy the queue
	// factory does not register (004: "AddQueueFail event on a Queue").
	EventAddQueueFail = "AddQueueFail"
	// QueueUsedAnnotation carries a quota's usage on its Queue, as Koord-Queue
	// publishes it: a JSON object of resource name to amount (cpu in
	// millicores, memory and storage in bytes, other resources in units).
	QueueUsedAnnotation = "alibabacloud.com/queue-used"
)

// apply writes a cycle's decisions; it reports whether a write failed (the
// loop then retries soon).
func (l *admissionLoop) apply(ctx context.Context, decisions []elasticquota.Decision) bool {
	failed := false
	for _, d := range decisions {
		var err error
		switch d := d.(type) {
		case elasticquota.Admit:
			err = l.admit(ctx, d)
		case elasticquota.Pending:
			err = l.pending(ctx, d)
		case elasticquota.Preempt:
			err = l.preempt(ctx, d)
		}
		if err != nil {
			failed = true
			l.log.Error(err, "writing a Koord-Queue decision", "queueUnit", d.UnitKey())
		}
	}
	return failed
}

// admit records an admission on the unit: phase Dequeued, Koord-Queue's
// message, the admissions per pod set and the allocation time, then the Normal
// event Scheduled. The Job extension resumes the Job when it sees the phase.
// A write that fails takes the admission back in the engine.
func (l *admissionLoop) admit(ctx context.Context, d elasticquota.Admit) error {
	k := l.state.units[d.Unit]
	if k == nil {
		l.state.sched.DeleteUnit(d.Unit)
		return nil
	}
	now := metav1.NewTime(l.opts.Now())
	next := k.obj.DeepCopy()
	next.Status.Phase = queuev1alpha1.Dequeued
	next.Status.Message = MessageDequeued
	next.Status.Admissions = elasticquota.Admissions(next)
	next.Status.LastAllocateTime = &now
	next.Status.LastUpdateTime = &now
	next.Status.Attempts++
	if err := l.client.Status().Update(ctx, next); err != nil {
		if apierrors.IsNotFound(err) {
			l.state.forget(d.Unit)
			return nil
		}
		l.state.unadmit(d.Unit)
		return err
	}
	k.obj, k.admitted = next, true
	l.recorder.Event(next, corev1.EventTypeNormal, EventScheduled, "dequeue success")
	l.metrics.admitted(d.Quota)
	return nil
}

// pending records why a unit waits, in the unit's status.message and, for the
// reasons Koord-Queue reports, a Warning event:
//   - no quota label: nothing at all (004: "no event is recorded for it");
//   - QueueNotFound: one event per unit, with the spec's message;
//   - FailedScheduling: the message and an event, again only when what limits
//     the unit changes (the amounts in CheckUsage's message change with every
//     admission, and a write per pending unit per admission would flood the API);
//   - blocked or beyond the scan depth: the message only;
//   - a policy the factory does not register: one AddQueueFail event on the
//     Queue.
func (l *admissionLoop) pending(ctx context.Context, d elasticquota.Pending) error {
	k := l.state.units[d.Unit]
	if k == nil || d.Silent {
		return nil
	}
	switch d.Reason {
	case elasticquota.QueueNotFoundReason:
		if !k.notFoundRecorded {
			l.recorder.Event(k.obj, corev1.EventTypeWarning, elasticquota.QueueNotFoundReason, d.Message)
			k.notFoundRecorded = true
		}
		return nil
	case elasticquota.ReasonAddQueueFail:
		l.queueFail(ctx, d)
		return nil
	}
	if messageStem(k.obj.Status.Message) == messageStem(d.Message) {
		return nil
	}
	next := k.obj.DeepCopy()
	now := metav1.NewTime(l.opts.Now())
	next.Status.Message = d.Message
	next.Status.LastUpdateTime = &now
	if err := l.client.Status().Update(ctx, next); err != nil {
		if apierrors.IsNotFound(err) {
			l.state.forget(d.Unit)
			return nil
		}
		return err
	}
	k.obj = next
	if d.Reason == elasticquota.ReasonFailedScheduling {
		l.recorder.Event(next, corev1.EventTypeWarning, EventFailedScheduling, d.Message)
	}
	return nil
}

// MessageReclaiming is a victim's status.message while the Job extension gives
// its replicas back, Koord-Queue's words.
const MessageReclaiming = "Waiting job extension to reclaim resources."

// preempt marks replicas of a victim for reclaim: status.admissions[].
// reclaimState, Koord-Queue's message, and a Warning event Preempted that names
// the preemptor. The Job extension then reclaims them (job_controller.go).
func (l *admissionLoop) preempt(ctx context.Context, d elasticquota.Preempt) error {
	k := l.state.units[d.Unit]
	if k == nil {
		return nil
	}
	k.reclaimFrom = admittedReplicas(k.obj)
	k.markPending = d.Replicas
	if err := l.writeMark(ctx, d.Unit, k); err != nil {
		return err
	}
	l.recorder.Event(k.obj, corev1.EventTypeWarning, elasticquota.EventPreempted, d.Message)
	l.metrics.preempted(d.Quota)
	return nil
}

// writeMark records k.markPending replicas to reclaim on the unit, taken from
// its last pod sets first (a Job has one).
func (l *admissionLoop) writeMark(ctx context.Context, key types.NamespacedName, k *knownUnit) error {
	next := k.obj.DeepCopy()
	left := k.markPending
	for i := len(next.Status.Admissions) - 1; i >= 0; i-- {
		a := &next.Status.Admissions[i]
		n := min(left, a.Replicas-a.Running)
		if n <= 0 {
			continue
		}
		a.ReclaimState = &queuev1alpha1.ReclaimState{Replicas: n}
		left -= n
	}
	now := metav1.NewTime(l.opts.Now())
	next.Status.Message = MessageReclaiming
	next.Status.LastUpdateTime = &now
	if err := l.client.Status().Update(ctx, next); err != nil {
		if apierrors.IsNotFound(err) {
			l.state.forget(key)
			return nil
		}
		if apierrors.IsConflict(err) {
			// Read it afresh, so that the retry before the next cycle can
			// succeed.
			var fresh queuev1alpha1.QueueUnit
			if gerr := l.apiReader.Get(ctx, key, &fresh); gerr == nil {
				k.obj = &fresh
			}
		}
		return err
	}
	k.obj, k.markPending = next, 0
	return nil
}

// flushMarks writes again the reclaim marks whose write failed.
func (l *admissionLoop) flushMarks(ctx context.Context) bool {
	failed := false
	for key, k := range l.state.units {
		if k.markPending > 0 {
			if err := l.writeMark(ctx, key, k); err != nil {
				failed = true
				l.log.Error(err, "marking a victim for reclaim", "queueUnit", key)
			}
		}
	}
	return failed
}

// messageStem is the part of a pending message that names what limits the
// unit, without the amounts: CheckUsage's "..., used 3 + request 2 > max 4 ..."
// keeps its quota and resource.
func messageStem(msg string) string {
	if i := strings.Index(msg, ", used "); i >= 0 {
		return msg[:i]
	}
	return msg
}

func (l *admissionLoop) queueFail(ctx context.Context, d elasticquota.Pending) {
	var q queuev1alpha1.Queue
	if err := l.client.Get(ctx, types.NamespacedName{Namespace: l.opts.Namespace, Name: d.Quota}, &q); err != nil {
		return
	}
	if l.state.queueFailRecorded[q.Name] == q.Spec.QueuePolicy {
		return
	}
	l.state.queueFailRecorded[q.Name] = q.Spec.QueuePolicy
	l.recorder.Event(&q, corev1.EventTypeWarning, EventAddQueueFail, d.Message)
}

// publishUsage writes each quota's usage onto its Queue when it changed, as
// Koord-Queue does. A Queue that does not exist yet is skipped; the next cycle
// tries again.
func (l *admissionLoop) publishUsage(ctx context.Context) {
	for _, qs := range l.state.sched.Quotas() {
		want := usedAnnotation(qs.Used)
		var q queuev1alpha1.Queue
		if err := l.client.Get(ctx, types.NamespacedName{Namespace: l.opts.Namespace, Name: qs.Name}, &q); err != nil {
			continue
		}
		if q.Annotations[QueueUsedAnnotation] == want {
			continue
		}
		patch := client.MergeFrom(q.DeepCopy())
		if q.Annotations == nil {
			q.Annotations = map[string]string{}
		}
		q.Annotations[QueueUsedAnnotation] = want
		if err := l.client.Patch(ctx, &q, patch); err != nil && !apierrors.IsNotFound(err) {
			l.log.Error(err, "publishing quota usage on its Queue", "queue", q.Name)
		}
	}
}

// usedAnnotation renders usage as Koord-Queue's Queue annotation: a JSON
// object of resource name to integer amount, in Quokka's canonical units.
func usedAnnotation(used corev1.ResourceList) string {
	m := map[corev1.ResourceName]int64{}
	for name, q := range used {
		v, err := resources.ToCanonical(name, q)
		if err == nil && v != 0 {
			m[name] = v
		}
	}
	data, _ := json.Marshal(m) // a map of strings to integers always marshals
	return string(data)
}
