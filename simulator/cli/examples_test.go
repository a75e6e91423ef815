package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quokka.dev/quokka/simulator/output"
)

// 002, "Worked example: three teams, 64 H100s", step 0: "Research ceiling: 32 +
// min(16, 20) = 48 GPUs, which is six 8-GPU jobs. Allocated: 48 + 6 + 0 = 54.
// Idle: 10."
func TestSpecThreeTeamsStep0ResearchBursts(t *testing.T) {
	t.Parallel()
	doc := simulateJSON(t, "-f", repo("examples", "gpu-cluster"), "--until", "5m")
	want := map[string]string{"research": "48", "product-training": "6", "eval": ""}
	total := 0
	for cq, gpus := range want {
		got := usage(t, doc, cq, "h100", "nvidia.com/gpu")
		if got != gpus {
			t.Errorf("at 5m %s uses %q GPUs, want %q", cq, got, gpus)
		}
		var n int
		if got != "" {
			if _, err := fmt.Sscan(got, &n); err != nil {
				t.Fatalf("%s's usage %q is not a number: %v", cq, got, err)
			}
		}
		total += n
	}
	// The sum of what was measured, not of what the table expects.
	if total != 54 {
		t.Errorf("allocated %d in all, want 54 (idle 10)", total)
	}
	for i := 1; i <= 6; i++ {
		if w := workload(t, doc, fmt.Sprintf("research/sweep-%d", i)); w.State != "Admitted" {
			t.Errorf("research/sweep-%d is %s, want Admitted", i, w.State)
		}
	}
	if w := workload(t, doc, "research/sweep-7"); w.State != "Pending" || w.Reason != "BorrowingLimitReached" {
		t.Errorf("research/sweep-7 = %s (%s), want Pending on BorrowingLimitReached", w.State, w.Reason)
	}
	if w := workload(t, doc, "product-training/ranker-v3"); w.State != "Admitted" || w.ClusterQueue != "product-training" {
		t.Errorf("the preset product-training workload = %+v, want Admitted in product-training", w)
	}
	if got := eventsOf(doc, "Admitted"); len(got) != 7 || !got[0].Preset || got[0].Time != 0 {
		t.Errorf("want 7 admissions at 0s, the first one the preset workload; got %+v", got)
	}
}

// 002, step 1: "product-training submits a 16-GPU job. 6 + 16 = 22 ≤ 24 ... preempting
// one 8-GPU research job is enough. Result: research 40, product-training 22, eval
// 0. Total 62, free 2." The spec's prose says two jobs; its numbers say one, and
// the simulator follows the numbers.
func TestSpecThreeTeamsStep1ProductTrainingReclaims(t *testing.T) {
	t.Parallel()
	needs(t, caps().Preemption, "classic preemption (reclaimWithinCohort: Any)",
		"exactly one research job Preempted at 10m by product-training/ranker-v4, which is then Admitted; research 40, product-training 22, eval 0")
	doc := simulateJSON(t, "-f", repo("examples", "gpu-cluster"), "--until", "15m")
	preempted := eventsOf(doc, "Preempted")
	if len(preempted) != 1 {
		t.Fatalf("want exactly one preemption by 15m, got %+v", preempted)
	}
	p := preempted[0]
	if p.Time != 600 || p.ClusterQueue != "research" || p.Preemptor != "product-training/ranker-v4" {
		t.Errorf("preemption = %+v; want a research job at 600s by product-training/ranker-v4", p)
	}
	if i, j := indexOf(doc, "Preempted", p.Workload), indexOf(doc, "Admitted", "product-training/ranker-v4"); j < 0 || i > j {
		t.Errorf("the victim's Preempted (event %d) must come before the preemptor's Admitted (event %d)", i, j)
	}
	for cq, gpus := range map[string]string{"research": "40", "product-training": "22", "eval": ""} {
		if got := usage(t, doc, cq, "h100", "nvidia.com/gpu"); got != gpus {
			t.Errorf("at 15m %s uses %q GPUs, want %q", cq, got, gpus)
		}
	}
}

