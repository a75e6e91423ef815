package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// kueuePlayer plays scenarios against Kueue's scheduler (minimalkueue) through
// the API server, in the role Kueue's own performance runner plays: it creates
// the objects, finishes workloads, and completes each eviction Kueue starts
// (minimalkueue has no job integration to do it), as the runner does.
type kueuePlayer struct {
	c client.Client
	// quiet is how long the namespace's Workloads must stay unchanged for an
	// event to count as settled. It must exceed Kueue's batching of the
	// requeues of inadmissible workloads (1 s in v0.17.0,
	// pkg/cache/queue/inadmissible_workloads.go), which a finish or an
	// eviction triggers.
	quiet   time.Duration
	timeout time.Duration
	// seenEvents are the Events already reported, by UID.
	seenEvents map[types.UID]bool
	// lastCreate is when the last workload was created: creation timestamps
	// have a resolution of one second, and both schedulers order equal ones
	// by something the other does not see, so no two workloads may share one.
	lastCreate time.Time
}

// kueueStep is one event as Kueue decided it.
type kueueStep struct {
	// before is the namespace's Workloads, settled, before the event.
	before []kueue.Workload
	// created is the workload the event created, as stored; finished the one
	// it finished (both empty when a finish found nothing admitted).
	created  *kueue.Workload
	finished string
	// reclaimed is the workload a reclaim event gave one more reclaimable
	// pod, with its status.reclaimablePods as written.
	reclaimed   string
	reclaimable []kueue.ReclaimablePod
	// changed is the workload whose spec the event changed (a priority
	// change, or with toggle its spec.active flipped), as stored after
	// the change; change says what was done, for the report.
	changed *kueue.Workload
	change  string
	// after maps each workload admitted once the event settled to its
	// admission (see admissionOf); evicted lists, in name order, the
	// workloads whose eviction the player completed meanwhile.
	after   map[string]string
	evicted []string
	// events are Kueue's Events about the namespace's objects while the
	// event settled, in order, one line each.
	events []string
}

