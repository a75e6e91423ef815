package simulator

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
	"quokka.dev/quokka/simulator/manifest"
)

// workloadRecord is the simulator's view of one job.
type workloadRecord struct {
	key  types.NamespacedName
	name string
	src  manifest.Source
	// obj is the Workload as submitted (with UID and creation time), the input of
	// an engine rebuild.
	obj        *kueue.Workload
	localQueue types.NamespacedName
	state      WorkloadState
	// cq is the ClusterQueue holding the job's quota while it is admitted.
	cq string
	// pendingCQ is the ClusterQueue whose queue length counts the job while it is
	// pending ("" when its LocalQueue does not exist yet).
	pendingCQ  string
	queuedAt   time.Duration
	admittedAt time.Duration
	runtime    time.Duration
	hasRuntime bool
	// runtimeAssumed: runtime is a guess (manifest.Document.RuntimeAssumed).
	runtimeAssumed bool
	// completions is a Job's spec.completions (0 for a Workload, or a Job
	// without it): its pods run in waves of the admitted count, and the
	// last wave's idle pods are reclaimable (jobwaves.go).
	completions int32
	// reclaimable is how many of the admitted pods are reclaimable now.
	reclaimable int32
	// podsReadyAfter is how long the job's pods take to be ready once it is
	// admitted; podsReady tells that they are, in its current admission.
	podsReadyAfter time.Duration
	podsReady      bool
	// requeue is status.requeueState after PodsReady timeouts, and
	// timedOutAt the time of the last one (timedOut), which orders the job
	// in its queue when the Configuration says so (podsready.go).
	requeue    *kueue.RequeueState
	timedOut   bool
	timedOutAt time.Duration
	// gen changes at every admission, so that the finish timer of an earlier
	// admission is recognised as stale.
	gen     uint64
	usage   resources.Amounts
	podSets []PodSetAssignment
	flavors Flavors
	reason  string
	message string
}

func (w *workloadRecord) clusterQueue() string {
	if w.state == StateAdmitted {
		return w.cq
	}
	return w.pendingCQ
}

// submit applies a Workload or Job document: the job enters its queue, or starts
// admitted when its Workload carries status.admission.
func (s *sim) submit(d *manifest.Document) error {
	wl := d.Workload.DeepCopy()
	s.stamp(&wl.ObjectMeta, d.Key)
	if d.Key.Kind == manifest.KindJob && !s.namespaceManaged(wl.Namespace) {
		// Kueue's ManagedJobsNamespaceSelectorAlwaysRespected (GA): its Job
		// integration manages no Job there, labelled or not.
		return fmt.Errorf("metadata.namespace: Invalid value: %q: at %s the Configuration's managedJobsNamespaceSelector does not match the Job's namespace: Kueue would not manage it, and the simulator runs only managed Jobs",
			wl.Namespace, formatDuration(s.now))
	}
	if d.Key.Kind == manifest.KindJob && wl.Spec.QueueName == "" {
		if err := s.queueUnlabelledJob(wl); err != nil {
			return err
		}
	}
	if d.Key.Kind == manifest.KindJob {
		s.defaultPriorityClass(wl)
	}
	key := types.NamespacedName{Namespace: wl.Namespace, Name: wl.Name}
	if ref := wl.Spec.PriorityClassRef; ref != nil && ref.Kind == "WorkloadPriorityClass" {
		if _, ok := s.world.wpcs[ref.Name]; !ok {
			return fmt.Errorf("WorkloadPriorityClass %q does not exist at %s; apply it before (or at the same time as) the job", ref.Name, formatDuration(s.now))
		}
	}
	if prev, ok := s.workloads[key]; ok {
		// A replacement resubmits the job: the old one leaves, releasing its
		// quota if it held any.
		s.forget(prev)
	}
	s.ensureNamespace(wl.Namespace)
	w := &workloadRecord{
		key: key, name: key.Namespace + "/" + key.Name, src: d.Source, obj: wl,
		localQueue: types.NamespacedName{Namespace: wl.Namespace, Name: string(wl.Spec.QueueName)},
		runtime:    d.Runtime, hasRuntime: d.HasRuntime, runtimeAssumed: d.RuntimeAssumed,
		completions: jobCompletions(d), podsReadyAfter: d.PodsReadyAfter,
	}
	if adm := wl.Status.Admission; adm != nil {
		if _, ok := s.world.cqs[string(adm.ClusterQueue)]; !ok {
			return fmt.Errorf("status.admission.clusterQueue: ClusterQueue %q does not exist at %s", adm.ClusterQueue, formatDuration(s.now))
		}
		podSets, err := presetAssignments(wl)
		if err != nil {
			return err
		}
		if err := s.engine.UpsertWorkload(wl); err != nil {
			return err
		}
		s.workloads[key] = w
		s.record(Event{Type: Submitted, Workload: w.name, ClusterQueue: string(adm.ClusterQueue)})
		s.admitted(w, string(adm.ClusterQueue), podSets, false, true)
		return nil
	}
	if err := s.engine.UpsertWorkload(wl); err != nil {
		return err
	}
	s.workloads[key] = w
	s.queue(w)
	s.record(Event{Type: Submitted, Workload: w.name, ClusterQueue: w.pendingCQ})
	return nil
}

