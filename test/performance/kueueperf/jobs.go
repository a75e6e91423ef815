package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"quokka.dev/quokka/test/kubecluster"
)

// jobsLoad is the Jobs-with-pods load (--load jobs): batch/v1 Jobs on fake
// nodes, admitted by the manager, given pods by kube-controller-manager's Job
// controller, placed by kube-scheduler and run by KWOK. Where Kueue's runner
// measures a manager alone (it plays the workloads itself), this load
// measures what a user sees: a Job created to its pods running.
type jobsLoad struct {
	// Nodes are the fake nodes, each with NodeCPU of cpu.
	Nodes   int    `json:"nodes"`
	NodeCPU string `json:"nodeCPU"`
	// Cohorts × QueuesPerCohort ClusterQueues, each with NominalQuota of cpu
	// in the one flavor and BorrowingLimit, each with one LocalQueue in its
	// own namespace.
	Cohorts         int    `json:"cohorts"`
	QueuesPerCohort int    `json:"queuesPerCohort"`
	NominalQuota    string `json:"nominalQuota"`
	BorrowingLimit  string `json:"borrowingLimit"`
	// Classes of Jobs, created in every LocalQueue.
	Classes []jobClass `json:"classes"`
}

// jobClass is one class of Jobs: JobsPerQueue of them in every LocalQueue,
// one every IntervalMs, each with Parallelism pods of CPU that run RuntimeMs.
type jobClass struct {
	Name         string `json:"name"`
	JobsPerQueue int    `json:"jobsPerQueue"`
	IntervalMs   int    `json:"intervalMs"`
	Parallelism  int32  `json:"parallelism"`
	CPU          string `json:"cpu"`
	RuntimeMs    int    `json:"runtimeMs"`
}

// readJobsLoad reads and checks a jobs load file, naming the field at fault.
func readJobsLoad(path string) (*jobsLoad, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("jobs load: %w", err)
	}
	var l jobsLoad
	if err := yaml.UnmarshalStrict(data, &l); err != nil {
		return nil, fmt.Errorf("jobs load %s: %w", path, err)
	}
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("jobs load %s: %w", path, err)
	}
	return &l, nil
}

func (l *jobsLoad) validate() error {
	var errs []error
	positive := func(field string, v int) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", field, v))
		}
	}
	quantity := func(field, v string) {
		if _, err := resource.ParseQuantity(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a quantity: %w", field, v, err))
		}
	}
	positive("nodes", l.Nodes)
	positive("cohorts", l.Cohorts)
	positive("queuesPerCohort", l.QueuesPerCohort)
	quantity("nodeCPU", l.NodeCPU)
	quantity("nominalQuota", l.NominalQuota)
	quantity("borrowingLimit", l.BorrowingLimit)
	if len(l.Classes) == 0 {
		errs = append(errs, errors.New("classes: at least one class is needed"))
	}
	seen := map[string]bool{}
	for i, c := range l.Classes {
		f := fmt.Sprintf("classes[%d]", i)
		if c.Name == "" || strings.Contains(c.Name, "-") {
			errs = append(errs, fmt.Errorf("%s.name must be set and hold no '-', got %q", f, c.Name))
		}
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("%s.name %q is used twice", f, c.Name))
		}
		seen[c.Name] = true
		positive(f+".jobsPerQueue", c.JobsPerQueue)
		positive(f+".intervalMs", c.IntervalMs)
		positive(f+".parallelism", int(c.Parallelism))
		positive(f+".runtimeMs", c.RuntimeMs)
		quantity(f+".cpu", c.CPU)
	}
	return errors.Join(errs...)
}

func (l *jobsLoad) jobs() int {
	n := 0
	for _, c := range l.Classes {
		n += c.JobsPerQueue
	}
	return n * l.Cohorts * l.QueuesPerCohort
}

// queueNamespace is the namespace of a LocalQueue (and of its Jobs).
func queueNamespace(cohort, queue int) string {
	return fmt.Sprintf("cq-%d-cohort-%d", queue, cohort)
}

