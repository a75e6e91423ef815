package simulator

import (
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/simulator/manifest"
)

// replay feeds a freshly built engine every object of the world, the way a
// restarted manager's informers would: queues first, then the workloads, the
// admitted ones with the admission they hold. The timeline is not touched: for the
// jobs nothing happened.
func (s *sim) replay() error {
	for _, name := range sortedNames(s.world.flavors) {
		s.engine.UpsertResourceFlavor(s.world.flavors[name])
	}
	for _, name := range sortedNames(s.world.namespaces) {
		ns := s.world.namespaces[name]
		s.engine.UpsertNamespace(ns.Name, namespaceLabels(ns))
	}
	for _, name := range sortedNames(s.world.implicitNS) {
		s.engine.UpsertNamespace(name, nil)
	}
	for _, ns := range sortedNames(s.world.limitRanges) {
		s.engine.SetLimitRanges(ns, s.world.limitRangesOf(ns))
	}
	for _, name := range sortedNames(s.world.runtimeClasses) {
		s.engine.UpsertRuntimeClass(name, s.world.runtimeClasses[name])
	}
	for _, name := range sortedNames(s.world.wpcs) {
		s.engine.UpsertWorkloadPriorityClass(name, s.world.wpcs[name])
	}
	if err := s.replayPreemptionConfigs(); err != nil {
		return err
	}
	for _, c := range s.world.sortedCohorts() {
		if err := s.engine.UpsertCohort(c.obj); err != nil {
			return &manifest.Error{Source: c.src, Object: "Cohort " + c.obj.Name, Err: err}
		}
	}
	for _, cq := range s.world.sortedClusterQueues() {
		if err := s.upsertClusterQueue(cq.obj, cq.src); err != nil {
			return err
		}
	}
	lqKeys := make([]string, 0, len(s.world.lqs))
	byKey := map[string]*live[kueue.LocalQueue]{}
	for k, lq := range s.world.lqs {
		lqKeys = append(lqKeys, k.String())
		byKey[k.String()] = lq
	}
	sort.Strings(lqKeys)
	for _, k := range lqKeys {
		s.engine.UpsertLocalQueue(byKey[k].obj)
	}
	names := make([]string, 0, len(s.workloads))
	byName := map[string]*workloadRecord{}
	for _, w := range s.workloads {
		names = append(names, w.name)
		byName[w.name] = w
	}
	sort.Strings(names)
	for _, n := range names {
		w := byName[n]
		var wl *kueue.Workload
		switch w.state {
		case StateFinished:
			continue
		case StateAdmitted:
			wl = admittedWorkload(w, s.clock(w.admittedAt))
		default:
			wl = pendingWorkload(w, s.clock)
		}
		if err := s.engine.UpsertWorkload(wl); err != nil {
			return &manifest.Error{Source: w.src, Object: "Workload " + w.name, Err: err}
		}
	}
	return nil
}

// admittedWorkload is the Workload of a running job as the API server would hold
// it: with status.admission, QuotaReserved=True and Admitted=True since at (the
// engine counts maximum execution time from the latter), the execution time
// of its earlier admissions, and its reclaimable pods.
func admittedWorkload(w *workloadRecord, at time.Time) *kueue.Workload {
	wl := w.obj.DeepCopy()
	wl.Status = kueue.WorkloadStatus{
		Admission:                           decision.AdmissionOf(w.cq, w.podSets),
		AccumulatedPastExecutionTimeSeconds: w.obj.Status.AccumulatedPastExecutionTimeSeconds,
	}
	if w.requeue != nil {
		// The count of PodsReady timeouts so far; the back-off ended with
		// the admission.
		wl.Status.RequeueState = &kueue.RequeueState{Count: w.requeue.Count}
	}
	since := metav1.NewTime(at)
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
		Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue, Reason: "QuotaReserved",
		Message: "Quota reserved in ClusterQueue " + w.cq, LastTransitionTime: since,
	})
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
		Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue, Reason: "Admitted",
		Message: "The workload is admitted", LastTransitionTime: since,
	})
	if w.podsReady {
		meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
			Type: kueue.WorkloadPodsReady, Status: metav1.ConditionTrue, Reason: kueue.WorkloadStarted,
			Message: "All pods reached readiness and the workload is running", LastTransitionTime: since,
		})
	}
	if w.reclaimable > 0 && len(w.podSets) == 1 {
		wl.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: kueue.PodSetReference(w.podSets[0].Name), Count: w.reclaimable}}
	}
	return wl
}