// 002, step 2: "eval submits an 8-GPU job ... one more research job is preempted.
// Result: research 32 (borrowing 0), product-training 22, eval 8."
func TestSpecThreeTeamsStep2EvalReclaims(t *testing.T) {
	t.Parallel()
	needs(t, caps().Preemption, "classic preemption (reclaimWithinCohort: Any)",
		"a second research job Preempted at 20m by eval/benchmark-nightly; research 32 (borrowing 0), product-training 22, eval 8")
	doc := simulateJSON(t, "-f", repo("examples", "gpu-cluster"))
	preempted := eventsOf(doc, "Preempted")
	if len(preempted) != 2 || preempted[1].Time != 1200 || preempted[1].Preemptor != "eval/benchmark-nightly" {
		t.Fatalf("want two preemptions, the second at 1200s by eval/benchmark-nightly; got %+v", preempted)
	}
	for cq, gpus := range map[string]string{"research": "32", "product-training": "22", "eval": "8"} {
		if got := usage(t, doc, cq, "h100", "nvidia.com/gpu"); got != gpus {
			t.Errorf("at the end %s uses %q GPUs, want %q", cq, got, gpus)
		}
	}
	for _, q := range doc.Final.ClusterQueues {
		if q.Name == "research" && len(q.Borrowed) != 0 {
			t.Errorf("research must borrow nothing at the end, borrows %v", q.Borrowed)
		}
	}
	pending := 0
	for _, w := range doc.Final.Workloads {
		if strings.HasPrefix(w.Name, "research/") && w.State == "Pending" {
			pending++
		}
	}
	if pending != 3 {
		t.Errorf("%d research jobs pending, want 3 (sweep-7 and the two preempted)", pending)
	}
}

// 002, fair sharing worked example: "B submits a 4-GPU job ... 125 ≤ 125,
// LessThanOrEqualToFinalShare holds and the A job is preempted. Both queues end
// at 32 GPUs."
func TestSpecFairSharingFourGPUJob(t *testing.T) {
	t.Parallel()
	needs(t, caps().FairSharing, "fair sharing (the Configuration's fairSharing block)",
		"one team-a job Preempted at 10m by team-b/b-8; team-a 32 and team-b 32 GPUs")
	doc := simulateJSON(t, "-f", repo("examples", "fair-sharing"))
	preempted := eventsOf(doc, "Preempted")
	if len(preempted) != 1 || preempted[0].ClusterQueue != "team-a" || preempted[0].Preemptor != "team-b/b-8" || preempted[0].Time != 600 {
		t.Fatalf("want one team-a job preempted at 600s by team-b/b-8, got %+v", preempted)
	}
	for cq, gpus := range map[string]string{"team-a": "32", "team-b": "32", "team-c": ""} {
		if got := usage(t, doc, cq, "h100", "nvidia.com/gpu"); got != gpus {
			t.Errorf("%s uses %q GPUs, want %q", cq, got, gpus)
		}
	}
}

// 002, fair sharing: "B submits an 8-GPU job instead ... 187.5 ≤ 62.5 fails, and
// LessThanInitialShare (187.5 < 187.5) also fails, so B waits."
func TestSpecFairSharingEightGPUJobWaits(t *testing.T) {
	t.Parallel()
	needs(t, caps().FairSharing, "fair sharing (the Configuration's fairSharing block)",
		"no preemption; team-b/b-8 (8 GPUs) Pending; team-a 36, team-b 28")
	dir := copyExampleEditing(t, "fair-sharing", "trace.yaml", func(data string) string {
		// The last document is b-8: its request and its limit become 8 GPUs.
		last := strings.LastIndex(data, "\n---\n")
		return data[:last] + strings.ReplaceAll(data[last:], `nvidia.com/gpu: "4"`, `nvidia.com/gpu: "8"`)
	})
	doc := simulateJSON(t, "-f", dir)
	if p := eventsOf(doc, "Preempted"); len(p) != 0 {
		t.Errorf("flipping the imbalance gains nothing: want no preemption, got %+v", p)
	}
	if w := workload(t, doc, "team-b/b-8"); w.State != "Pending" {
		t.Errorf("team-b/b-8 = %s, want Pending", w.State)
	}
	for cq, gpus := range map[string]string{"team-a": "36", "team-b": "28"} {
		if got := usage(t, doc, cq, "h100", "nvidia.com/gpu"); got != gpus {
			t.Errorf("%s uses %q GPUs, want %q", cq, got, gpus)
		}
	}
}

