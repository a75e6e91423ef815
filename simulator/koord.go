package simulator

import (
	"fmt"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
	"quokka.dev/quokka/simulator/manifest"
)

// koordState is the Koord-Queue half of a run: ElasticQuotas and the jobs that
// carry the quota label instead of a LocalQueue (manifest.IsKoordUnit). They go
// through engine/elasticquota's Scheduler, never through the Kueue engine, so a
// Configuration that restarts the Kueue engine leaves them alone.
type koordState struct {
	sched *elasticquota.Scheduler
	units map[types.NamespacedName]*koordUnit
	// gen numbers admissions across all units, so that the finish timer of an
	// earlier admission, or of a replaced unit, is recognised as stale.
	gen uint64
	// startup holds the units' pod start-up delays (koord_startup.go).
	startup koordStartup
}

// koordUnit is the simulator's view of one Koord-Queue unit.
type koordUnit struct {
	key  types.NamespacedName
	name string
	// quota is what the label names ("" for an empty label); admittedTo is the
	// quota an admission charged.
	quota      string
	admittedTo string
	state      WorkloadState
	runtime    time.Duration
	hasRuntime bool
	gen        uint64
	reason     string
	message    string
}

func newKoordState(rate elasticquota.OversellRate) *koordState {
	return &koordState{sched: elasticquota.NewScheduler(rate), units: map[types.NamespacedName]*koordUnit{}}
}

// submitJob routes a job to Koord-Queue or to Kueue. A job replaced by a
// document of the same key leaves whichever side held it. A QueueUnit is
// Koord-Queue's; a batch/v1 Job with a quota label and no LocalQueue is queued
// by Koord-Queue only when it was created suspended (elasticquota.RouteJob).
func (s *sim) submitJob(d *manifest.Document) error {
	_, unit := d.Object.(*queuev1alpha1.QueueUnit)
	if d.PodsReadyAfter > 0 && (unit || manifest.IsKoordUnit(d.Workload)) {
		return fmt.Errorf("metadata.annotations[%s]: Forbidden: Kueue's waitForPodsReady does not apply to a Koord-Queue unit; its pods' start-up is %s",
			manifest.AnnotationPodsReadyAfter, PodStartupAnnotation)
	}
	if qu, ok := d.Object.(*queuev1alpha1.QueueUnit); ok {
		return s.submitQueueUnit(d, qu)
	}
	key := types.NamespacedName{Namespace: d.Workload.Namespace, Name: d.Workload.Name}
	if manifest.IsKoordUnit(d.Workload) {
		if job, ok := d.Object.(*batchv1.Job); ok {
			return s.submitKoordJob(d, key, job)
		}
		return s.submitKoord(d, key)
	}
	if prev, ok := s.koord.units[key]; ok {
		s.forgetKoord(prev)
	}
	return s.submit(d)
}

// applyElasticQuota creates or replaces a quota (and with it its queue). Quotas
// are known by name only: one of the same name in another namespace replaces it.
func (s *sim) applyElasticQuota(d *manifest.Document, o *koordv1alpha1.ElasticQuota) error {
	eq := o.DeepCopy()
	s.stamp(&eq.ObjectMeta, d.Key)
	if err := s.koord.sched.UpsertQuota(eq); err != nil {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: err}
	}
	// The quota re-derives its queue; a Queue written by hand comes back with
	// its extra annotations, as its watch would hand it back in a cluster.
	return s.reapplyQueue(eq.Name)
}

func (s *sim) submitKoord(d *manifest.Document, key types.NamespacedName) error {
	wl := d.Workload.DeepCopy()
	s.stamp(&wl.ObjectMeta, d.Key)
	if wl.Status.Admission != nil {
		return fmt.Errorf("status.admission: Forbidden: a Koord-Queue unit (label %s, no LocalQueue) cannot start admitted; Kueue's admission does not apply to it", koordv1alpha1.QuotaNameLabel)
	}
	priority, err := s.koordPriority(wl)
	if err != nil {
		return err
	}
	request, err := totalRequest(wl)
	if err != nil {
		return err
	}
	return s.enqueueKoord(d, elasticquota.QueueUnit{
		Namespace: key.Namespace, Name: key.Name, Labels: wl.Labels, Priority: priority,
		Created: wl.CreationTimestamp.Time, Request: request,
	})
}

// enqueueKoord submits a Koord-Queue unit, replacing whatever held its key.
func (s *sim) enqueueKoord(d *manifest.Document, unit elasticquota.QueueUnit) error {
	key := unit.Key()
	s.replaceKey(key)
	if err := s.podStartup(d, &unit); err != nil {
		return err
	}
	if err := s.koord.sched.AddUnit(unit); err != nil {
		return err
	}
	u := &koordUnit{
		key: key, name: key.Namespace + "/" + key.Name, quota: elasticquota.QuotaNameOf(unit.Labels),
		state: StatePending, runtime: d.Runtime, hasRuntime: d.HasRuntime,
	}
	s.koord.units[key] = u
	s.counts.Pending++
	s.record(Event{Type: Submitted, Workload: u.name, ElasticQuota: u.quota})
	return nil
}

// replaceKey lets go of the job, Kueue's or Koord-Queue's, that a new
// document of the same key replaces.
func (s *sim) replaceKey(key types.NamespacedName) {
	if prev, ok := s.workloads[key]; ok {
		s.forget(prev)
	}
	if prev, ok := s.koord.units[key]; ok {
		s.forgetKoord(prev)
	}
}