// setupManifests are the nodes and queues, the same objects for every side:
// Quokka reads Kueue's manifests unchanged.
func (l *jobsLoad) setupManifests() string {
	var b strings.Builder
	for i := range l.Nodes {
		fmt.Fprintf(&b, `apiVersion: v1
kind: Node
metadata:
  name: node-%d
  annotations: {%s: fake}
  labels: {type: kwok}
status:
  capacity: {cpu: %q, memory: 512Gi, pods: "110"}
  allocatable: {cpu: %q, memory: 512Gi, pods: "110"}
---
`, i, kubecluster.FakeNodeAnnotation, l.NodeCPU, l.NodeCPU)
	}
	b.WriteString(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
`)
	for c := range l.Cohorts {
		for q := range l.QueuesPerCohort {
			ns := queueNamespace(c, q)
			fmt.Fprintf(&b, `apiVersion: v1
kind: Namespace
metadata: {name: %s}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: %s}
spec:
  cohortName: cohort-%d
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: %q, borrowingLimit: %q}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: %s}
spec: {clusterQueue: %s}
---
`, ns, ns, c, l.NominalQuota, l.BorrowingLimit, ns, ns)
		}
	}
	return b.String()
}

// applyManifests creates every object of a multi-document YAML; nodes are
// made ready for KWOK (see kubecluster.AddNode).
func applyManifests(ctx context.Context, c client.Client, manifests string) error {
	for i, doc := range strings.Split(manifests, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var obj unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return fmt.Errorf("setup manifest %d: %w", i, err)
		}
		if obj.GetKind() == "Node" {
			if err := kubecluster.AddNode(ctx, c, &obj); err != nil {
				return err
			}
			continue
		}
		if err := c.Create(ctx, &obj); err != nil {
			return fmt.Errorf("creating %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// job is one Job of the load, suspended at creation as Kueue's webhook would
// leave it (neither side's webhooks are installed), with its LocalQueue's
// label and KWOK's run-for annotation on its pods.
func (l *jobsLoad) job(ns string, c jobClass, i int) *batchv1.Job {
	req := resource.MustParse(c.CPU)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-%d", c.Name, i),
			Namespace: ns,
			Labels:    map[string]string{"kueue.x-k8s.io/queue-name": "lq", "quokka.dev/perf-class": c.Name},
		},
		Spec: batchv1.JobSpec{
			Parallelism:  ptr.To(c.Parallelism),
			Completions:  ptr.To(c.Parallelism),
			Suspend:      ptr.To(true),
			BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Annotations: map[string]string{"quokka.dev/test-run-for": (time.Duration(c.RuntimeMs) * time.Millisecond).String()},
				},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:      "main",
						Image:     "registry.k8s.io/pause:3.10",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: req}},
					}},
				},
			},
		},
	}
}

// generate creates every Job: one goroutine per LocalQueue and class, each
// waiting IntervalMs before every create, as Kueue's runner paces its
// workloads.
func (l *jobsLoad) generate(ctx context.Context, cs kubernetes.Interface, rec *jobRecorder) error {
	var wg sync.WaitGroup
	errs := make(chan error, l.Cohorts*l.QueuesPerCohort*len(l.Classes))
	for co := range l.Cohorts {
		for q := range l.QueuesPerCohort {
			ns := queueNamespace(co, q)
			for _, c := range l.Classes {
				wg.Go(func() {
					for i := range c.JobsPerQueue {
						select {
						case <-ctx.Done():
							errs <- ctx.Err()
							return
						case <-time.After(time.Duration(c.IntervalMs) * time.Millisecond):
						}
						j := l.job(ns, c, i)
						rec.created(ns+"/"+j.Name, c.Name)
						if _, err := cs.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{}); err != nil {
							errs <- fmt.Errorf("creating Job %s/%s: %w", ns, j.Name, err)
							return
						}
					}
				})
			}
		}
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// jobTimes is what the recorder saw of one Job, from its creation.
type jobTimes struct {
	class                           string
	created                         time.Time
	unsuspended, running, completed time.Time
	// active is whether the Job was last seen unsuspended; suspendedAgain
	// counts its preemptions (unsuspended, then suspended again).
	active         bool
	suspendedAgain int
}

// jobRecorder watches the Jobs and notes, for each, when it was first seen
// unsuspended (admitted), with every pod started (running), and complete.
type jobRecorder struct {
	mu   sync.Mutex
	jobs map[string]*jobTimes
	// done is closed when every expected Job has completed.
	done     chan struct{}
	expected int
	complete int
	failed   []string
}

func newJobRecorder(expected int) *jobRecorder {
	return &jobRecorder{jobs: map[string]*jobTimes{}, done: make(chan struct{}), expected: expected}
}

func (r *jobRecorder) created(key, class string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs[key] = &jobTimes{class: class, created: time.Now()}
}

func (r *jobRecorder) observe(j *batchv1.Job) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.jobs[j.Namespace+"/"+j.Name]
	if !ok {
		return
	}
	suspended := j.Spec.Suspend != nil && *j.Spec.Suspend
	if !suspended && t.unsuspended.IsZero() {
		t.unsuspended = now
	}
	if suspended && t.active {
		t.suspendedAgain++
	}
	t.active = !suspended
	// Every pod started: ready, or already done (the Job controller
	// batches its status updates, so a short pod may go from pending to
	// succeeded between two of them).
	if started := ptr.Deref(j.Status.Ready, 0) + j.Status.Succeeded + j.Status.Failed; j.Spec.Parallelism != nil &&
		started >= *j.Spec.Parallelism && t.running.IsZero() && !suspended {
		t.running = now
	}
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue || !t.completed.IsZero() {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
		case batchv1.JobFailed:
			r.failed = append(r.failed, fmt.Sprintf("%s/%s: %s", j.Namespace, j.Name, c.Message))
		default:
			continue
		}
		t.completed = now
		if t.running.IsZero() {
			t.running = now
		}
		r.complete++
		if r.complete == r.expected {
			close(r.done)
		}
	}
}

// writeCSV writes each Job's times (milliseconds from its creation; empty
// when not reached) and preemptions to path, for a closer look at a run.
func (r *jobRecorder) writeCSV(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.jobs))
	for k := range r.jobs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("job,class,created,ms to admitted,ms to running,ms to complete,preemptions\n")
	ms := func(t *jobTimes, at time.Time) string {
		if at.IsZero() {
			return ""
		}
		return fmt.Sprint(at.Sub(t.created).Milliseconds())
	}
	for _, k := range keys {
		t := r.jobs[k]
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%d\n", k, t.class, t.created.UTC().Format(time.RFC3339Nano),
			ms(t, t.unsuspended), ms(t, t.running), ms(t, t.completed), t.suspendedAgain)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// progress counts the Jobs in each state, for a run that did not finish.
func (r *jobRecorder) progress() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var admitted, running, completed int
	for _, t := range r.jobs {
		if !t.unsuspended.IsZero() {
			admitted++
		}
		if !t.running.IsZero() {
			running++
		}
		if !t.completed.IsZero() {
			completed++
		}
	}
	return fmt.Sprintf("of %d Jobs, %d created, %d admitted, %d ran, %d complete", r.expected, len(r.jobs), admitted, running, completed)
}

// watch feeds the recorder from an informer on Jobs until ctx ends.
func (r *jobRecorder) watch(ctx context.Context, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	inf := f.Batch().V1().Jobs().Informer()
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.observe(o.(*batchv1.Job)) },
		UpdateFunc: func(_, o any) { r.observe(o.(*batchv1.Job)) },
	})
	if err != nil {
		return err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return errors.New("the Jobs' informer did not sync")
	}
	return nil
}

// classTimes are one class's averages.
type classTimes struct {
	jobs                   int
	toAdmission, toRunning time.Duration
	// runningAfterAdmission is the cluster's part: from unsuspended to every
	// pod started (the Job controller, the scheduler, the fake kubelet).
	runningAfterAdmission time.Duration
	suspendedAgain        int
}

// summarize averages each class and returns the wall time, first create to
// last completion.
func (r *jobRecorder) summarize() (map[string]classTimes, time.Duration, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failed) > 0 {
		sort.Strings(r.failed)
		return nil, 0, fmt.Errorf("%d Jobs failed, first: %s", len(r.failed), r.failed[0])
	}
	var first, last time.Time
	sums := map[string]*classTimes{}
	for key, t := range r.jobs {
		if t.completed.IsZero() || t.unsuspended.IsZero() || t.running.IsZero() {
			return nil, 0, fmt.Errorf("Job %s did not complete (admitted %v, running %v)", key, !t.unsuspended.IsZero(), !t.running.IsZero())
		}
		if first.IsZero() || t.created.Before(first) {
			first = t.created
		}
		if t.completed.After(last) {
			last = t.completed
		}
		s := sums[t.class]
		if s == nil {
			s = &classTimes{}
			sums[t.class] = s
		}
		s.jobs++
		s.toAdmission += t.unsuspended.Sub(t.created)
		s.toRunning += t.running.Sub(t.created)
		s.runningAfterAdmission += t.running.Sub(t.unsuspended)
		s.suspendedAgain += t.suspendedAgain
	}
	out := map[string]classTimes{}
	for name, s := range sums {
		n := time.Duration(s.jobs)
		out[name] = classTimes{jobs: s.jobs, toAdmission: s.toAdmission / n, toRunning: s.toRunning / n,
			runningAfterAdmission: s.runningAfterAdmission / n, suspendedAgain: s.suspendedAgain}
	}
	return out, last.Sub(first), nil
}