// 000, Caveats: "When capacity goes down, Kueue does not evict workloads that are
// already admitted. Usage can be above the new quota for a while." And new
// admissions follow the effective quotas.
func TestDynamicQuotaExample(t *testing.T) {
	t.Parallel()
	ex := repo("examples", "dynamic-quota")

	// 1h: capacity halved at 30m, quotas 16 and 16, usage still 32 and 32.
	doc := simulateJSON(t, "-f", ex, "--until", "1h")
	for _, cq := range []string{"vision", "speech"} {
		if got := usage(t, doc, cq, "h100", "nvidia.com/gpu"); got != "32" {
			t.Errorf("at 1h %s uses %q GPUs, want 32: admitted work is not evicted when capacity drops", cq, got)
		}
	}
	if n := len(eventsOf(doc, "Preempted")) + len(eventsOf(doc, "Evicted")); n != 0 {
		t.Errorf("a capacity drop must not evict anything; got %d evictions", n)
	}
	if w := workload(t, doc, "vision/vision-eval-1"); w.State != "Pending" {
		t.Errorf("vision/vision-eval-1 = %s at 1h, want Pending (vision uses 32 of an effective 16)", w.State)
	}
	nominal := map[string][]string{}
	for _, u := range doc.QuotaUpdates {
		if g, ok := u.Nominal["h100"]["nvidia.com/gpu"]; ok {
			nominal[u.Object] = append(nominal[u.Object], fmt.Sprintf("%gs=%s", u.Time, g))
		}
	}
	for _, obj := range []string{"ClusterQueue vision", "ClusterQueue speech"} {
		if got := strings.Join(nominal[obj], " "); got != "0s=32 1800s=16" {
			t.Errorf("%s effective quotas by 1h: %q, want \"0s=32 1800s=16\"", obj, got)
		}
	}

	// 2h5m: the first jobs are done; admissions follow the effective 16 + 16.
	doc = simulateJSON(t, "-f", ex, "--until", "2h5m")
	if got := usage(t, doc, "vision", "h100", "nvidia.com/gpu"); got != "8" {
		t.Errorf("at 2h5m vision uses %q GPUs, want 8", got)
	}
	if got := usage(t, doc, "speech", "h100", "nvidia.com/gpu"); got != "24" {
		t.Errorf("at 2h5m speech uses %q GPUs, want 24 (16 of its own, 8 borrowed from vision)", got)
	}

	// The end: capacity back at 2h30m, vision's four tuning jobs start at 2h45m.
	doc = simulateJSON(t, "-f", ex)
	for i := 1; i <= 4; i++ {
		name := fmt.Sprintf("vision/vision-tune-%d", i)
		at := indexOf(doc, "Admitted", name)
		if at < 0 || doc.Events[at].Time != 9900 {
			t.Errorf("%s must be admitted at 2h45m (9900s) once the capacity is back", name)
		}
	}
	for _, w := range doc.Final.Workloads {
		if w.State != "Finished" {
			t.Errorf("%s is %s at the end, want Finished", w.Name, w.State)
		}
	}
}

// copyDir copies the manifests of an example so a test can change one.
// copyExampleEditing copies examples/name into a temporary directory, passes
// the text of one of its files through edit, and returns the directory.
func copyExampleEditing(t *testing.T, name, file string, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, repo("examples", name), dir)
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// koordEvent returns the first event of type typ for workload.
func koordEvent(t *testing.T, doc output.Document, typ, workload string) output.Event {
	t.Helper()
	if i := indexOf(doc, typ, workload); i >= 0 {
		return doc.Events[i]
	}
	t.Fatalf("no %s event for %s in %+v", typ, workload, doc.Events)
	return output.Event{}
}

// elasticQuota returns a quota of the final state.
func elasticQuota(t *testing.T, doc output.Document, name string) output.ElasticQuota {
	t.Helper()
	for _, q := range doc.Final.ElasticQuotas {
		if q.Name == name {
			return q
		}
	}
	t.Fatalf("no ElasticQuota %s in the final state %+v", name, doc.Final.ElasticQuotas)
	return output.ElasticQuota{}
}

