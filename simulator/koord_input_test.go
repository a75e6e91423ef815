package simulator

import (
	"strings"
	"testing"
)

// koordJobSpecYAML is a Job of the quota label with a free-form spec body.
func koordJobSpecYAML(name, labels, at, spec string) string {
	return `---
apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `, namespace: ns, labels: {` + labels + `}, annotations: {simulation.quokka.dev/at: ` + at + `}}
spec: ` + spec + `
`
}

func cpuEQ(name string, cpus string) string {
	return `---
apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata: {name: ` + name + `, namespace: default}
spec: {max: {cpu: "` + cpus + `"}}
`
}

func byName(res *Result) map[string]WorkloadResult {
	m := map[string]WorkloadResult{}
	for _, w := range res.Workloads {
		m[w.Name] = w
	}
	return m
}

// koord-queue pkg/jobext/handles/job.go, Priority: the template's
// priorityClassName resolves to the PriorityClass's value when the class
// exists; a missing class is ignored ("we will ignore it") and the template's
// priority counts. The unit of higher priority is dequeued first: with room for
// one, "high" (class value 1000) goes before "plain" (priority 5), which goes
// before "ghost" (missing class, priority 1), whatever the order they arrived in.
func TestKoordJobPriorityFromPriorityClass(t *testing.T) {
	t.Parallel()
	pc := `---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
`
	label := "quota.scheduling.koordinator.sh/name: team-a"
	tmpl := func(extra string) string {
		return `{suspend: true, template: {spec: {` + extra + `containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}}`
	}
	d := docs(t, pc+cpuEQ("team-a", "1")+
		koordJobSpecYAML("ghost", label, "0s", tmpl("priorityClassName: missing, priority: 1, "))+
		koordJobSpecYAML("plain", label, "0s", tmpl("priority: 5, "))+
		koordJobSpecYAML("high", label, "0s", tmpl("priorityClassName: high, ")))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/ghost", "0s Submitted ns/plain", "0s Submitted ns/high", "0s Admitted ns/high")

	// Without the high one, plain (5) goes before ghost (1).
	d = docs(t, pc+cpuEQ("team-a", "1")+
		koordJobSpecYAML("ghost", label, "0s", tmpl("priorityClassName: missing, priority: 1, "))+
		koordJobSpecYAML("plain", label, "0s", tmpl("priority: 5, ")))
	res, _ = run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/ghost", "0s Submitted ns/plain", "0s Admitted ns/plain")
}

// koord-queue ManagedByQueue queues a Job only when "job.Status.StartTime ==
// nil && job.Spec.Suspend != nil && *job.Spec.Suspend": a labelled Job created
// unsuspended is not queued. It runs unqueued, is never charged, and the run
// says so (state Unqueued, reason CreatedUnsuspended). The fallback label
// alibabacloud.com/quota-name routes to Koord-Queue like the main one.
func TestKoordJobCreatedUnsuspendedRunsUnqueued(t *testing.T) {
	t.Parallel()
	body := func(suspend string) string {
		return `{` + suspend + `template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}}}`
	}
	d := docs(t, cpuEQ("team-a", "2")+
		koordJobSpecYAML("free", "quota.scheduling.koordinator.sh/name: team-a", "0s", body(""))+
		koordJobSpecYAML("free-false", "alibabacloud.com/quota-name: team-a", "0s", body("suspend: false, "))+
		koordJobSpecYAML("queued", "alibabacloud.com/quota-name: team-a", "0s", body("suspend: true, ")))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Unqueued ns/free", "0s Unqueued ns/free-false", "0s Submitted ns/queued", "0s Admitted ns/queued")
	w := byName(res)
	want := "job was created unsuspended: Koord-Queue queues only Jobs created with spec.suspend: true; it runs unqueued and is not charged to quota team-a"
	for _, n := range []string{"ns/free", "ns/free-false"} {
		if got := w[n]; got.State != StateUnqueued || got.Reason != "CreatedUnsuspended" || got.Message != want || got.ElasticQuota != "team-a" {
			t.Errorf("%s = %+v, want Unqueued, CreatedUnsuspended, %q", n, got, want)
		}
	}
	for _, e := range res.Events {
		if e.Type == Unqueued && (e.Reason != "CreatedUnsuspended" || e.Message != want) {
			t.Errorf("event %+v, want reason CreatedUnsuspended and the message", e)
		}
	}
	// The queued Job got team-a's 2 CPUs: the unqueued ones charged nothing.
	if got := w["ns/queued"]; got.State != StateAdmitted || got.ElasticQuota != "team-a" {
		t.Errorf("ns/queued = %+v, want admitted to team-a through the fallback label", got)
	}
}

// koord-queue pkg/jobext/handles/job.go, Resources: the unit requests
// parallelism × the pod's request ("for i := 0; i < int(*parallel); i++"), not
// min(parallelism, completions) × it: a Job of parallelism 4 and completions 2
// asks for 4 CPUs, and a quota of 3 holds it.
func TestKoordJobRequestIsParallelismTimesPod(t *testing.T) {
	t.Parallel()
	spec := `{suspend: true, parallelism: 4, completions: 2, template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}}`
	d := docs(t, cpuEQ("team-a", "3")+cpuEQ("team-b", "4")+
		koordJobSpecYAML("a", "quota.scheduling.koordinator.sh/name: team-a", "0s", spec)+
		koordJobSpecYAML("b", "quota.scheduling.koordinator.sh/name: team-b", "0s", spec))
	res, _ := run(t, d, Options{}, nil)
	w := byName(res)
	if a := w["ns/a"]; a.State != StatePending || !strings.Contains(a.Message, "request 4000 > max 3000") {
		t.Errorf("ns/a = %+v, want pending: 4 CPUs do not fit in 3", a)
	}
	if b := w["ns/b"]; b.State != StateAdmitted {
		t.Errorf("ns/b = %+v, want admitted with 4 CPUs in 4", b)
	}
	for _, q := range res.ElasticQuotas {
		if q.Name == "team-b" && q.Used.Cpu().Value() != 4 {
			t.Errorf("team-b used %v, want 4 CPUs", q.Used)
		}
	}
}

// A QueueUnit without a Job is a unit in its own right: spec.resource is its
// request, spec.priority its priority, and the simulator's at and runtime
// annotations place it on the clock. One with status.admissions starts
// admitted, charged to its quota without a check.
func TestQueueUnitIsAUnitOfItsOwn(t *testing.T) {
	t.Parallel()
	unit := func(name, at, runtime, priority, cpus, status string) string {
		return `---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: QueueUnit
