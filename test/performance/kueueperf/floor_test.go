package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The order floor of a class is its least average wait had none of its
// workloads been admitted before the last higher-priority workload was
// created: in each Cohort the k-th (in creation order) can start no earlier
// than that moment plus k/slots runtimes, nor before its own creation.
func TestOrderFloorFromAuditLog(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	log := newPhaseLog(managerUser, runnerUser)
	create := func(ns, name string, s float64) { noteWrite(log, runnerUser, "create", ns, name, "", at(s), at(s)) }
	// Three large workloads (the higher class) created at 0, 4 and 8 s.
	for i, s := range []float64{0, 4, 8} {
		create("cq-0-0-cohort-0", fmt.Sprintf("large-2-0-%d", i), s)
	}
	// Five medium ones in cohort-0, created at 1, 2, 3, 9 and 12 s; two
	// fit in the Cohort at once and run 1 s. Earliest admissions: 8, 8, 9,
	// 9 (its creation), 12 (its creation; 8 + 2 is earlier): waits 7, 6,
	// 6, 0, 0.
	for i, s := range []float64{1, 2, 3, 9, 12} {
		create("cq-0-0-cohort-0", fmt.Sprintf("medium-1-0-%d", i), s)
	}
	// Two in cohort-1, a Cohort of its own: both created at 1 s and both
	// admitted at 8 s at the earliest: waits 7 and 7.
	create("cq-0-0-cohort-1", "medium-1-1-0", 1)
	create("cq-0-0-cohort-1", "medium-1-1-1", 1)
	// A class the config does not describe has no floor, and does not
	// count as higher.
	create("cq-0-0-cohort-0", "tiny-3-0-0", 30)
	// medium-1-0-0 was admitted at 5 s, before the last large create, and
	// finished; medium-1-0-1 at 8.5 s; the rest never finished.
	noteWrite(log, managerUser, "update", "cq-0-0-cohort-0", "medium-1-0-0", "status", at(5), at(5))
	noteWrite(log, runnerUser, "patch", "cq-0-0-cohort-0", "medium-1-0-0", "status", at(6), at(6))
	noteWrite(log, managerUser, "update", "cq-0-0-cohort-0", "medium-1-0-1", "status", at(8.5), at(8.5))
	noteWrite(log, runnerUser, "patch", "cq-0-0-cohort-0", "medium-1-0-1", "status", at(9.5), at(9.5))

	classes := map[string]classShape{
		"large":  {priority: 200, request: 10000, runtime: 2 * time.Second},
		"medium": {priority: 100, request: 5000, runtime: time.Second},
	}
	got := log.floors(classes, map[string]int64{"cohort": 10000})
	if _, ok := got["tiny"]; ok {
		t.Errorf("tiny has a floor without a shape: %v", got["tiny"])
	}
	medium := got["medium"]
	want := classFloor{higherDone: 8 * time.Second, wait: 33 * time.Second / 7, early: 1, n: 7}
	if medium != want {
		t.Errorf("medium floor %+v, want %+v", medium, want)
	}
	// The large class has no higher one: one fits at a time, 2 s each, and
	// each was created after the one before could have finished.
	if large := got["large"]; large != (classFloor{n: 3}) {
		t.Errorf("large floor %+v, want no wait", large)
	}
	if s := medium.String(); s != "4.7 s; 1 of 7 before 8.0 s" {
		t.Errorf("medium floor prints %q", s)
	}
}

// A Cohort's quota is its ClusterQueues' nominal quotas added up; a class
// given two shapes is left out.
func TestGeneratorShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "generator.yaml")
	cfg := `
cohorts:
  - className: cohort
    count: 5
    queuesSets:
    - className: cq
      count: 6
      nominalQuota: 20
      borrowingLimit: 100
      workloadsSets:
      - count: 10
        workloads:
        - {className: small, runtimeMs: 200, priority: 50, request: 1}
        - {className: odd, runtimeMs: 200, priority: 50, request: 1}
      - count: 10
        workloads:
        - {className: medium, runtimeMs: 500, priority: 100, request: 500m}
        - {className: odd, runtimeMs: 300, priority: 50, request: 1}
    - className: other
      count: 2
      nominalQuota: 5
`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	classes, quota, err := generatorShapes(path)
	if err != nil {
		t.Fatal(err)
	}
	if q := quota["cohort"]; q != 130000 {
		t.Errorf("cohort quota %d m, want 6×20 + 2×5 cpu = 130000 m", q)
	}
	if c := classes["medium"]; c != (classShape{priority: 100, request: 500, runtime: 500 * time.Millisecond}) {
		t.Errorf("medium %+v", c)
	}
	if _, ok := classes["odd"]; ok {
		t.Errorf("odd has two runtimes but got a shape: %+v", classes["odd"])
	}
	if _, ok := classes["small"]; !ok {
		t.Errorf("small missing: %v", classes)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("cohorts:\n- className: c\n  queuesSets:\n  - className: q\n    nominalQuota: 1\n    workloadsSets:\n    - workloads:\n      - {className: w, request: lots}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := generatorShapes(bad); err == nil {
		t.Error("a request that is not a quantity was accepted")
	}
}

func TestCohortClass(t *testing.T) {
	for name, want := range map[string]string{"cohort-3": "cohort", "my-cohort-12": "my-cohort", "solo": "solo", "a-b": "a-b"} {
		if got := cohortClass(name); got != want {
			t.Errorf("cohortClass(%q) = %q, want %q", name, got, want)
		}
	}
}