// queue makes w pending from now on.
func (s *sim) queue(w *workloadRecord) {
	w.state = StatePending
	w.queuedAt = s.now
	w.pendingCQ = s.world.clusterQueueOf(w.localQueue)
	s.acct.addPending(w.pendingCQ, s.now, 1)
	s.counts.Pending++
}

// admitted records an admission made by the engine (or preset in the manifest).
func (s *sim) admitted(w *workloadRecord, cq string, podSets []PodSetAssignment, borrowing, preset bool) {
	if w.state == StatePending {
		s.acct.addPending(w.pendingCQ, s.now, -1)
		s.counts.Pending--
		if !preset {
			acc := s.acct.queue(cq, s.now)
			acc.Waits = append(acc.Waits, s.now-w.queuedAt)
		}
	}
	w.state, w.cq, w.admittedAt = StateAdmitted, cq, s.now
	w.podSets, w.flavors = podSets, flavorsOf(podSets)
	w.usage = usageOf(podSets)
	w.reason, w.message = "", ""
	w.gen++
	s.acct.charge(cq, s.now, w.usage)
	s.acct.queue(cq, s.now).Admitted++
	s.counts.Running++
	if w.hasRuntime {
		s.timers.add(s.now+w.runtime, w.key, w.gen)
		s.setLastWaveTimer(w)
	}
	s.startKueuePods(w)
	s.record(Event{Type: Admitted, Workload: w.name, ClusterQueue: cq, Flavors: w.flavors, Borrowing: borrowing, Preset: preset,
		PodCounts: workload.ReducedCounts(w.obj, podSets)})
}

// evicted returns an admitted job to its queue: it lost its quota to a preemption
// (preemptor set) or to a stop policy, and restarts from zero when admitted again.
func (s *sim) evicted(w *workloadRecord, typ EventType, reason, message, preemptor string) {
	if w.state != StateAdmitted {
		return
	}
	s.engine.EvictWorkload(w.key)
	s.forgetReclaimable(w)
	s.accumulateExecution(w)
	cq := w.cq
	s.acct.release(cq, s.now, w.usage)
	acc := s.acct.queue(cq, s.now)
	if typ == Preempted {
		acc.Preempted++
	} else {
		acc.Evicted++
	}
	s.counts.Running--
	w.usage, w.podSets, w.flavors = nil, nil, nil
	w.gen++
	s.queue(w)
	w.reason, w.message = reason, message
	s.record(Event{Type: typ, Workload: w.name, ClusterQueue: cq, Reason: reason, Message: message, Preemptor: preemptor})
}

// deactivate carries out a Deactivate decision as the manager's three writes
// end up: the job is evicted (reason DeactivatedDueTo<reason>, Kueue's
// words), gets spec.active=false, and waits in its queue, inactive, until the
// end of the run. Its finish timer is void.
func (s *sim) deactivate(w *workloadRecord, reason, message string) error {
	s.evicted(w, Evicted, kueue.WorkloadDeactivated+"DueTo"+reason, "The workload is deactivated due to "+message, "")
	obj := w.obj.DeepCopy()
	obj.Spec.Active = ptr.To(false)
	obj.Status = kueue.WorkloadStatus{}
	w.obj = obj
	if err := s.engine.UpsertWorkload(pendingWorkload(w, s.clock)); err != nil {
		return fmt.Errorf("at %s deactivating %s: %w", formatDuration(s.now), w.name, err)
	}
	return nil
}

