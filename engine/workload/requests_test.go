package workload

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

func ctr(req, lim corev1.ResourceList) corev1.Container {
	return corev1.Container{Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
}

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// brief: "count × per-pod requests (requests default to limits; sum containers;
// initContainers max per Kubernetes rules)".
func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := ctr(rl("cpu", "1"), nil)
	sidecar.RestartPolicy = &always
	cases := []struct {
		name string
		spec corev1.PodSpec
		want resources.Requests
	}{
		{"containers are summed", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("cpu", "1", "nvidia.com/gpu", "2"), nil), ctr(rl("cpu", "500m"), nil)}},
			resources.Requests{"cpu": 1500, "nvidia.com/gpu": 2}},
		{"requests default to limits", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("cpu", "1"), rl("cpu", "4", "nvidia.com/gpu", "8"))}},
			resources.Requests{"cpu": 1000, "nvidia.com/gpu": 8}},
		{"init container peak wins", corev1.PodSpec{InitContainers: []corev1.Container{ctr(rl("cpu", "3"), nil)}, Containers: []corev1.Container{ctr(rl("cpu", "1", "memory", "1Gi"), nil)}},
			resources.Requests{"cpu": 3000, "memory": 1 << 30}},
		{"sidecars run beside everything after them", corev1.PodSpec{
			InitContainers: []corev1.Container{sidecar, ctr(rl("cpu", "2"), nil)},
			Containers:     []corev1.Container{ctr(rl("cpu", "1"), nil)}},
			resources.Requests{"cpu": 3000}}, // max(1+1, 2+1)
		{"overhead is added", corev1.PodSpec{Overhead: rl("cpu", "100m"), Containers: []corev1.Container{ctr(rl("cpu", "1"), nil)}},
			resources.Requests{"cpu": 1100}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PodRequests(field.NewPath("spec"), &tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestFromAPIScalesByCountAndReadsAdmission(t *testing.T) {
	wl := &kueue.Workload{}
	wl.Name, wl.Namespace = "w", "ns"
	wl.Spec.PodSets = []kueue.PodSet{{Name: "workers", Count: 4, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{ctr(rl("nvidia.com/gpu", "2"), nil)}}}}}
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "a", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: "workers", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"nvidia.com/gpu": "h100"}}}}
	info, err := FromAPI(wl)
	if err != nil {
		t.Fatal(err)
	}
	if info.PodSets[0].Total["nvidia.com/gpu"] != 8 {
		t.Fatalf("total %v, want 4 × 2", info.PodSets[0].Total)
	}
	fr := resources.FlavorResource{Flavor: "h100", Resource: "nvidia.com/gpu"}
	if info.Admission == nil || info.Admission.Usage[fr] != 8 || info.Admission.PodSets[0].Count != 4 {
		t.Fatalf("admission %+v", info.Admission)
	}
	if !info.Active {
		t.Fatal("spec.active defaults to true")
	}
}
