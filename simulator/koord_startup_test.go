package simulator

import (
	"strings"
	"testing"
	"time"
)

// preemptingQuotaYAML is an ElasticQuota of max GPUs whose queue waits for
// pods running and may preempt.
func preemptingQuotaYAML(name string, gpus int) string {
	return `---
apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata:
  name: ` + name + `
  namespace: default
  annotations: {koord-queue/wait-for-pods-running: "true", koord-queue/enable-queueunit-preemption: "true"}
spec: {max: {nvidia.com/gpu: "` + itoa(gpus) + `"}}
`
}

// koordWorkloadYAML is a Workload charged to quota with a priority, a runtime
// and, unless startup is "", a pod start-up delay.
func koordWorkloadYAML(name, quota string, priority, gpus int, at, runtime, startup string) string {
	ann := "simulation.quokka.dev/at: " + at + ", simulation.quokka.dev/runtime: " + runtime
	if startup != "" {
		ann += ", " + PodStartupAnnotation + ": " + startup
	}
	return `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: ` + name + `, namespace: ns, labels: {quota.scheduling.koordinator.sh/name: ` + quota + `}, annotations: {` + ann + `}}
spec:
  priority: ` + itoa(priority) + `
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "` + itoa(gpus) + `"}}}]}}}]
`
}

// Issue 14: "With wait-for-pods-running: "true", a queue admits nothing new
// while one of its admitted units has pods not yet running", and "with both
// annotations, a unit that fails the usage check may mark victims among the
// queue's assumed units that sort after it ... the preemptor is then
// admitted". Pods take 10m to start: low-b waits for low-a's pods, urgent
// reclaims low-b, whose pods have not started, and starts at once; low-b
// comes back when low-a finishes.
func TestKoordPodStartupSerialisesAndPreempts(t *testing.T) {
	t.Parallel()
	d := docs(t, preemptingQuotaYAML("team-a", 8)+
		koordWorkloadYAML("low-a", "team-a", 1, 4, "0s", "1h", "10m")+
		koordWorkloadYAML("low-b", "team-a", 1, 4, "0s", "1h", "10m")+
		koordWorkloadYAML("urgent", "team-a", 10, 4, "15m", "1h", "10m"))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res,
		"0s Submitted ns/low-a", "0s Submitted ns/low-b", "0s Admitted ns/low-a",
		"10m Admitted ns/low-b",
		"15m Submitted ns/urgent", "15m Preempted ns/low-b by ns/urgent", "15m Admitted ns/urgent",
		"1h Finished ns/low-a", "1h Admitted ns/low-b",
		"1h15m Finished ns/urgent", "2h Finished ns/low-b")
	for _, e := range res.Events {
		if e.Type == Preempted && (e.ElasticQuota != "team-a" || e.Reason != "InQueue" ||
			!strings.Contains(e.Message, "preempted by ns/urgent: 1 of its 1 replicas, whose pods do not run, are reclaimed")) {
			t.Errorf("Preempted event %+v", e)
		}
	}

	res, _ = run(t, d, Options{Until: 5 * time.Minute, HasUntil: true}, nil)
	for _, w := range res.Workloads {
		if w.Name == "ns/low-b" && (w.Reason != "WaitForPodsRunning" || !strings.Contains(w.Message, "waits for the pods of ns/low-a to run")) {
			t.Errorf("at 5m low-b = %+v, want waiting for low-a's pods", w)
		}
	}
}

// Without the start-up annotation pods run at admission: the same quota and
// jobs play exactly as before, nothing waits and nothing is preempted.
func TestKoordWithoutPodStartupNothingChanges(t *testing.T) {
	t.Parallel()
	d := docs(t, preemptingQuotaYAML("team-a", 8)+
		koordWorkloadYAML("low-a", "team-a", 1, 4, "0s", "1h", "")+
		koordWorkloadYAML("low-b", "team-a", 1, 4, "0s", "1h", "")+
		koordWorkloadYAML("urgent", "team-a", 10, 4, "15m", "1h", "0s"))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res,
		"0s Submitted ns/low-a", "0s Submitted ns/low-b", "0s Admitted ns/low-a", "0s Admitted ns/low-b",
		"15m Submitted ns/urgent",
		"1h Finished ns/low-a", "1h Finished ns/low-b", "1h Admitted ns/urgent", "2h Finished ns/urgent")
}

// A start-up delay that is not a duration stops the run with the field path.
func TestKoordPodStartupMustBeADuration(t *testing.T) {
	t.Parallel()
	d := docs(t, preemptingQuotaYAML("team-a", 8)+koordWorkloadYAML("a", "team-a", 1, 4, "0s", "1h", "soon"))
	opts := Options{NewEngine: func(o EngineOptions) (Engine, error) { return newFakeEngine(o), nil }}
	_, err := Run(d, opts)
	if err == nil || !strings.Contains(err.Error(), `metadata.annotations[koord.simulation.quokka.dev/pod-startup]: Invalid value: "soon"`) {
		t.Fatalf("err = %v", err)
	}
}
