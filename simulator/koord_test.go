package simulator

import (
	"strings"
	"testing"
	"time"

	"quokka.dev/quokka/engine/elasticquota"
)

// eqYAML is an ElasticQuota of max GPUs under parent ("" for none), applied at `at`.
func eqYAML(name, parent string, gpus int, at string) string {
	labels := ""
	if parent != "" {
		labels = `, labels: {quota.scheduling.koordinator.sh/parent: ` + parent + `}`
	}
	return `---
apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata: {name: ` + name + `, namespace: default` + labels + `, annotations: {simulation.quokka.dev/at: ` + at + `}}
spec: {max: {nvidia.com/gpu: "` + itoa(gpus) + `"}}
`
}

// koordJobYAML is a Job charged to quota (the label, no LocalQueue), created
// suspended as Koord-Queue requires of the Jobs it queues.
func koordJobYAML(ns, name, quota string, gpus int, at, runtime string) string {
	y := strings.Replace(jobYAML(ns, name, gpus, at, runtime),
		"kueue.x-k8s.io/queue-name: q", "quota.scheduling.koordinator.sh/name: "+quota, 1)
	return strings.Replace(y, "spec: {template:", "spec: {suspend: true, template:", 1)
}

// A job with the quota label and no LocalQueue goes through the ElasticQuota
// scheduler, gets Submitted, Admitted and Finished with its ElasticQuota, and
// releases its quota when it finishes; the Kueue engine never sees it.
func TestKoordUnitLifecycle(t *testing.T) {
	t.Parallel()
	d := docs(t, eqYAML("team-a", "", 8, "0s")+
		koordJobYAML("ns", "a", "team-a", 8, "0s", "1h")+
		koordJobYAML("ns", "b", "team-a", 8, "0s", "1h"))
	res, engines := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/a", "0s Submitted ns/b", "0s Admitted ns/a",
		"1h Finished ns/a", "1h Admitted ns/b", "2h Finished ns/b")
	for _, e := range res.Events {
		if e.ElasticQuota != "team-a" || e.ClusterQueue != "" {
			t.Errorf("event %+v, want ElasticQuota team-a and no ClusterQueue", e)
		}
	}
	if len(engines[0].wls) != 0 {
		t.Errorf("the Kueue engine got %d workloads, want none", len(engines[0].wls))
	}
	if q := res.ElasticQuotas; len(q) != 2 || q[0].Name != "koordinator-root-quota" || q[1].Name != "team-a" || len(q[0].Used) != 0 || len(q[1].Used) != 0 {
		t.Errorf("elastic quotas at the end = %+v, want the root and team-a with nothing used", q)
	}
	if len(res.Queues) != 0 {
		t.Errorf("ClusterQueue accounts %+v, want none", res.Queues)
	}
}

// "A later document with the same kind, namespace and name replaces the earlier
// one at its time": a Koord-Queue job re-applied as a Kueue job leaves its quota,
// and the other way round.
func TestKoordUnitReplacedByKueueJobAndBack(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+eqYAML("team-a", "", 8, "0s")+
		koordJobYAML("ns", "a", "team-a", 8, "0s", "")+
		jobYAML("ns", "a", 8, "10m", "")+
		koordJobYAML("ns", "b", "team-a", 8, "20m", "")+
		koordJobYAML("ns", "c", "team-a", 8, "20m", "")+
		jobYAML("ns", "b", 8, "30m", ""))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/a", "0s Admitted ns/a",
		"10m Submitted ns/a", "10m Admitted ns/a",
		"20m Submitted ns/b", "20m Submitted ns/c", "20m Admitted ns/b",
		"30m Submitted ns/b", "30m Admitted ns/c")
	byName := map[string]WorkloadResult{}
	for _, w := range res.Workloads {
		byName[w.Name] = w
	}
	if a := byName["ns/a"]; a.ClusterQueue != "cq" || a.ElasticQuota != "" || a.State != StateAdmitted {
		t.Errorf("ns/a = %+v, want admitted by Kueue in cq", a)
	}
	if b := byName["ns/b"]; b.ClusterQueue != "cq" || b.State != StatePending {
		t.Errorf("ns/b = %+v, want pending in cq (a holds its 8 GPUs)", b)
	}
	if c := byName["ns/c"]; c.ElasticQuota != "team-a" || c.State != StateAdmitted {
		t.Errorf("ns/c = %+v, want admitted in team-a once b left it", c)
	}
	if len(res.Workloads) != 3 {
		t.Errorf("%d workloads at the end, want 3", len(res.Workloads))
	}
}

// 004: "A job that does not carry the label does not resolve to any quota":
// an empty label is a Koord-Queue unit with no quota, pending for good, with a
// reason the simulator shows; an ElasticQuota applied later admits a unit that
// was QueueNotFound.
func TestKoordUnitsWithoutQuotaOrQueue(t *testing.T) {
	t.Parallel()
	d := docs(t, koordJobYAML("ns", "none", `""`, 1, "0s", "")+
		koordJobYAML("ns", "late", "team-z", 1, "0s", "")+
		eqYAML("team-z", "", 1, "1h"))
	res, _ := run(t, d, Options{Until: 30 * time.Minute, HasUntil: true}, nil)
	byName := map[string]WorkloadResult{}
	for _, w := range res.Workloads {
		byName[w.Name] = w
	}
	if w, ok := byName["ns/none"]; !ok || w.Reason != "NoQuotaLabel" || w.ElasticQuota != "" {
		t.Errorf("ns/none = %+v (present: %v), want pending with NoQuotaLabel and no ElasticQuota", w, ok)
	}
	if w, ok := byName["ns/late"]; !ok || w.Reason != "QueueNotFound" || w.Message != "queue team-z not found for queueUnit ns/late" {
		t.Errorf("ns/late = %+v (present: %v), want pending with QueueNotFound", w, ok)
	}
	if len(res.Workloads) != 2 {
		t.Errorf("%d workloads at 30m, want 2", len(res.Workloads))
	}
	res, _ = run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/none", "0s Submitted ns/late", "1h Admitted ns/late")
}

// The oversell rate scales max: Options.OversellRate is the CLI's --oversell-rate.
func TestKoordOversellRateOption(t *testing.T) {
	t.Parallel()
	d := docs(t, eqYAML("team-a", "", 4, "0s")+koordJobYAML("ns", "a", "team-a", 6, "0s", ""))
	res, _ := run(t, d, Options{}, nil)
	if res.Workloads[0].State != StatePending {
		t.Errorf("6 GPUs against max 4 at rate 1: %+v", res.Workloads[0])
	}
	rate, err := parseRate("1.5")
	if err != nil {
		t.Fatal(err)
	}
	res, _ = run(t, d, Options{OversellRate: rate}, nil)
	if res.Workloads[0].State != StateAdmitted {
		t.Errorf("6 GPUs against max 4 × 1.5: %+v", res.Workloads[0])
	}
}

func parseRate(s string) (elasticquota.OversellRate, error) { return elasticquota.ParseOversellRate(s) }