// 004: "Because every level of the chain is evaluated, a job can be held in the
// queue by an ancestor quota even when its own quota still has capacity."
func TestKoordQueueExampleParentHoldsJob(t *testing.T) {
	t.Parallel()
	doc := simulateJSON(t, "-f", repo("examples", "koord-queue"), "--until", "30m")
	b1 := workload(t, doc, "team-b/train-b1")
	if b1.State != "Pending" || b1.Reason != "FailedScheduling" || !strings.Contains(b1.Message, "quotaName:org") || b1.ElasticQuota != "team-b" {
		t.Errorf("team-b/train-b1 = %+v, want Pending on FailedScheduling, held by org", b1)
	}
	if got := elasticQuota(t, doc, "team-b").Used["nvidia.com/gpu"]; got != "2" {
		t.Errorf("team-b uses %q GPUs of its max 8, want 2: its own quota has capacity", got)
	}
	if got := elasticQuota(t, doc, "org").Used["nvidia.com/gpu"]; got != "8" {
		t.Errorf("org uses %q GPUs, want 8 (its max)", got)
	}
	// A Priority queue skips the unit that does not fit: eval-b2 runs.
	if w := workload(t, doc, "team-b/eval-b2"); w.State != "Admitted" || w.ElasticQuota != "team-b" || w.ClusterQueue != "" {
		t.Errorf("team-b/eval-b2 = %+v, want Admitted in ElasticQuota team-b", w)
	}
	// 004: "a message of the form queue <name> not found for queueUnit <namespace>/<name>".
	if w := workload(t, doc, "default/misrouted"); w.Reason != "QueueNotFound" || w.Message != "queue team-c not found for queueUnit default/misrouted" {
		t.Errorf("default/misrouted = %+v", w)
	}
	for _, e := range doc.Events {
		if e.ClusterQueue != "" || e.ElasticQuota == "" {
			t.Errorf("a Koord-Queue event names ClusterQueue %q and ElasticQuota %q", e.ClusterQueue, e.ElasticQuota)
		}
	}
	if len(doc.Final.ClusterQueues) != 0 {
		t.Errorf("no ClusterQueue in the input, but the final state lists %+v", doc.Final.ClusterQueues)
	}
}

// Finishing a unit releases its quota on the whole chain: when train-a1 ends at
// 1h, org has room and the held train-b1 is admitted at the same instant.
func TestKoordQueueExampleFinishReleasesTheChain(t *testing.T) {
	t.Parallel()
	doc := simulateJSON(t, "-f", repo("examples", "koord-queue"))
	fin := indexOf(doc, "Finished", "team-a/train-a1")
	adm := indexOf(doc, "Admitted", "team-b/train-b1")
	if fin < 0 || adm < fin || doc.Events[fin].Time != 3600 || doc.Events[adm].Time != 3600 {
		t.Fatalf("want train-a1 Finished then train-b1 Admitted, both at 3600s; events %+v", doc.Events)
	}
	if e := doc.Events[fin]; e.ElasticQuota != "team-a" {
		t.Errorf("Finished event = %+v, want ElasticQuota team-a", e)
	}
	if doc.Final.Time != 5400 {
		t.Errorf("final time %v, want 5400 (train-b1 finishes at 1h30m)", doc.Final.Time)
	}
	org := elasticQuota(t, doc, "org")
	if org.Parent != "koordinator-root-quota" || org.Min["nvidia.com/gpu"] != "8" || org.Max["nvidia.com/gpu"] != "8" || org.Used["nvidia.com/gpu"] != "2" {
		t.Errorf("org = %+v, want parent koordinator-root-quota, min 8, max 8, used 2 (eval-b2)", org)
	}
	if a := elasticQuota(t, doc, "team-a"); a.Parent != "org" || len(a.Used) != 0 {
		t.Errorf("team-a = %+v, want parent org and nothing used", a)
	}
	// Issue 14: the root is charged too and reported, although the example
	// does not write it as an ElasticQuota (then without parent, min or max).
	if r := elasticQuota(t, doc, "koordinator-root-quota"); r.Parent != "" || r.Min != nil || r.Max != nil || r.Used["nvidia.com/gpu"] != "2" || r.Used["cpu"] != "8" {
		t.Errorf("koordinator-root-quota = %+v, want no parent, min or max, and used 2 GPUs and 8 CPUs (eval-b2)", r)
	}
}