// accumulateExecution adds the admission that ends now to the job's
// status.accumulatedPastExecutionTimeSeconds, in whole seconds as Kueue counts
// it, and tells the engine, which counts it against the maximum execution
// time. Only jobs with such a maximum need it.
func (s *sim) accumulateExecution(w *workloadRecord) {
	if w.obj.Spec.MaximumExecutionTimeSeconds == nil {
		return
	}
	obj := w.obj.DeepCopy()
	obj.Status = kueue.WorkloadStatus{}
	d := int32((s.now - w.admittedAt) / time.Second)
	obj.Status.AccumulatedPastExecutionTimeSeconds = ptr.To(ptr.Deref(w.obj.Status.AccumulatedPastExecutionTimeSeconds, 0) + d)
	w.obj = obj
	// The same object but for the status field: it converted before.
	_ = s.engine.UpsertWorkload(pendingWorkload(w, s.clock))
}

// finish ends a job whose runtime is over, unless the timer belongs to an earlier
// admission.
func (s *sim) finish(t finishTimer) {
	w, ok := s.workloads[t.key]
	if !ok || w.state != StateAdmitted || w.gen != t.gen {
		return
	}
	s.engine.FinishWorkload(w.key)
	s.acct.release(w.cq, s.now, w.usage)
	s.acct.queue(w.cq, s.now).Finished++
	s.counts.Running--
	s.counts.Finished++
	w.state = StateFinished
	s.record(Event{Type: Finished, Workload: w.name, ClusterQueue: w.cq, Flavors: w.flavors})
}

// forget removes a job that a later document replaces.
func (s *sim) forget(w *workloadRecord) {
	s.engine.DeleteWorkload(w.key)
	switch w.state {
	case StateAdmitted:
		s.acct.release(w.cq, s.now, w.usage)
		s.counts.Running--
	case StatePending:
		s.acct.addPending(w.pendingCQ, s.now, -1)
		s.counts.Pending--
	}
	w.gen++
	delete(s.workloads, w.key)
}

// recountPending recomputes which ClusterQueue each pending job waits for, after
// a LocalQueue appeared.
func (s *sim) recountPending() {
	for _, w := range s.workloads {
		if w.state != StatePending {
			continue
		}
		cq := s.world.clusterQueueOf(w.localQueue)
		if cq == w.pendingCQ {
			continue
		}
		s.acct.addPending(w.pendingCQ, s.now, -1)
		s.acct.addPending(cq, s.now, 1)
		w.pendingCQ = cq
	}
}

func (s *sim) record(e Event) {
	e.Time = s.now
	s.events = append(s.events, e)
}

// flavorsOf lists the flavor of every resource of every pod set.
func flavorsOf(podSets []PodSetAssignment) Flavors {
	out := Flavors{}
	for _, ps := range podSets {
		m := make(map[corev1.ResourceName]string, len(ps.Flavors))
		for r, f := range ps.Flavors {
			m[r] = f
		}
		out[ps.Name] = m
	}
	return out
}

// usageOf is the quota an admission charges, per flavor and resource.
func usageOf(podSets []PodSetAssignment) resources.Amounts {
	out := resources.Amounts{}
	for _, ps := range podSets {
		for r, v := range ps.Usage {
			fr := resources.FlavorResource{Flavor: ps.Flavors[r], Resource: r}
			out[fr] = resources.Add(out[fr], v)
		}
	}
	return out
}

// presetAssignments reads a Workload's status.admission into assignments: the
// flavors as written, and the usage from resourceUsage when given, otherwise from
// count × the pod set's per-pod requests.
func presetAssignments(wl *kueue.Workload) ([]PodSetAssignment, error) {
	podSets := map[kueue.PodSetReference]*kueue.PodSet{}
	for i := range wl.Spec.PodSets {
		podSets[wl.Spec.PodSets[i].Name] = &wl.Spec.PodSets[i]
	}
	var out []PodSetAssignment
	for i, psa := range wl.Status.Admission.PodSetAssignments {
		name := psa.Name
		if name == "" {
			name = kueue.DefaultPodSetName
		}
		ps := podSets[name]
		count := ps.Count
		if psa.Count != nil {
			count = *psa.Count
		}
		a := PodSetAssignment{Name: string(name), Count: count, Flavors: map[corev1.ResourceName]string{}, Usage: resources.Requests{}}
		for r, f := range psa.Flavors {
			a.Flavors[r] = string(f)
		}
		usage := psa.ResourceUsage
		if len(usage) == 0 {
			usage = corev1.ResourceList{}
			for r, q := range manifest.PodRequests(&ps.Template.Spec) {
				v, err := resources.ToCanonical(r, q)
				if err != nil {
					return nil, fmt.Errorf("status.admission.podSetAssignments[%d]: %w", i, err)
				}
				usage[r] = resources.ToQuantity(r, resources.Mul(v, int64(count)))
			}
		}
		names := make([]corev1.ResourceName, 0, len(usage))
		for r := range usage {
			names = append(names, r)
		}
		sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
		for _, r := range names {
			if _, ok := a.Flavors[r]; !ok {
				return nil, fmt.Errorf("status.admission.podSetAssignments[%d].flavors: Required value: pod set %q uses %s but no flavor is assigned to it", i, name, r)
			}
			v, err := resources.ToCanonical(r, usage[r])
			if err != nil {
				return nil, fmt.Errorf("status.admission.podSetAssignments[%d].resourceUsage[%s]: %w", i, r, err)
			}
			a.Usage[r] = v
		}
		out = append(out, a)
	}
	return out, nil
}

