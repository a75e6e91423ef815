package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The shipped loads must stay valid: hack/kueue-perf.sh --load jobs reads them.
func TestShippedJobsLoadsAreValid(t *testing.T) {
	for _, name := range []string{"jobs.yaml", "jobs-small.yaml"} {
		l, err := readJobsLoad(filepath.Join("configs", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.jobs() == 0 {
			t.Errorf("%s: no Jobs", name)
		}
	}
}

// Bad input names the field at fault.
func TestJobsLoadErrorsNameTheField(t *testing.T) {
	valid := `nodes: 1
nodeCPU: "8"
cohorts: 1
queuesPerCohort: 1
nominalQuota: "8"
borrowingLimit: "0"
classes:
- {name: small, jobsPerQueue: 1, intervalMs: 10, parallelism: 1, cpu: "1", runtimeMs: 10}
`
	cases := []struct {
		name, from, to, want string
	}{
		{"no nodes", "nodes: 1", "nodes: 0", "nodes must be positive"},
		{"bad quantity", `nominalQuota: "8"`, `nominalQuota: "eight"`, "nominalQuota"},
		{"unknown field", "cohorts: 1", "cohorts: 1\nqueues: 3", `unknown field "queues"`},
		{"class without a name", "name: small", "name: ''", "classes[0].name"},
		{"dash in a class name", "name: small", "name: a-b", "classes[0].name"},
		{"no parallelism", "parallelism: 1", "parallelism: 0", "classes[0].parallelism"},
		{"bad cpu", `cpu: "1"`, `cpu: "x"`, "classes[0].cpu"},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(valid, tc.from, tc.to, 1)
			if body == valid {
				t.Fatalf("the case changes nothing: %q not found", tc.from)
			}
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readJobsLoad(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
	path := filepath.Join(dir, "valid.yaml")
	if err := os.WriteFile(path, []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readJobsLoad(path); err != nil {
		t.Fatalf("the valid load: %v", err)
	}
}

// Every queue gets its namespace, ClusterQueue and LocalQueue, every node its
// fake-node annotation, in manifests that decode.
func TestSetupManifestsHoldEveryQueueAndNode(t *testing.T) {
	l := &jobsLoad{Nodes: 3, NodeCPU: "16", Cohorts: 2, QueuesPerCohort: 2, NominalQuota: "16", BorrowingLimit: "8"}
	kinds := map[string]int{}
	for _, doc := range strings.Split(l.setupManifests(), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		kinds[obj["kind"].(string)]++
	}
	want := map[string]int{"Node": 3, "ResourceFlavor": 1, "Namespace": 4, "ClusterQueue": 4, "LocalQueue": 4}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s objects, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
}

// A Job is admitted when first seen unsuspended, running when every pod has
// started (ready, or already done between two status updates), and counts a
// preemption each time it is suspended again after running unsuspended.
func TestJobRecorderFollowsAJob(t *testing.T) {
	r := newJobRecorder(1)
	r.created("ns/j", "small")
	j := &batchv1.Job{}
	j.Namespace, j.Name = "ns", "j"
	j.Spec.Parallelism = ptr.To[int32](2)
	j.Spec.Suspend = ptr.To(true)
	r.observe(j)
	j.Spec.Suspend = ptr.To(false)
	r.observe(j)
	j.Spec.Suspend = ptr.To(true)
	r.observe(j)
	j.Spec.Suspend = ptr.To(false)
	j.Status.Ready = ptr.To[int32](1)
	j.Status.Succeeded = 1
	r.observe(j)
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: "True"}}
	r.observe(j)
	select {
	case <-r.done:
	case <-time.After(time.Second):
		t.Fatal("the recorder did not see the only Job complete")
	}
	classes, _, err := r.summarize()
	if err != nil {
		t.Fatal(err)
	}
	if c := classes["small"]; c.jobs != 1 || c.suspendedAgain != 1 {
		t.Fatalf("small: %+v, want one Job preempted once", c)
	}
	tm := r.jobs["ns/j"]
	if tm.unsuspended.IsZero() || tm.running.IsZero() || tm.running.Before(tm.unsuspended) {
		t.Fatalf("times %+v: want admitted, then running", tm)
	}
}
