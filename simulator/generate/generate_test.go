package generate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSameSeedSameTrace(t *testing.T) {
	t.Parallel()
	opts := Options{Queues: 30, Cohorts: 3, Jobs: 500, Seed: 42}
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		tr, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"cluster.yaml", "jobs-00.yaml"} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
}

func TestTraceIsRealistic(t *testing.T) {
	t.Parallel()
	tr, err := New(Options{Queues: 100, Cohorts: 5, Jobs: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[int]int{}
	var night, afternoon int
	for i, j := range tr.Jobs {
		if i > 0 && j.Arrival < tr.Jobs[i-1].Arrival {
			t.Fatal("arrivals must be in time order")
		}
		if j.Arrival < 0 || j.Arrival >= 7*24*time.Hour || j.Runtime < runtimeMin || j.Runtime > runtimeMax {
			t.Fatalf("job %+v out of range", j)
		}
		sizes[j.Pods*j.GPUsPerPod]++
		switch h := int(j.Arrival.Hours()) % 24; {
		case h >= 2 && h < 5:
			night++
		case h >= 13 && h < 16:
			afternoon++
		}
	}
	for _, g := range []int{1, 2, 4, 8, 16, 32} {
		if sizes[g] == 0 {
			t.Errorf("no %d-GPU job", g)
		}
	}
	if afternoon < 3*night {
		t.Errorf("afternoons (%d arrivals) should be much busier than nights (%d)", afternoon, night)
	}
	if tr.GPUs < len(tr.Queues)*2 {
		t.Errorf("cluster of %d GPUs for %d teams", tr.GPUs, len(tr.Queues))
	}
}

func TestOptionsAreValidated(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{Queues: 5, Cohorts: 6}, {Queues: -1}, {Jobs: -1}, {Reclaim: 2}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) must fail", o)
		}
	}
}