// setup creates the scenario's namespace, flavors, Cohorts, ClusterQueues and
// LocalQueues, waits until Kueue reports every ClusterQueue active, and
// replaces the scenario's objects with the stored ones (defaults applied), which
// is what Quokka's engine is given.
func (k *kueuePlayer) setup(ctx context.Context, sc *scenario) error {
	if err := k.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sc.name}}); err != nil {
		return fmt.Errorf("namespace %s: %w", sc.name, err)
	}
	for _, rf := range sc.allFlavors() {
		if err := k.c.Create(ctx, rf); err != nil {
			return fmt.Errorf("ResourceFlavor %s: %w", rf.Name, err)
		}
	}
	for _, wpc := range sc.classes {
		if err := k.c.Create(ctx, wpc); err != nil {
			return fmt.Errorf("WorkloadPriorityClass %s: %w", wpc.Name, err)
		}
	}
	for _, c := range sc.cohorts {
		if err := k.c.Create(ctx, c); err != nil {
			return fmt.Errorf("Cohort %s: %w", c.Name, err)
		}
	}
	for _, cq := range sc.cqs {
		if err := k.c.Create(ctx, cq); err != nil {
			return fmt.Errorf("ClusterQueue %s: %w", cq.Name, err)
		}
	}
	for _, lq := range sc.lqs {
		if err := k.c.Create(ctx, lq); err != nil {
			return fmt.Errorf("LocalQueue %s: %w", lq.Name, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, k.timeout, true, func(ctx context.Context) (bool, error) {
		for _, cq := range sc.cqs {
			if err := k.c.Get(ctx, client.ObjectKeyFromObject(cq), cq); err != nil {
				return false, err
			}
			if !apimeta.IsStatusConditionTrue(cq.Status.Conditions, kueue.ClusterQueueActive) {
				return false, nil
			}
		}
		return true, nil
	})
}

// play applies one event and waits until Kueue has settled it.
func (k *kueuePlayer) play(ctx context.Context, sc *scenario, ev scenarioEvent) (*kueueStep, error) {
	before, err := k.workloads(ctx, sc.name)
	if err != nil {
		return nil, err
	}
	step := &kueueStep{before: before}
	if ev.create != nil {
		if wait := time.Until(k.lastCreate.Truncate(time.Second).Add(time.Second)); wait > 0 {
			time.Sleep(wait)
		}
		wl := ev.create.DeepCopy()
		if err := k.c.Create(ctx, wl); err != nil {
			return nil, fmt.Errorf("creating Workload %s: %w", wl.Name, err)
		}
		k.lastCreate = time.Now()
		step.created = wl
	} else if ev.reclaim {
		if err := k.reclaim(ctx, sc, before, ev.pick, step); err != nil {
			return nil, err
		}
	} else if ev.reprioritize || ev.toggle {
		if err := k.changeSpec(ctx, sc, before, ev, step); err != nil {
			return nil, err
		}
	} else if admitted := admittedNames(before); len(admitted) > 0 {
		step.finished = admitted[ev.pick%len(admitted)]
		if err := k.finish(ctx, types.NamespacedName{Namespace: sc.name, Name: step.finished}); err != nil {
			return nil, err
		}
	}
	after, evicted, err := k.settle(ctx, sc.name)
	if err != nil {
		return nil, err
	}
	step.after, step.evicted = admissions(after), evicted
	if step.events, err = k.newEvents(ctx, sc.name); err != nil {
		return nil, err
	}
	return step, nil
}

// newEvents lists the namespace's Events not listed before, in the order they
// happened, as "time object reason: message".
func (k *kueuePlayer) newEvents(ctx context.Context, ns string) ([]string, error) {
	var list corev1.EventList
	if err := k.c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing Events in %s: %w", ns, err)
	}
	if k.seenEvents == nil {
		k.seenEvents = map[types.UID]bool{}
	}
	at := func(e *corev1.Event) time.Time {
		if !e.EventTime.IsZero() {
			return e.EventTime.Time
		}
		return e.LastTimestamp.Time
	}
	var fresh []*corev1.Event
	for i := range list.Items {
		if e := &list.Items[i]; !k.seenEvents[e.UID] {
			k.seenEvents[e.UID] = true
			fresh = append(fresh, e)
		}
	}
	sort.SliceStable(fresh, func(i, j int) bool { return at(fresh[i]).Before(at(fresh[j])) })
	out := make([]string, len(fresh))
	for i, e := range fresh {
		out[i] = fmt.Sprintf("%s %s %s: %s", at(e).UTC().Format("15:04:05.000"), e.InvolvedObject.Name, e.Reason, e.Message)
	}
	return out, nil
}

