package job

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// 002: "When a Workload is admitted, Kueue adds these labels to its pod
// template's nodeSelector" and "spec.tolerations is injected into admitted pods";
// "Kueue does not inject" a toleration for spec.nodeTaints.
func TestAdmissionInjectsNodeLabelsAndTolerationsNotTaints(t *testing.T) {
	t.Parallel()
	userToleration := corev1.Toleration{Key: "spot", Operator: corev1.TolerationOpExists}
	original := placement{NodeSelector: map[string]string{"zone": "a"}, Tolerations: []corev1.Toleration{userToleration}}
	got, err := admittedPlacement(original, []*kueue.ResourceFlavor{h100()})
	if err != nil {
		t.Fatal(err)
	}
	want := placement{
		NodeSelector: map[string]string{"zone": "a", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
		Tolerations:  []corev1.Toleration{userToleration, gpuToleration},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("admitted placement = %+v; want %+v (no toleration for the dedicated taint)", got, want)
	}
	if len(original.NodeSelector) != 1 || len(original.Tolerations) != 1 {
		t.Errorf("the original placement was modified: %+v", original)
	}
}

func TestInjectionDoesNotDuplicateAToleration(t *testing.T) {
	t.Parallel()
	got, err := admittedPlacement(placement{Tolerations: []corev1.Toleration{gpuToleration}}, []*kueue.ResourceFlavor{h100()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tolerations) != 1 {
		t.Errorf("tolerations = %v; want the user's one only", got.Tolerations)
	}
}

func TestConflictingNodeSelectorIsAnError(t *testing.T) {
	t.Parallel()
	_, err := admittedPlacement(placement{NodeSelector: map[string]string{"nvidia.com/gpu.product": "Tesla-T4"}}, []*kueue.ResourceFlavor{h100()})
	if err == nil || !strings.Contains(err.Error(), "h100") {
		t.Errorf("err = %v; want a conflict naming the flavor", err)
	}
}

func TestRestorationReturnsTheTemplateAsSubmitted(t *testing.T) {
	t.Parallel()
	job := makeJob("a", "ns").queue("q").nodeSelector("zone", "a").obj()
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "w"},
		Spec:       kueue.WorkloadSpec{PodSets: []kueue.PodSet{{Name: "main", Template: *job.Spec.Template.DeepCopy(), Count: 1}}},
	}
	original, err := originalPlacement(wl)
	if err != nil {
		t.Fatal(err)
	}
	admitted, err := admittedPlacement(original, []*kueue.ResourceFlavor{h100()})
	if err != nil {
		t.Fatal(err)
	}
	if !applyPlacement(&job.Spec.Template, admitted) {
		t.Fatal("injection reported no change")
	}
	if applyPlacement(&job.Spec.Template, admitted) {
		t.Error("injecting twice reported a change; writes must be idempotent")
	}
	if !applyPlacement(&job.Spec.Template, original) {
		t.Fatal("restoration reported no change")
	}
	spec := job.Spec.Template.Spec
	if !reflect.DeepEqual(spec.NodeSelector, map[string]string{"zone": "a"}) || len(spec.Tolerations) != 0 {
		t.Errorf("restored nodeSelector %v, tolerations %v; want zone=a and none", spec.NodeSelector, spec.Tolerations)
	}
}

func TestNoPodSetIsAnError(t *testing.T) {
	t.Parallel()
	if _, err := originalPlacement(&kueue.Workload{}); err == nil {
		t.Error("a Workload without pod set main gave a placement")
	}
}