metadata: {name: ` + name + `, namespace: ns, labels: {quota.scheduling.koordinator.sh/name: team-a}, annotations: {simulation.quokka.dev/at: ` + at + `, simulation.quokka.dev/runtime: ` + runtime + `}}
spec: {priority: ` + priority + `, resource: {cpu: "` + cpus + `"}}
` + status
	}
	d := docs(t, cpuEQ("team-a", "4")+
		unit("running", "0s", "1h", "0", "4", "status: {admissions: [{name: running, replicas: 1, running: 1}]}\n")+
		unit("low", "0s", "1h", "1", "3", "")+
		unit("high", "10m", "1h", "9", "3", ""))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/running", "0s Admitted ns/running", "0s Submitted ns/low",
		"10m Submitted ns/high", "1h Finished ns/running", "1h Admitted ns/high", "2h Finished ns/high", "2h Admitted ns/low", "3h Finished ns/low")
	for _, e := range res.Events {
		if e.Workload == "ns/running" && e.Type == Admitted && !e.Preset {
			t.Errorf("the admitted QueueUnit's Admitted event is not marked preset: %+v", e)
		}
	}
}

// 004: "Annotations that are written directly to the Queue are preserved ...
// A Queue that is maintained by hand can therefore carry additional
// annotations, but its policy remains under the control of the quota." A
// hand-written Queue's koord-queue/max-depth 1 applies to its quota's queue,
// also after the quota is re-applied, so the unit behind one that does not fit
// is not looked at (BeyondMaxDepth; without the Queue it is admitted). Its
// spec.queuePolicy Block does not apply: under Block the reason would be
// QueueBlocked.
func TestHandWrittenQueueAnnotationsApplyPolicyDoesNot(t *testing.T) {
	t.Parallel()
	queue := `---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: Queue