// koordPriority is the priority of a Workload that is a Koord-Queue unit,
// resolved as the Kueue engine resolves a Workload's: spec.priority when set,
// else the WorkloadPriorityClass it names, else the PriorityClass it names when
// that exists (a missing one is ignored, as Koord-Queue's job extension ignores
// it), else the pod template's priority, else 0.
func (s *sim) koordPriority(wl *kueue.Workload) (int32, error) {
	if wl.Spec.Priority != nil {
		return *wl.Spec.Priority, nil
	}
	if ref := wl.Spec.PriorityClassRef; ref != nil && ref.Kind == kueue.PodPriorityClassKind {
		if v, ok := s.world.pcs[ref.Name]; ok {
			return v, nil
		}
	}
	if ref := wl.Spec.PriorityClassRef; ref != nil && ref.Kind == "WorkloadPriorityClass" {
		v, ok := s.world.wpcs[ref.Name]
		if !ok {
			return 0, fmt.Errorf("WorkloadPriorityClass %q does not exist at %s; apply it before (or at the same time as) the job", ref.Name, formatDuration(s.now))
		}
		return v, nil
	}
	for _, ps := range wl.Spec.PodSets {
		if p := ps.Template.Spec.Priority; p != nil {
			return *p, nil
		}
	}
	return 0, nil
}

// totalRequest is the unit's spec.resource: the Kueue engine's pod-set
// totals (count × per-pod requests, requests defaulting to limits), summed.
func totalRequest(wl *kueue.Workload) (resources.Requests, error) {
	info, err := workload.FromAPI(wl)
	if err != nil {
		return nil, err
	}
	out := resources.Requests{}
	for _, ps := range info.PodSets {
		for r, v := range ps.Total {
			out[r] = resources.Add(out[r], v)
		}
	}
	return out, nil
}

// settleKoord runs the Koord-Queue cycle: one pass settles (the scheduler's
// promise; Options.ConfirmSettled checks it with a second pass).
func (s *sim) settleKoord() error {
	if s.koord.sched.PendingCount() == 0 {
		return nil
	}
	admitted := s.koordCycle()
	if admitted && s.opts.ConfirmSettled {
		if s.koordCycle() {
			return fmt.Errorf("at %s a second Koord-Queue cycle admitted more units; the ElasticQuota scheduler did not settle in one pass", formatDuration(s.now))
		}
	}
	return nil
}

// applyKoord carries out a cycle's decisions and reports whether it admitted.
func (s *sim) applyKoord(decisions []elasticquota.Decision) bool {
	admitted := false
	for _, d := range decisions {
		u, ok := s.koord.units[d.UnitKey()]
		if !ok || u.state != StatePending {
			continue
		}
		switch d := d.(type) {
		case elasticquota.Admit:
			s.koord.gen++
			u.state, u.admittedTo, u.gen = StateAdmitted, d.Quota, s.koord.gen
			u.reason, u.message = "", ""
			s.counts.Pending--
			s.counts.Running++
			if u.hasRuntime {
				s.timers.addKoord(s.now+u.runtime, u.key, u.gen)
			}
			s.record(Event{Type: Admitted, Workload: u.name, ElasticQuota: d.Quota})
			admitted = true
		case elasticquota.Pending:
			u.reason, u.message = d.Reason, d.Message
		}
	}
	return admitted
}

// finishKoord ends a unit whose runtime is over: its quota is released on its
// whole chain.
func (s *sim) finishKoord(t finishTimer) {
	if t.podsRunning {
		s.podsRunning(t)
		return
	}
	u, ok := s.koord.units[t.key]
	if !ok || u.state != StateAdmitted || u.gen != t.gen {
		return
	}
	if err := s.koord.sched.FinishUnit(u.key); err != nil {
		return
	}
	u.state = StateFinished
	s.counts.Running--
	s.counts.Finished++
	s.record(Event{Type: Finished, Workload: u.name, ElasticQuota: u.admittedTo})
}

// forgetKoord removes a unit that a later document replaces, releasing its quota.
func (s *sim) forgetKoord(u *koordUnit) {
	s.koord.sched.DeleteUnit(u.key)
	switch u.state {
	case StateAdmitted:
		s.counts.Running--
	case StatePending:
		s.counts.Pending--
	}
	delete(s.koord.units, u.key)
}

// koordResults adds the Koord-Queue units to the final workloads, keeping them
// sorted by name.
func (s *sim) koordResults(out []WorkloadResult) []WorkloadResult {
	if len(s.koord.units) == 0 {
		return out
	}
	for _, u := range s.koord.units {
		wr := WorkloadResult{Name: u.name, State: u.state, ElasticQuota: u.quota}
		switch u.state {
		case StatePending, StateUnqueued:
			wr.Reason, wr.Message = u.reason, u.message
		default:
			wr.ElasticQuota = u.admittedTo
		}
		out = append(out, wr)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ElasticQuotaResult is one ElasticQuota at the end of the run.
type ElasticQuotaResult struct {
	Name string
	// Parent is koordinator-root-quota when the parent label is absent or
	// empty, "" for the root itself.
	Parent   string
	Min, Max corev1.ResourceList
	// Used is what admitted units charge to the quota and its descendants.
	Used corev1.ResourceList
}

// koordQuotas lists the quotas at the end, koordinator-root-quota among them
// also when it is not written as an ElasticQuota (no parent, min or max then):
// its used is that of every admitted unit whose chain reaches it.
func (s *sim) koordQuotas() []ElasticQuotaResult {
	quotas := s.koord.sched.QuotasWithRoot()
	if len(quotas) == 0 {
		return nil
	}
	out := make([]ElasticQuotaResult, 0, len(quotas))
	for _, q := range quotas {
		out = append(out, ElasticQuotaResult{Name: q.Name, Parent: q.Parent, Min: q.Min, Max: q.Max, Used: q.Used})
	}
	return out
}
