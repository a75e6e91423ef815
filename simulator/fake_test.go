package simulator

import (
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/simulator/manifest"
)

const gpu corev1.ResourceName = "nvidia.com/gpu"

// fakeEngine is a deliberately simple engine for testing the simulator's time
// model without the real one: one flavor per ClusterQueue, GPUs only, no cohorts;
// a workload is admitted when its queue's nominal quota has room, in creation
// order. preempt scripts preemptions: when the key's workload does not fit, the
// value's workload is preempted for it.
type fakeEngine struct {
	opts       EngineOptions
	cqs        map[string]*kueue.ClusterQueue
	lqs        map[types.NamespacedName]string
	namespaces map[string]map[string]string
	wls        map[types.NamespacedName]*fakeWorkload
	preempt    map[types.NamespacedName]types.NamespacedName
	// waiting holds preemptors whose victims were evicted: they go first, as
	// the real engine reserves the room they made.
	waiting map[types.NamespacedName]bool
	cycles  int
	// loop makes every cycle admit and preempt the same two workloads forever.
	loop bool
}

type fakeWorkload struct {
	wl       *kueue.Workload
	gpus     int64
	cq       string
	admitted bool
	finished bool
}

func newFakeEngine(opts EngineOptions) *fakeEngine {
	return &fakeEngine{opts: opts, cqs: map[string]*kueue.ClusterQueue{}, lqs: map[types.NamespacedName]string{},
		namespaces: map[string]map[string]string{}, wls: map[types.NamespacedName]*fakeWorkload{},
		preempt: map[types.NamespacedName]types.NamespacedName{}, waiting: map[types.NamespacedName]bool{}}
}

func (f *fakeEngine) UpsertResourceFlavor(*kueue.ResourceFlavor) {}
func (f *fakeEngine) UpsertClusterQueue(cq *kueue.ClusterQueue) error {
	f.cqs[cq.Name] = cq
	return nil
}
func (f *fakeEngine) UpsertCohort(*kueue.Cohort) error { return nil }
func (f *fakeEngine) UpsertLocalQueue(lq *kueue.LocalQueue) {
	f.lqs[types.NamespacedName{Namespace: lq.Namespace, Name: lq.Name}] = string(lq.Spec.ClusterQueue)
}
func (f *fakeEngine) UpsertNamespace(name string, labels map[string]string) {
	f.namespaces[name] = labels
}
func (f *fakeEngine) UpsertWorkloadPriorityClass(string, int32)      {}
func (f *fakeEngine) SetLimitRanges(string, []corev1.LimitRange)     {}
func (f *fakeEngine) UpsertRuntimeClass(string, corev1.ResourceList) {}
func (f *fakeEngine) UpsertPreemptionConfig(*kueuev1alpha1.PreemptionConfig) error {
	return nil
}
func (f *fakeEngine) UpsertWorkload(wl *kueue.Workload) error {
	var n int64
	for _, ps := range wl.Spec.PodSets {
		q := ps.Template.Spec.Containers[0].Resources.Requests[gpu]
		n += q.Value() * int64(ps.Count)
	}
	w := &fakeWorkload{wl: wl, gpus: n}
	if adm := wl.Status.Admission; adm != nil {
		w.admitted, w.cq = true, string(adm.ClusterQueue)
	}
	f.wls[types.NamespacedName{Namespace: wl.Namespace, Name: wl.Name}] = w
	return nil
}
func (f *fakeEngine) DeleteWorkload(k types.NamespacedName) { delete(f.wls, k) }
func (f *fakeEngine) FinishWorkload(k types.NamespacedName) {
	if w, ok := f.wls[k]; ok {
		w.finished, w.admitted = true, false
	}
}
func (f *fakeEngine) EvictWorkload(k types.NamespacedName) {
	if w, ok := f.wls[k]; ok {
		w.admitted = false
	}
}

func (f *fakeEngine) nominal(cq string) (string, int64) {
	c := f.cqs[cq]
	if c == nil || len(c.Spec.ResourceGroups) == 0 {
		return "", 0
	}
	fl := c.Spec.ResourceGroups[0].Flavors[0]
	return string(fl.Name), fl.Resources[0].NominalQuota.Value()
}

func (f *fakeEngine) used(cq string) int64 {
	var n int64
	for _, w := range f.wls {
		if w.admitted && w.cq == cq {
			n += w.gpus
		}
	}
	return n
}

func (f *fakeEngine) WakeAll()                               {}
func (f *fakeEngine) NextSample(time.Time) (time.Time, bool) { return time.Time{}, false }