// queueUnlabelledJob decides the LocalQueue of a Job submitted without the
// queue-name label, as Kueue's Job webhook would when it is created: its
// namespace's LocalQueue named "default" when there is one (Kueue's
// LocalQueueDefaulting); else, with the Configuration's
// manageJobsWithoutQueueName and a namespace managedJobsNamespaceSelector
// matches, none, so that it waits as Kueue's Workload without a LocalQueue
// does; otherwise Kueue would not manage the Job, and the simulator, which
// runs only managed Jobs, says so.
func (s *sim) queueUnlabelledJob(wl *kueue.Workload) error {
	if _, ok := s.world.lqs[types.NamespacedName{Namespace: wl.Namespace, Name: defaultLocalQueue}]; ok {
		wl.Spec.QueueName = defaultLocalQueue
		if wl.Labels == nil {
			wl.Labels = map[string]string{}
		}
		wl.Labels[kueue.QueueNameLabel] = defaultLocalQueue
		return nil
	}
	if s.config != nil && s.config.ManageJobsWithoutQueueName && s.namespaceManaged(wl.Namespace) {
		return nil
	}
	return fmt.Errorf("metadata.labels[%s]: Required value: at %s the Job names no LocalQueue, namespace %q has no LocalQueue %q, and the Configuration does not manage Jobs without a queue name there (manageJobsWithoutQueueName): Kueue would not manage it, and the simulator runs only managed Jobs",
		kueue.QueueNameLabel, formatDuration(s.now), wl.Namespace, defaultLocalQueue)
}

// defaultPriorityClass gives the Workload of a Job submitted without the
// priority-class label the WorkloadPriorityClass named "default", when it
// exists then, as Kueue's Job webhook does with its
// WorkloadPriorityClassDefaulting gate (on by default; the manager's Job
// webhook does the same).
func (s *sim) defaultPriorityClass(wl *kueue.Workload) {
	if wl.Labels[kueue.PriorityClassLabel] != "" || !s.config.FeatureGate(configv1beta2.FeatureWorkloadPriorityClassDefaulting) {
		return
	}
	if _, ok := s.world.wpcs[kueue.DefaultWorkloadPriorityClass]; !ok {
		return
	}
	if wl.Labels == nil {
		wl.Labels = map[string]string{}
	}
	wl.Labels[kueue.PriorityClassLabel] = kueue.DefaultWorkloadPriorityClass
	wl.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup,
		Kind: kueue.WorkloadPriorityClassKind, Name: kueue.DefaultWorkloadPriorityClass}
}

// defaultLocalQueue is the LocalQueue Kueue gives a Job without the
// queue-name label when its namespace has one of that name.
const defaultLocalQueue = "default"

// namespaceManaged tells whether the Configuration's
// managedJobsNamespaceSelector matches the namespace's labels as they are now.
func (s *sim) namespaceManaged(ns string) bool {
	sel := s.config.ManagedNamespaces()
	if sel == nil {
		return true
	}
	return sel.Matches(labels.Set(s.namespaceLabels(ns)))
}

// namespaceLabels are a namespace's labels as the API server has them: its
// own (none for a namespace no document declares) and
// kubernetes.io/metadata.name.
func (s *sim) namespaceLabels(name string) map[string]string {
	out := map[string]string{corev1.LabelMetadataName: name}
	if ns, ok := s.world.namespaces[name]; ok {
		for k, v := range ns.Labels {
			out[k] = v
		}
	}
	return out
}
