package cli

import (
	"strings"
	"testing"
)

// 001: "candidates selected by applicable rules in the referenced
// PreemptionConfig whose activationPolicy.trigger is Always" are baseline
// candidates, and "clusterQueueSelector defines label selector constraints on
// candidate ClusterQueues". examples/preemption-config: the hero run preempts
// research's newest job although research is within its nominal quota, never a
// job of the protected prod queue, and is admitted at once, borrowing.
func TestPreemptionConfigHeroExample(t *testing.T) {
	t.Parallel()
	doc := simulateJSON(t, "-f", repo("examples", "preemption-config"))
	preempted := eventsOf(doc, "Preempted")
	if len(preempted) != 1 {
		t.Fatalf("want exactly one preemption, got %+v", preempted)
	}
	p := preempted[0]
	if p.Time != 600 || p.Workload != "research/train-2" || p.ClusterQueue != "research" || p.Preemptor != "hero/hero-run" ||
		p.Reason != "InCohortReclaimWhileBorrowing" {
		t.Errorf("preemption = %+v; want research/train-2 at 600s by hero/hero-run (InCohortReclaimWhileBorrowing)", p)
	}
	i := indexOf(doc, "Admitted", "hero/hero-run")
	if i < 0 || doc.Events[i].Time != 600 || !doc.Events[i].Borrowing || i < indexOf(doc, "Preempted", "research/train-2") {
		t.Errorf("hero/hero-run must be admitted, borrowing, at 600s after the preemption; events %+v", doc.Events)
	}
	var again []float64
	for _, e := range doc.Events[indexOf(doc, "Preempted", "research/train-2")+1:] {
		if e.Type == "Admitted" && e.Workload == "research/train-2" {
			again = append(again, e.Time)
		}
	}
	if len(again) != 1 || again[0] != 2400 || doc.Events[len(doc.Events)-1].Time != 9600 {
		t.Errorf("research/train-2 must be admitted again once, when the hero run is done (40m: got %v), and finish at 2h40m", again)
	}

	doc = simulateJSON(t, "-f", repo("examples", "preemption-config"), "--until", "15m")
	for cq, gpus := range map[string]string{"hero": "8", "research": "4", "prod": "8"} {
		if got := usage(t, doc, cq, "h100", "nvidia.com/gpu"); got != gpus {
			t.Errorf("at 15m %s uses %q GPUs, want %q", cq, got, gpus)
		}
	}
}

// The same cluster without the rule's help: with the annotation removed (the
// hero queue preempts by spec.preemption alone, all Never), or with a hero run
// that the rule's preemptorSelector does not select (001: "preemptorSelector is
// a label selector indicating which workloads can trigger preemptions using
// this rule"), nothing is preempted and the hero run waits until prod's jobs
// finish at 2h.
func TestPreemptionConfigHeroExampleWithoutTheRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		file string
		old  string
	}{
		{"no annotation", "00-cluster.yaml", "    kueue.x-k8s.io/preemption-config-name: hero-preemption\n"},
		{"preemptor not selected", "trace.yaml", "    example.com/hero: \"true\"\n"},
	} {
		dir := editedExample(t, tc.file, tc.old, "")
		doc := simulateJSON(t, "-f", dir)
		if p := eventsOf(doc, "Preempted"); len(p) != 0 {
			t.Errorf("%s: want no preemption, got %+v", tc.name, p)
		}
		if i := indexOf(doc, "Admitted", "hero/hero-run"); i < 0 || doc.Events[i].Time != 7200 {
			t.Errorf("%s: hero/hero-run must wait until 2h (7200s)", tc.name)
		}
	}
}

// A ClusterQueue whose annotation names a PreemptionConfig that no document
// defines is refused, naming the annotation: the simulation would otherwise
// answer a different question (a typo) without a word.
func TestPreemptionConfigMissingReferenceIsRefused(t *testing.T) {
	t.Parallel()
	dir := editedExample(t, "00-cluster.yaml", "preemption-config-name: hero-preemption", "preemption-config-name: hero-preemptoin")
	_, _, err := run(t, "-f", dir, "--output", "json")
	if err == nil || !strings.Contains(err.Error(), `metadata.annotations[kueue.x-k8s.io/preemption-config-name]: Invalid value: "hero-preemptoin"`) {
		t.Fatalf("error %v, want one naming the annotation and the missing config", err)
	}
}

// editedExample copies examples/preemption-config and replaces old (which must
// occur) by new in one file.
func editedExample(t *testing.T, file, old, new string) string {
	t.Helper()
	return copyExampleEditing(t, "preemption-config", file, func(data string) string {
		if !strings.Contains(data, old) {
			t.Fatalf("%s does not contain %q", file, old)
		}
		return strings.ReplaceAll(data, old, new)
	})
}