func (f *fakeEngine) LocalQueueUsage() []LocalQueueResult { return nil }

func (f *fakeEngine) NextDeadline(time.Time) (time.Time, bool) {
	return time.Time{}, false
}
func (f *fakeEngine) WantsCycle() bool { return false }

func (f *fakeEngine) Cycle(time.Time) []Decision {
	f.cycles++
	keys := make([]types.NamespacedName, 0, len(f.wls))
	for k, w := range f.wls {
		if !w.admitted && !w.finished {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if f.waiting[keys[i]] != f.waiting[keys[j]] {
			return f.waiting[keys[i]]
		}
		a, b := f.wls[keys[i]].wl, f.wls[keys[j]].wl
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.UID < b.UID
	})
	var out []Decision
	for _, k := range keys {
		w := f.wls[k]
		cq := f.lqs[types.NamespacedName{Namespace: k.Namespace, Name: string(w.wl.Spec.QueueName)}]
		flavor, nominal := f.nominal(cq)
		if cq == "" {
			out = append(out, Pending{Workload: k, Reason: "LocalQueueNotFound"})
			continue
		}
		if f.used(cq)+w.gpus <= nominal {
			w.admitted, w.cq = true, cq
			delete(f.waiting, k)
			out = append(out, Admit{Workload: k, ClusterQueue: cq, PodSets: []PodSetAssignment{{
				Name: "main", Flavors: map[corev1.ResourceName]string{gpu: flavor}, Usage: resources.Requests{gpu: w.gpus}, Count: 1}}})
			continue
		}
		if v, ok := f.preempt[k]; ok && f.wls[v] != nil && f.wls[v].admitted {
			out = append(out, Preempt{Preemptor: k, Victims: []Victim{{Workload: v, ClusterQueue: f.wls[v].cq, Reason: "InClusterQueue", Message: "make room"}}})
			f.waiting[k] = true
			if !f.loop {
				delete(f.preempt, k)
			}
		}
		out = append(out, Pending{Workload: k, ClusterQueue: cq, Reason: "InsufficientQuota", Message: "no room"})
	}
	return out
}

// sim builds documents from YAML for a test.
func docs(t *testing.T, yaml string) []manifest.Document {
	t.Helper()
	d, err := manifest.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// queueYAML is one ClusterQueue of n GPUs with a LocalQueue "q" in namespace ns.
func queueYAML(name, ns string, gpus int) string {
	return `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ` + name + `}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: ` + itoa(gpus) + `}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ` + ns + `}
spec: {clusterQueue: ` + name + `}
`
}

// jobYAML is a Job of gpus GPUs at `at` running for runtime ("" for no runtime).
func jobYAML(ns, name string, gpus int, at, runtime string) string {
	ann := "simulation.quokka.dev/at: " + at
	if runtime != "" {
		ann += ", simulation.quokka.dev/runtime: " + runtime
	}
	return `---
apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `, namespace: ` + ns + `, labels: {kueue.x-k8s.io/queue-name: q}, annotations: {` + ann + `}}
spec: {template: {spec: {containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "` + itoa(gpus) + `"}, limits: {nvidia.com/gpu: "` + itoa(gpus) + `"}}}]}}}
`
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// run runs the documents on a fresh fake engine, which it returns for inspection.
func run(t *testing.T, d []manifest.Document, opts Options, setup func(*fakeEngine)) (*Result, []*fakeEngine) {
	t.Helper()
	var engines []*fakeEngine
	opts.NewEngine = func(o EngineOptions) (Engine, error) {
		e := newFakeEngine(o)
		if setup != nil {
			setup(e)
		}
		engines = append(engines, e)
		return e, nil
	}
	opts.ConfirmSettled = true
	res, err := Run(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, engines
}

// story renders events as "time type workload" lines for comparison.
func story(r *Result) []string {
	out := make([]string, len(r.Events))
	for i, e := range r.Events {
		out[i] = formatDuration(e.Time) + " " + string(e.Type) + " " + e.Workload
		if e.Preemptor != "" {
			out[i] += " by " + e.Preemptor
		}
	}
	return out
}

func equalStory(t *testing.T, got *Result, want ...string) {
	t.Helper()
	s := story(got)
	if len(s) != len(want) {
		t.Fatalf("timeline:\n%s\nwant:\n%s", join(s), join(want))
	}
	for i := range s {
		if s[i] != want[i] {
			t.Fatalf("timeline:\n%s\nwant:\n%s", join(s), join(want))
		}
	}
}

func join(lines []string) string {
	out := ""
	for _, l := range lines {
		out += "  " + l + "\n"
	}
	return out
}
