package simulator

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
	"quokka.dev/quokka/simulator/manifest"
)

// A batch/v1 Job whose completions are more than the pods it was admitted
// with runs its pods in waves: every pod runs the same time, so the Job's
// runtime is split evenly over ceil(completions / pods) waves. When the last
// wave needs fewer pods than the Job holds, Kueue's Job integration marks the
// others reclaimable (status.reclaimablePods: parallelism less the remaining
// completions, once some pod succeeded) and the manager gives their quota
// back while the Job runs on (the ReclaimablePods gate, on by default). The
// simulator does the same at the start of the last wave. A Job whose
// completions divide evenly into waves, or a Workload, has nothing to reclaim.
// A preempted Job restarts from zero (as every simulated job does), so its
// reclaimable pods are forgotten with its admission.

// jobCompletions is a Job document's spec.completions, 0 for every other
// kind and for a Job without it (it then completes with its pods).
func jobCompletions(d *manifest.Document) int32 {
	job, ok := d.Object.(*batchv1.Job)
	if !ok || job.Spec.Completions == nil {
		return 0
	}
	if job.Annotations[kueue.JobCompletionsEqualParallelismAnnotation] == "true" {
		// Partial admission lowers completions with parallelism: the
		// admitted pods run one wave.
		return 0
	}
	return *job.Spec.Completions
}

// lastWave is when w's last wave starts, from its admission, and how many of
// its admitted pods it leaves idle; zero when it leaves none (a single wave,
// or completions a multiple of the pods).
func lastWave(runtime time.Duration, completions, pods int32) (time.Duration, int32) {
	if completions <= 0 || pods <= 1 {
		return 0, 0
	}
	waves := (completions + pods - 1) / pods
	remaining := completions - (waves-1)*pods
	if waves < 2 || remaining >= pods {
		return 0, 0
	}
	return runtime / time.Duration(waves) * time.Duration(waves-1), pods - remaining
}

// setLastWaveTimer sets the timer of an admitted Job's last wave, when the
// ReclaimablePods gate is on and that wave leaves pods idle.
func (s *sim) setLastWaveTimer(w *workloadRecord) {
	if !s.config.FeatureGate(configv1beta2.FeatureReclaimablePods) || len(w.podSets) != 1 {
		return
	}
	after, idle := lastWave(w.runtime, w.completions, w.podSets[0].Count)
	if idle > 0 && after > 0 {
		s.timers.addReclaim(s.now+after, w.key, w.gen, idle)
	}
}

// reclaimPods carries out a last-wave timer: the Job's idle pods become
// reclaimable, the engine is told as the manager tells it (the Workload with
// its admission and status.reclaimablePods), and their quota is released.
func (s *sim) reclaimPods(t finishTimer) error {
	w, ok := s.workloads[t.key]
	if !ok || w.state != StateAdmitted || w.gen != t.gen || !s.config.FeatureGate(configv1beta2.FeatureReclaimablePods) {
		return nil
	}
	w.reclaimable = t.reclaim
	if err := s.engine.UpsertWorkload(admittedWorkload(w, s.clock(w.admittedAt))); err != nil {
		return fmt.Errorf("at %s marking %d pods of %s reclaimable: %w", formatDuration(s.now), t.reclaim, w.name, err)
	}
	ps := w.podSets[0]
	kept := usageOf([]PodSetAssignment{{Name: ps.Name, Flavors: ps.Flavors, Count: ps.Count - t.reclaim,
		Usage: workload.ScaleDown(ps.Usage, ps.Count, ps.Count-t.reclaim)}})
	freed := resources.Amounts{}
	for fr, v := range w.usage {
		if d := v - kept[fr]; d != 0 {
			freed[fr] = d
		}
	}
	s.acct.release(w.cq, s.now, freed)
	w.usage = kept
	s.record(Event{Type: Reclaimed, Workload: w.name, ClusterQueue: w.cq, Flavors: w.flavors,
		PodCounts: map[string]int32{ps.Name: t.reclaim}})
	return nil
}

// forgetReclaimable undoes a Job's reclaimable pods when it loses its
// admission: the engine, which kept them from the last upsert, reads the
// Workload without them again, so that the Job asks for all its pods.
func (s *sim) forgetReclaimable(w *workloadRecord) {
	if w.reclaimable == 0 {
		return
	}
	w.reclaimable = 0
	// The same object as at submission but for its status: it read before.
	_ = s.engine.UpsertWorkload(pendingWorkload(w, s.clock))
}
