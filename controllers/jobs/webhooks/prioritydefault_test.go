package webhooks

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: pkg/controller/jobframework/defaults_test.go,
// TestApplyDefaultWorkloadPriorityClass, through the Job webhook's Default: a
// Job without the priority-class label gets the WorkloadPriorityClass named
// "default" when it exists and the WorkloadPriorityClassDefaulting gate is
// on; a label already set, a missing "default" class, the gate off, or a
// parent Job that Kueue manages leave it alone.
func TestKueueApplyDefaultWorkloadPriorityClass(t *testing.T) {
	t.Parallel()
	defaultWPC := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: kueue.DefaultWorkloadPriorityClass}, Value: 100}
	child := func() *batchv1.Job {
		j := labelledJob("", false)
		j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "parent", UID: "parent", Controller: ptrTrue()}}
		return j
	}
	withClass := func(name string) *batchv1.Job {
		j := labelledJob("", false)
		j.Labels[kueue.PriorityClassLabel] = name
		return j
	}
	cases := []struct {
		name      string
		job       *batchv1.Job
		objs      []client.Object
		gate      bool
		wantLabel string
	}{
		{name: "feature gate enabled, no label, default WPC exists", job: labelledJob("", false), objs: []client.Object{defaultWPC}, gate: true, wantLabel: "default"},
		{name: "feature gate disabled, no label, default WPC exists", job: labelledJob("", false), objs: []client.Object{defaultWPC}},
		{name: "feature gate enabled, label already set", job: withClass("high"), objs: []client.Object{defaultWPC}, gate: true, wantLabel: "high"},
		{name: "feature gate enabled, no label, default WPC does not exist", job: labelledJob("", false), gate: true},
		{name: "feature gate enabled, owner managed by kueue", job: child(), objs: []client.Object{defaultWPC}, gate: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &JobWebhook{Client: reader(append(tc.objs, namespaceObj("research"))...), DefaultPriorityClass: tc.gate}
			if err := w.Default(context.Background(), tc.job); err != nil {
				t.Fatal(err)
			}
			if got := tc.job.Labels[kueue.PriorityClassLabel]; got != tc.wantLabel {
				t.Errorf("priority-class label %q, want %q", got, tc.wantLabel)
			}
		})
	}
}

func ptrTrue() *bool { b := true; return &b }