// settle completes evictions as they come and returns once the namespace's
// Workloads have been unchanged for k.quiet, or what they decide (see
// decisionSignature) for churnQuiet while a status keeps being rewritten.
func (k *kueuePlayer) settle(ctx context.Context, ns string) ([]kueue.Workload, []string, error) {
	deadline := time.Now().Add(k.timeout)
	var evicted []string
	lastSig, lastChange := "", time.Now()
	lastDecisions, lastDecisionChange := "", time.Now()
	for {
		wls, err := k.workloads(ctx, ns)
		if err != nil {
			return nil, nil, err
		}
		var sig, decisions strings.Builder
		completed := false
		for i := range wls {
			wl := &wls[i]
			sig.WriteString(wl.Name + "@" + wl.ResourceVersion + ";")
			decisions.WriteString(decisionSignature(wl))
			if wl.Status.Admission != nil && apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadEvicted) {
				if err := k.completeEviction(ctx, wl); err != nil {
					return nil, nil, err
				}
				evicted = append(evicted, wl.Name)
				completed = true
			}
		}
		now := time.Now()
		if completed || sig.String() != lastSig {
			lastSig, lastChange = sig.String(), now
		}
		if completed || decisions.String() != lastDecisions {
			lastDecisions, lastDecisionChange = decisions.String(), now
		}
		if !completed && (now.Sub(lastChange) >= k.quiet || now.Sub(lastDecisionChange) >= churnQuiet) {
			sort.Strings(evicted)
			return wls, evicted, nil
		}
		if now.After(deadline) {
			return nil, nil, &unsettled{ns: ns, after: k.timeout, evicted: evicted}
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// churnQuiet is how long what a namespace's Workloads decide must stay
// unchanged for settle to return while their statuses keep changing: Kueue
// v0.17.0 was seen rewriting one pending workload's status 4,540 times in two
// minutes, its decisions unchanged (dec-51, two resources). Five times the
// quiet time, so that Kueue's requeues a second after a release are over.
const churnQuiet = 5 * decisionsSettle

// decisionSignature is what a Workload decides: its admission (with its
// count), and the status and reason of its QuotaReserved, Evicted and
// Finished conditions, not a pending workload's message.
func decisionSignature(wl *kueue.Workload) string {
	var b strings.Builder
	b.WriteString(wl.Name + "=" + admissionOf(wl))
	for _, t := range []string{kueue.WorkloadQuotaReserved, kueue.WorkloadEvicted, kueue.WorkloadFinished} {
		if c := apimeta.FindStatusCondition(wl.Status.Conditions, t); c != nil {
			b.WriteString("," + t + ":" + string(c.Status) + ":" + c.Reason)
		}
	}
	b.WriteString(";")
	return b.String()
}

// completeEviction does what Kueue's runner does for an evicted workload
// (workload.UnsetQuotaReservationWithCondition): QuotaReserved=False with
// reason Pending, no admission, Admitted=False.
func (k *kueuePlayer) completeEviction(ctx context.Context, wl *kueue.Workload) error {
	return k.patchStatus(ctx, wl, func(wl *kueue.Workload) {
		now := metav1.Now()
		apimeta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
			Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending",
			Message: "Evicted by the test runner", LastTransitionTime: now, ObservedGeneration: wl.Generation,
		})
		wl.Status.Admission = nil
		if apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) {
			apimeta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
				Type: kueue.WorkloadAdmitted, Status: metav1.ConditionFalse, Reason: "NoReservation",
				Message: "The workload has no reservation", LastTransitionTime: now, ObservedGeneration: wl.Generation,
			})
		}
	})
}

// reclaim marks one more pod reclaimable of the pick-th admitted workload that
// has a pod not yet reclaimable and more than one pod, as a job integration
// does when a Job's remaining completions need fewer pods; nothing happens
// when there is none.
func (k *kueuePlayer) reclaim(ctx context.Context, sc *scenario, before []kueue.Workload, pick int, step *kueueStep) error {
	var candidates []*kueue.Workload
	for i := range before {
		wl := &before[i]
		if admissionOf(wl) != "" && wl.Spec.PodSets[0].Count > 1 && reclaimableCount(wl) < wl.Spec.PodSets[0].Count {
			candidates = append(candidates, wl)
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	wl := candidates[pick%len(candidates)].DeepCopy()
	rp := []kueue.ReclaimablePod{{Name: wl.Spec.PodSets[0].Name, Count: reclaimableCount(wl) + 1}}
	if err := k.patchStatus(ctx, wl, func(wl *kueue.Workload) { wl.Status.ReclaimablePods = rp }); err != nil {
		return err
	}
	step.reclaimed, step.reclaimable = wl.Name, rp
	return nil
}

// changeSpec changes the spec of the pick-th workload not finished, pending
// or admitted: a priority change moves it to another WorkloadPriorityClass
// (see scenarioEvent), changing its priorityClassRef and spec.priority
// together, as Kueue's job integrations do when a Job's priority-class label
// changes; a toggle flips its spec.active, as a user or an integration
// deactivating or reactivating a Job does. Nothing happens when every
// workload has finished.
func (k *kueuePlayer) changeSpec(ctx context.Context, sc *scenario, before []kueue.Workload, ev scenarioEvent, step *kueueStep) error {
	var live []*kueue.Workload
	for i := range before {
		if !apimeta.IsStatusConditionTrue(before[i].Status.Conditions, kueue.WorkloadFinished) {
			live = append(live, &before[i])
		}
	}
	if len(live) == 0 {
		return nil
	}
	wl := live[ev.pick%len(live)].DeepCopy()
	orig := wl.DeepCopy()
	if ev.toggle {
		active := !ptr.Deref(wl.Spec.Active, true)
		wl.Spec.Active = ptr.To(active)
		step.change = "deactivate " + wl.Name
		if active {
			step.change = "reactivate " + wl.Name
		}
	} else {
		from := ptr.Deref(wl.Spec.Priority, 0)
		p := shifted(from, ev.shift)
		wl.Spec.Priority = ptr.To(p)
		wl.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: sc.className(p)}
		step.change = fmt.Sprintf("priority of %s %d → %d", wl.Name, from, p)
	}
	if err := k.c.Patch(ctx, wl, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("changing the spec of Workload %s (%s): %w", wl.Name, step.change, err)
	}
	step.changed = wl
	return nil
}

// reclaimableCount is the reclaimable pods of a workload's one pod set.
func reclaimableCount(wl *kueue.Workload) int32 {
	for _, rp := range wl.Status.ReclaimablePods {
		if rp.Name == wl.Spec.PodSets[0].Name {
			return rp.Count
		}
	}
	return 0
}

// finish marks a workload Finished, as the runner does when its runtime is up.
func (k *kueuePlayer) finish(ctx context.Context, key types.NamespacedName) error {
	var wl kueue.Workload
	if err := k.c.Get(ctx, key, &wl); err != nil {
		return fmt.Errorf("finishing Workload %s: %w", key, err)
	}
	return k.patchStatus(ctx, &wl, func(wl *kueue.Workload) {
		apimeta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
			Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue, Reason: "ByTest",
			Message: "By test runner", LastTransitionTime: metav1.Now(), ObservedGeneration: wl.Generation,
		})
	})
}