// 004: usage is evaluated against max "scaled by the oversell rate configured
// with the flag --oversellrate": at 1.5, org's 8 GPUs count as 12.
func TestKoordQueueExampleOversellRate(t *testing.T) {
	t.Parallel()
	doc := simulateJSON(t, "-f", repo("examples", "koord-queue"), "--oversell-rate", "1.5")
	if e := koordEvent(t, doc, "Admitted", "team-b/train-b1"); e.Time != 300 {
		t.Errorf("train-b1 admitted at %vs, want 300 (6 + 4 <= 8 × 1.5)", e.Time)
	}
}

// An ElasticQuota re-applied with simulation.quokka.dev/at replaces the earlier
// one at its time (004: "Update: The Queue is reconciled: policy, parent label
// and synchronised annotations are updated"): raising org's max admits the held
// job, and turning team-b into a Block queue holds eval-b2 behind it.
func TestKoordQueueElasticQuotaReappliedMidRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc string
		check     func(t *testing.T, doc output.Document)
	}{
		{"org raised at 7m", `apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata:
  name: org
  namespace: default
  annotations: {simulation.quokka.dev/at: 7m}
spec:
  max: {nvidia.com/gpu: "12"}
`, func(t *testing.T, doc output.Document) {
			if e := koordEvent(t, doc, "Admitted", "team-b/train-b1"); e.Time != 420 {
				t.Errorf("train-b1 admitted at %vs, want 420 when org is raised", e.Time)
			}
			if got := elasticQuota(t, doc, "org").Max["nvidia.com/gpu"]; got != "12" {
				t.Errorf("org max = %q, want the re-applied 12", got)
			}
		}},
		{"team-b becomes a Block queue at 1m", `apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata:
  name: team-b
  namespace: default
  labels: {quota.scheduling.koordinator.sh/parent: org, koord-queue/queue-policy: Block}
  annotations: {simulation.quokka.dev/at: 1m}
spec:
  max: {nvidia.com/gpu: "8"}
`, func(t *testing.T, doc output.Document) {
			w := workload(t, doc, "team-b/eval-b2")
			if w.State != "Pending" || w.Reason != "QueueBlocked" || !strings.Contains(w.Message, "blocked by team-b/train-b1") {
				t.Errorf("team-b/eval-b2 = %+v, want Pending behind train-b1 in the Block queue", w)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			copyDir(t, repo("examples", "koord-queue"), dir)
			if err := os.WriteFile(filepath.Join(dir, "zz-update.yaml"), []byte(c.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			c.check(t, simulateJSON(t, "-f", dir, "--until", "30m"))
		})
	}
}

// admittedAt maps each workload to the time, in seconds, of its admission.
func admittedAt(doc output.Document) map[string]float64 {
	out := map[string]float64{}
	for _, e := range eventsOf(doc, "Admitted") {
		out[e.Workload] = e.Time
	}
	return out
}

// checkAdmissionTimes asserts when each of the example's twelve jobs was
// admitted: tenant-a's a-1..a-4 at 0s, then the given teams' jobs at 30m and 1h.
func checkAdmissionTimes(t *testing.T, doc output.Document, at30m, at1h []string) {
	t.Helper()
	got := admittedAt(doc)
	for when, names := range map[float64][]string{0: {"tenant-a/a-1", "tenant-a/a-2", "tenant-a/a-3", "tenant-a/a-4"}, 1800: at30m, 3600: at1h} {
		for _, n := range names {
			if at, ok := got[n]; !ok || at != when {
				t.Errorf("%s admitted at %vs (%v), want %vs", n, at, ok, when)
			}
		}
	}
}

// 002, "Admission Fair Sharing": "It orders Workloads by the decayed
// historical usage of their LocalQueue, and an entry penalty stops a tenant
// from flooding the queue before its usage catches up." Tenant A's eight jobs
// and tenant B's four (a minute later) share 16 GPUs; when A's first four
// finish at 30m, A has used 16 GPUs for half an hour and B nothing, so B's
// four go first although A's are older. The order depends on Kueue's samples
// every five minutes while A's jobs run: sampled only at 30m, when they have
// finished, A's usage would be its entry penalties decayed, and a-5 would
// take the fourth slot.
func TestSpecAdmissionFairSharingOrdersByUsage(t *testing.T) {
	t.Parallel()
	needs(t, caps().AdmissionFairSharing, "admission fair sharing (the Configuration's admissionFairSharing block)",
		"tenant-b's four jobs admitted at 30m, tenant-a's last four at 1h")
	doc := simulateJSON(t, "-f", repo("examples", "admission-fair-sharing"))
	checkAdmissionTimes(t, doc, []string{"tenant-b/b-1", "tenant-b/b-2", "tenant-b/b-3", "tenant-b/b-4"},
		[]string{"tenant-a/a-5", "tenant-a/a-6", "tenant-a/a-7", "tenant-a/a-8"})
	// The final state lists both LocalQueues' usage: A ran 16 GPUs for an
	// hour, B for half an hour.
	usage := map[string]float64{}
	for _, lq := range doc.Final.LocalQueues {
		if lq.ClusterQueue != "shared-gpus" {
			t.Errorf("%s feeds %q, want shared-gpus", lq.Name, lq.ClusterQueue)
		}
		var u float64
		if _, err := fmt.Sscan(lq.Usage, &u); err != nil {
			t.Fatalf("%s's usage %q: %v", lq.Name, lq.Usage, err)
		}
		usage[lq.Name] = u
	}
	if len(usage) != 2 || usage["tenant-a/gpus"] <= usage["tenant-b/gpus"] || usage["tenant-b/gpus"] <= 0 {
		t.Errorf("final LocalQueue usage %v: want tenant-a/gpus above tenant-b/gpus, both above 0", usage)
	}
}

// The same trace without the admissionFairSharing block: the ClusterQueue is
// plain BestEffortFIFO, and A's older jobs run first.
func TestSpecAdmissionFairSharingOffIsFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyDir(t, repo("examples", "admission-fair-sharing"), dir)
	if err := os.Remove(filepath.Join(dir, "01-configuration.yaml")); err != nil {
		t.Fatal(err)
	}
	doc := simulateJSON(t, "-f", dir)
	checkAdmissionTimes(t, doc, []string{"tenant-a/a-5", "tenant-a/a-6", "tenant-a/a-7", "tenant-a/a-8"},
		[]string{"tenant-b/b-1", "tenant-b/b-2", "tenant-b/b-3", "tenant-b/b-4"})
	if len(doc.Final.LocalQueues) != 0 {
		t.Errorf("without admission fair sharing no LocalQueue usage is listed, got %+v", doc.Final.LocalQueues)
	}
}

// A LocalQueue's persisted usage (status.fairSharing.admissionFairSharingStatus,
// which `quokka snapshot` keeps) seeds the simulation, as it seeds a restarted
// manager: with tenant B's LocalQueue having used 100 GPUs before, tenant A's
// older jobs go first at 30m after all.
func TestAdmissionFairSharingSeedsFromTheLocalQueuesStatus(t *testing.T) {
	t.Parallel()
	needs(t, caps().AdmissionFairSharing, "admission fair sharing (the Configuration's admissionFairSharing block)",
		"tenant-a's last four jobs admitted at 30m, tenant-b's at 1h")
	lqB := "  name: gpus\n  namespace: tenant-b\nspec:\n  clusterQueue: shared-gpus\n"
	dir := copyExampleEditing(t, "admission-fair-sharing", "00-cluster.yaml", func(data string) string {
		if !strings.Contains(data, lqB) {
			t.Fatal("tenant-b's LocalQueue is not written as expected in 00-cluster.yaml")
		}
		return strings.Replace(data, lqB, lqB+`status:
  fairSharing:
    admissionFairSharingStatus:
      consumedResources:
        nvidia.com/gpu: "100"
      lastUpdate: "2026-12-06T09:00:00Z"
`, 1)
	})
	doc := simulateJSON(t, "-f", dir)
	checkAdmissionTimes(t, doc, []string{"tenant-a/a-5", "tenant-a/a-6", "tenant-a/a-7", "tenant-a/a-8"},
		[]string{"tenant-b/b-1", "tenant-b/b-2", "tenant-b/b-3", "tenant-b/b-4"})
}
