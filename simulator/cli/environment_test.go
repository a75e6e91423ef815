package cli

import (
	"fmt"
	"strings"
	"testing"
)

// queueWorld is a ResourceFlavor f1, a ClusterQueue cq of cpu cores in it
// (with spec.preemption when preemption is not empty, e.g.
// "{withinClusterQueue: LowerPriority}") and its LocalQueue lq in namespace ns.
func queueWorld(cpu int, preemption string) string {
	pre := ""
	if preemption != "" {
		pre = "  preemption: " + preemption + "\n"
	}
	return fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
%s  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f1, resources: [{name: cpu, nominalQuota: %d}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
`, pre, cpu)
}

// envWorld is queueWorld of 4 cpu without preemption, then extra and the jobs.
func envWorld(extra string, jobs ...string) string {
	return queueWorld(4, "") + extra + strings.Join(jobs, "")
}

// cpuPod is envJob's pod spec of one container requesting cpu.
func cpuPod(cpu string) string {
	return "      containers: [{name: c, image: busybox, resources: {requests: {cpu: \"" + cpu + "\"}}}]\n"
}

// limitRangeCPU is a LimitRange of namespace ns defaulting a container's cpu
// request to defaultRequest.
func limitRangeCPU(defaultRequest string) string {
	return `---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: ns}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: "` + defaultRequest + `"}
`
}

// envJob is a one-pod Job at 0s running 1h, with the pod spec fields given
// (YAML inside the pod spec, indented six spaces).
func envJob(name, podSpec string) string {
	return `---
apiVersion: batch/v1
kind: Job
metadata:
  name: ` + name + `
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: lq}
  annotations: {simulation.quokka.dev/at: 0s, simulation.quokka.dev/runtime: 1h}
spec:
  template:
    spec:
      restartPolicy: Never
` + podSpec
}

// The simulator counts pods as the manager does in a namespace with a
// LimitRange (Kueue's AdjustResources): containers without requests get the
// default request, 2 cpu here, so only two of three such jobs fit in 4 cpu;
// a RuntimeClass's overhead is charged to a job naming it.
func TestSimulatorCountsLimitRangesAndRuntimeClasses(t *testing.T) {
	t.Parallel()
	limitRange := limitRangeCPU("2")
	bare := "      containers: [{name: c, image: busybox}]\n"
	doc := simulateJSON(t, "-f", worldDir(t, envWorld(limitRange, envJob("a", bare), envJob("b", bare), envJob("c", bare))), "--until", "30m")
	if got := len(eventsOf(doc, "Admitted")); got != 2 {
		t.Errorf("admitted %d jobs, want 2 (2 cpu each by the LimitRange's default, 4 cpu in all)", got)
	}
	if got := usage(t, doc, "cq", "f1", "cpu"); got != "4" {
		t.Errorf("cpu usage %q, want 4", got)
	}

	runtimeClass := `---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead: {podFixed: {cpu: "3"}}
`
	kata := "      runtimeClassName: kata\n" + cpuPod("1")
	plain := cpuPod("1")
	doc = simulateJSON(t, "-f", worldDir(t, envWorld(runtimeClass, envJob("a-kata", kata), envJob("b-plain", plain))), "--until", "30m")
	if got := usage(t, doc, "cq", "f1", "cpu"); got != "4" {
		t.Errorf("cpu usage %q, want 4 (1 + 3 of overhead, then no room for the plain job's 1)", got)
	}
	if got := eventsOf(doc, "Admitted"); len(got) != 1 || got[0].Workload != "ns/a-kata" {
		t.Errorf("admitted %+v, want a-kata alone", got)
	}
}

// A LimitRange applied while a job waits counts for it: a maximum of 1 cpu
// per container (which the API server also makes the default limit)
// applied at 30m leaves a job of 2 cpu, waiting behind one that holds the
// queue's 4, never admitted, where it would have started at 1h.
func TestSimulatorLimitRangeAppliedLaterRecountsPendingJobs(t *testing.T) {
	t.Parallel()
	late := `---
apiVersion: v1
kind: LimitRange
metadata: {name: cap, namespace: ns, annotations: {simulation.quokka.dev/at: 30m}}
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
`
	four := cpuPod("4")
	two := cpuPod("2")
	for _, lr := range []string{"", late} {
		doc := simulateJSON(t, "-f", worldDir(t, envWorld(lr, envJob("big", four), envJob("small", two))), "--until", "90m")
		admitted := indexOf(doc, "Admitted", "ns/small") >= 0
		if admitted != (lr == "") {
			t.Errorf("with LimitRange %v: small admitted %v; want it admitted only without the LimitRange", lr != "", admitted)
		}
		if lr != "" {
			if w := workload(t, doc, "ns/small"); !strings.Contains(w.Message, "requests must not exceed its limits") {
				t.Errorf("small's message %q, want its request above the LimitRange's default limit", w.Message)
			}
		}
	}
}

// A LimitRange the API server would refuse is refused, naming the field.
func TestSimulatorRefusesABadLimitRange(t *testing.T) {
	t.Parallel()
	bad := `---
apiVersion: v1
kind: LimitRange
metadata: {name: bad, namespace: ns}
spec:
  limits:
  - type: Node
    max: {cpu: "1"}
`
	_, stderr, err := run(t, "-f", worldDir(t, envWorld(bad)), "--until", "30m")
	if err == nil || !strings.Contains(stderr+err.Error(), "spec.limits[0].type") {
		t.Fatalf("err %v, stderr %s; want the item's type refused", err, stderr)
	}
}

// A container with a limit and no request counts its namespace's LimitRange
// default request, as Kueue's AdjustResources applies the LimitRange before a
// limit stands in for a missing request: jobs limited to 3 cpu count 1 cpu
// each where the LimitRange defaults the request to 1, so all four fit in 4
// cpu at once; without the LimitRange each counts its limit and one fits.
func TestSimulatorCountsTheLimitRangeDefaultRequestBeforeTheLimit(t *testing.T) {
	t.Parallel()
	limitRange := limitRangeCPU("1")
	limited := "      containers: [{name: c, image: busybox, resources: {limits: {cpu: \"3\"}}}]\n"
	jobs := []string{envJob("a", limited), envJob("b", limited), envJob("c", limited), envJob("d", limited)}
	for _, tc := range []struct {
		name, extra string
		admitted    int
	}{
		{"with the LimitRange", limitRange, 4},
		{"without", "", 1},
	} {
		doc := simulateJSON(t, "-f", worldDir(t, envWorld(tc.extra, jobs...)), "--until", "30m")
		if got := len(eventsOf(doc, "Admitted")); got != tc.admitted {
			t.Errorf("%s: %d admitted by 30m, want %d", tc.name, got, tc.admitted)
		}
	}
}
