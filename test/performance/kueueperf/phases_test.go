package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The phases come from the audit log: a workload is admitted by the manager's
// last write before the runner's Finished write (not by an earlier pending
// reason, nor by an admission an eviction undid), and the span is the middle
// 90% of a class's admissions, since the first workload was created.
func TestPhasesFromAuditLog(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var lines []string
	write := func(user, verb, ns, name, sub string, code int, done time.Time) {
		e := map[string]any{
			"stage": "ResponseComplete", "verb": verb, "requestURI": "/apis/kueue.x-k8s.io/v1beta2/x",
			"user":                     map[string]any{"username": user},
			"objectRef":                map[string]any{"resource": "workloads", "subresource": sub, "namespace": ns, "name": name},
			"responseStatus":           map[string]any{"code": code},
			"requestReceivedTimestamp": done.Add(-10 * time.Millisecond), "stageTimestamp": done,
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	// 100 large workloads admitted one per 100 ms from t=10 s, each finished
	// 1 s later; 100 small ones admitted one per 50 ms from t=30 s. Every
	// large one first got a pending reason at t=1 s; the first ten were
	// admitted at t=2 s, evicted and admitted again in their slot.
	for i := range 100 {
		name := fmt.Sprintf("large-2-0-%d", i)
		write(runnerUser, "create", "ns", name, "", 201, at(0.01*float64(i)))
		write(managerUser, "update", "ns", name, "status", 200, at(1))
		if i < 10 {
			write(managerUser, "update", "ns", name, "status", 200, at(2))
			write(runnerUser, "patch", "ns", name, "status", 200, at(3))
		}
		adm := 10 + 0.1*float64(i)
		write(managerUser, "update", "ns", name, "status", 200, at(adm))
		// A refused write counts for nothing.
		write(managerUser, "update", "ns", name, "status", 409, at(adm+0.5))
		write(runnerUser, "patch", "ns", name, "status", 200, at(adm+1))
	}
	for i := range 100 {
		name := fmt.Sprintf("small-0-0-%d", i)
		write(runnerUser, "create", "ns", name, "", 201, at(5+0.01*float64(i)))
		adm := 30 + 0.05*float64(i)
		write(managerUser, "update", "ns", name, "status", 200, at(adm))
		write(runnerUser, "patch", "ns", name, "status", 200, at(adm+0.2))
	}
	// One never finished: left out.
	write(runnerUser, "create", "ns", "small-0-0-999", "", 201, at(6))
	write(managerUser, "update", "ns", "small-0-0-999", "status", 200, at(31))

	path := filepath.Join(t.TempDir(), "audit.log")
	body := ""
	for _, l := range lines {
		body += l + "\n"
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	log := newPhaseLog(managerUser, runnerUser)
	if _, err := countAudit(path, log); err != nil {
		t.Fatal(err)
	}
	got := log.phases(map[string]time.Duration{"large": time.Second})
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.02 }

	large, ok := got["large"]
	if !ok {
		t.Fatalf("no large phase in %v", got)
	}
	// Admissions at 10.0, 10.1, …, 19.9 s: the 5th is 10.5 s, the 95th 19.5 s.
	if !near(large.from.Seconds(), 10.5) || !near(large.to.Seconds(), 19.5) {
		t.Errorf("large phase %v–%v, want 10.5 s–19.5 s", large.from, large.to)
	}
	if !near(large.admittedPerSec, 91.0/9) {
		t.Errorf("large admitted %.2f/s, want %.2f/s", large.admittedPerSec, 91.0/9)
	}
	// Finished in 10.5–19.5 s: the large ones admitted at 10.0–18.5 s (the
	// evictions' patches came at 3 s).
	if !near(large.finishedPerSec, 86.0/9) {
		t.Errorf("Finished during the large phase %.2f/s, want %.2f/s", large.finishedPerSec, 86.0/9)
	}
	// The large ones' Finished writes were received 1 s - 10 ms after their
	// admission landed, with a 1 s runtime; the small class's runtime is not
	// given, so it has no lag.
	if !large.hasLag || large.lagMedian != -10*time.Millisecond || large.lagP90 != -10*time.Millisecond {
		t.Errorf("large lag %v / %v (known %v), want -10ms / -10ms", large.lagMedian, large.lagP90, large.hasLag)
	}
	small := got["small"]
	if small.hasLag || small.lagString() != "-" {
		t.Errorf("small lag %s without a runtime, want -", small.lagString())
	}
	if !near(small.from.Seconds(), 30.25) || !near(small.to.Seconds(), 34.75) {
		t.Errorf("small phase %v–%v, want 30.25 s–34.75 s", small.from, small.to)
	}
	if !near(small.admittedPerSec, 91.0/4.5) {
		t.Errorf("small admitted %.2f/s, want %.2f/s", small.admittedPerSec, 91.0/4.5)
	}
}

func TestWorkloadClass(t *testing.T) {
	for name, want := range map[string]string{
		"large-2-0-17":   "large",
		"my-class-0-1-2": "my-class",
		"odd":            "odd",
		"x-1-2":          "x-1-2",
	} {
		if got := workloadClass(name); got != want {
			t.Errorf("workloadClass(%q) = %q, want %q", name, got, want)
		}
	}
}

// The runner's lag is what it adds to a workload's hold beyond the runtime:
// from the manager's admission write landing to the runner's Finished write
// being received, less the runtime; the table shows its median and 90th
// percentile per class.
func TestRunnerLagFromAuditLog(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	var log = newPhaseLog(managerUser, runnerUser)
	note := func(user, verb, name, sub string, received, done time.Time) {
		noteWrite(log, user, verb, "ns", name, sub, received, done)
	}
	// Ten medium workloads (runtime 500 ms) admitted a second apart; the
	// runner's Finished write for the i-th is received i×100 ms after the
	// runtime, and takes 30 ms to complete (which does not count).
	for i := range 10 {
		name := fmt.Sprintf("medium-1-0-%d", i)
		created := t0.Add(time.Duration(i) * time.Millisecond)
		note(runnerUser, "create", name, "", created, created)
		adm := t0.Add(time.Duration(10+i) * time.Second)
		note(managerUser, "update", name, "status", adm.Add(-40*time.Millisecond), adm)
		sent := adm.Add(500*time.Millisecond + time.Duration(i)*100*time.Millisecond)
		note(runnerUser, "patch", name, "status", sent, sent.Add(30*time.Millisecond))
	}
	got := log.phases(map[string]time.Duration{"medium": 500 * time.Millisecond})["medium"]
	if !got.hasLag || got.lagMedian != 500*time.Millisecond || got.lagP90 != 900*time.Millisecond {
		t.Fatalf("medium lag %v / %v (known %v), want 500ms / 900ms", got.lagMedian, got.lagP90, got.hasLag)
	}
	if s := got.lagString(); s != "500ms / 900ms" {
		t.Errorf("lag cell %q, want %q", s, "500ms / 900ms")
	}
}

// The runtimes come from the generator config; a class given two different
// runtimes cannot be told apart by name, so it has none.
func TestGeneratorRuntimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "generator.yaml")
	cfg := `cohorts:
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 2
    nominalQuota: 20
    workloadsSets:
    - count: 3
      creationIntervalMs: 100
      workloads:
      - className: small
        runtimeMs: 200
        request: 1
      - className: mixed
        runtimeMs: 100
        request: 1
  - className: other
    count: 1
    nominalQuota: 5
    workloadsSets:
    - count: 1
      creationIntervalMs: 100
      workloads:
      - className: large
        runtimeMs: 1000
        request: 5
      - className: mixed
        runtimeMs: 300
        request: 1
`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := generatorRuntimes(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{"small": 200 * time.Millisecond, "large": time.Second}
	if len(got) != len(want) {
		t.Fatalf("runtimes %v, want %v", got, want)
	}
	for class, d := range want {
		if got[class] != d {
			t.Errorf("runtime of %s = %v, want %v", class, got[class], d)
		}
	}
	if _, err := generatorRuntimes(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("a missing config gave no error")
	}
}

// The manager's reaction is what it adds to the turnover of quota: from a
// Finished write landing to the API server receiving the manager's next
// workload write in the same Cohort (the runner names each namespace after
// its ClusterQueue, "<class>-<set>-<index>-<cohort>"); writes in another
// Cohort, and writes received before the Finished write landed, do not
// count.
func TestManagerReactionFromAuditLog(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	log := newPhaseLog(managerUser, runnerUser)
	note := func(user, verb, ns, name, sub string, received, done time.Time) {
		noteWrite(log, user, verb, ns, name, sub, received, done)
	}
	// Twenty large workloads in cq-0-1-cohort-2, admitted a second apart and
	// finished after their runtime; the manager's next write in that Cohort
	// (the next admission, in another of its ClusterQueues) is received
	// 30 ms after a Finished write lands for the first nine, 70 ms for
	// the others. A write in cohort-3 5 ms after each Finished write lands is
	// not a reaction to it.
	for i := range 20 {
		name := fmt.Sprintf("large-2-0-%d", i)
		created := t0.Add(time.Duration(i) * time.Millisecond)
		note(runnerUser, "create", "cq-0-1-cohort-2", name, "", created, created)
		adm := t0.Add(time.Duration(10+i) * time.Second)
		note(managerUser, "update", "cq-0-1-cohort-2", name, "status", adm.Add(-20*time.Millisecond), adm)
		landed := adm.Add(time.Second + 100*time.Millisecond)
		note(runnerUser, "patch", "cq-0-1-cohort-2", name, "status", landed.Add(-25*time.Millisecond), landed)
		note(managerUser, "update", "cq-0-0-cohort-3", fmt.Sprintf("other-0-0-%d", i), "status", landed.Add(5*time.Millisecond), landed.Add(25*time.Millisecond))
		react := 30 * time.Millisecond
		if i >= 9 {
			react = 70 * time.Millisecond
		}
		note(managerUser, "update", "cq-0-4-cohort-2", fmt.Sprintf("next-0-0-%d", i), "status", landed.Add(react), landed.Add(react+20*time.Millisecond))
	}
	got := log.phases(nil)["large"]
	// The phase spans the 2nd to the 20th admission; the Finished writes
	// landing in it are the 1st to the 18th (the 19th lands at 29.1 s).
	if !got.hasReaction || got.reactionMedian != 70*time.Millisecond || got.reactionMean != (9*30+9*70)*time.Millisecond/18 {
		t.Fatalf("reaction %s (known %v), want 70ms / 50ms", got.reactionString(), got.hasReaction)
	}
	if s := got.reactionString(); s != "70ms / 50ms" {
		t.Errorf("reaction cell %q, want %q", s, "70ms / 50ms")
	}
	for ns, want := range map[string]string{"cq-0-1-cohort-2": "cohort-2", "team-a-0-3-pool-x-1": "pool-x-1", "plain": "plain", "a-1-b": "a-1-b"} {
		if got := cohortOf(ns); got != want {
			t.Errorf("cohortOf(%q) = %q, want %q", ns, got, want)
		}
	}
}

// noteWrite gives log one successful workload write, as the audit log has it.
func noteWrite(log *phaseLog, user, verb, ns, name, sub string, received, done time.Time) {
	e := &auditEvent{Stage: "ResponseComplete", Verb: verb, Received: received, Completed: done}
	e.User.Username = user
	e.ObjectRef = &struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	}{Resource: "workloads", Subresource: sub, Namespace: ns, Name: name}
	e.ResponseStatus = &struct {
		Code int `json:"code"`
	}{Code: 200}
	log.note(e)
}