// patchStatus changes a Workload's status with a merge patch guarded by its
// resourceVersion, retrying on conflict. A patch, not an update: Quokka's
// types do not have every field Kueue writes into a Workload's status, and an
// update would drop the others.
func (k *kueuePlayer) patchStatus(ctx context.Context, wl *kueue.Workload, change func(*kueue.Workload)) error {
	key := client.ObjectKeyFromObject(wl)
	for attempt := 0; ; attempt++ {
		orig := wl.DeepCopy()
		change(wl)
		err := k.c.Status().Patch(ctx, wl, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		if err == nil || !apierrors.IsConflict(err) || attempt == 5 {
			if err != nil {
				return fmt.Errorf("patching the status of Workload %s: %w", key, err)
			}
			return nil
		}
		if err := k.c.Get(ctx, key, wl); err != nil {
			return fmt.Errorf("patching the status of Workload %s: %w", key, err)
		}
	}
}

// workloads lists the namespace's Workloads in name order.
func (k *kueuePlayer) workloads(ctx context.Context, ns string) ([]kueue.Workload, error) {
	var list kueue.WorkloadList
	if err := k.c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing Workloads in %s: %w", ns, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items, nil
}

// admissionOf is a workload's admission as "clusterQueue/flavor" (one pod set
// of one resource, as every scenario has), with "×n" when it got n pods of
// more (partial admission), or "" when it holds no quota.
func admissionOf(wl *kueue.Workload) string {
	if wl.Status.Admission == nil || !apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved) ||
		apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
		return ""
	}
	psa := wl.Status.Admission.PodSetAssignments[0]
	count := wl.Spec.PodSets[0].Count
	return admissionString(string(wl.Status.Admission.ClusterQueue), psa.Flavors[corev1.ResourceCPU], psa.Flavors[corev1.ResourceMemory],
		ptr.Deref(psa.Count, count), count)
}

// admissionString is "clusterQueue/flavor", with "+memoryFlavor" when memory
// has a flavor of its own (another resource group), and "×count" when count
// is below the pod set's full count.
func admissionString[F ~string](cq string, flavor, memory F, count, full int32) string {
	s := cq + "/" + string(flavor)
	if memory != "" && memory != flavor {
		s += "+" + string(memory)
	}
	if count < full {
		s += fmt.Sprintf("×%d", count)
	}
	return s
}

// admissions maps each workload holding quota to its admission.
func admissions(wls []kueue.Workload) map[string]string {
	out := map[string]string{}
	for i := range wls {
		if a := admissionOf(&wls[i]); a != "" {
			out[wls[i].Name] = a
		}
	}
	return out
}

// admittedNames lists the workloads holding quota, in name order.
func admittedNames(wls []kueue.Workload) []string {
	var out []string
	for i := range wls {
		if admissionOf(&wls[i]) != "" {
			out = append(out, wls[i].Name)
		}
	}
	return out
}