metadata: {name: team-a, namespace: koord-queue, annotations: {koord-queue/max-depth: "1"}}
spec: {queuePolicy: Block}
`
	job := func(name string, cpus, prio string) string {
		return koordJobSpecYAML(name, "quota.scheduling.koordinator.sh/name: team-a", "1m",
			`{suspend: true, template: {spec: {priority: `+prio+`, containers: [{name: c, image: i, resources: {requests: {cpu: "`+cpus+`"}}}]}}}`)
	}
	reapplied := strings.Replace(cpuEQ("team-a", "2"), "namespace: default}", "namespace: default, annotations: {simulation.quokka.dev/at: 30s}}", 1)
	jobs := job("big", "3", "9") + job("small", "1", "5")

	res, _ := run(t, docs(t, queue+cpuEQ("team-a", "2")+reapplied+jobs), Options{}, nil)
	w := byName(res)
	if got := w["ns/big"]; got.Reason != "FailedScheduling" {
		t.Errorf("ns/big = %+v, want FailedScheduling", got)
	}
	if got := w["ns/small"]; got.Reason != "BeyondMaxDepth" {
		t.Errorf("ns/small = %+v, want BeyondMaxDepth: the Queue's max-depth applies, its Block does not", got)
	}

	res, _ = run(t, docs(t, cpuEQ("team-a", "2")+reapplied+jobs), Options{}, nil)
	if got := byName(res)["ns/small"]; got.State != StateAdmitted {
		t.Errorf("without the Queue, ns/small = %+v, want admitted", got)
	}
}

// Issue 14: "The simulator's final.elasticQuotas must report the root's usage
// too". With a root ElasticQuota, its used is what every admitted unit below
// it charges; without one, the root is listed all the same, with no parent,
// min or max.
func TestKoordRootQuotaReportsUsage(t *testing.T) {
	t.Parallel()
	root := `---
apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata: {name: koordinator-root-quota, namespace: default}
spec: {max: {nvidia.com/gpu: "100"}}
`
	jobs := eqYAML("team-a", "", 8, "0s") + eqYAML("team-b", "", 8, "0s") +
		koordJobYAML("ns", "a", "team-a", 3, "0s", "") + koordJobYAML("ns", "b", "team-b", 2, "0s", "")
	for _, withRoot := range []bool{true, false} {
		in := jobs
		if withRoot {
			in = root + jobs
		}
		res, _ := run(t, docs(t, in), Options{}, nil)
		if len(res.ElasticQuotas) != 3 || res.ElasticQuotas[0].Name != "koordinator-root-quota" {
			t.Fatalf("root object %v: quotas %+v, want the root first and both teams", withRoot, res.ElasticQuotas)
		}
		r := res.ElasticQuotas[0]
		gpus := r.Used["nvidia.com/gpu"]
		if gpus.Value() != 5 || r.Parent != "" {
			t.Errorf("root object %v: root = %+v, want 5 GPUs used and no parent", withRoot, r)
		}
		if withRoot != (len(r.Max) > 0) {
			t.Errorf("root object %v: root max %v", withRoot, r.Max)
		}
	}
}

// Kueue's waitForPodsReady does not apply to a Koord-Queue unit: a Job routed
// to Koord-Queue with simulation.quokka.dev/pods-ready-after is refused,
// naming the annotation and the one Koord-Queue units read instead.
func TestKoordJobRefusesPodsReadyAfter(t *testing.T) {
	t.Parallel()
	job := `---
apiVersion: batch/v1
kind: Job
metadata: {name: unit, namespace: ns, labels: {quota.scheduling.koordinator.sh/name: team-a}, annotations: {simulation.quokka.dev/pods-ready-after: 1m}}
spec: {suspend: true, template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}}
`
	d := docs(t, cpuEQ("team-a", "1")+job)
	_, err := Run(d, Options{NewEngine: func(o EngineOptions) (Engine, error) { return newFakeEngine(o), nil }})
	if err == nil || !strings.Contains(err.Error(), "simulation.quokka.dev/pods-ready-after") || !strings.Contains(err.Error(), PodStartupAnnotation) {
		t.Fatalf("err = %v; want the annotation refused for a Koord-Queue unit", err)
	}
}
