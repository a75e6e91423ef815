package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// jobWrapper builds Jobs for tests, in the style of Kueue's test wrappers.
type jobWrapper struct{ batchv1.Job }

func makeJob(name, ns string) *jobWrapper {
	return &jobWrapper{batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Labels: map[string]string{}},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{
					Name:  "main",
					Image: "trainer",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("1"),
					}},
				}},
			}},
		},
	}}
}

func (j *jobWrapper) queue(q string) *jobWrapper { j.Labels[kueue.QueueNameLabel] = q; return j }
func (j *jobWrapper) workloadPriority(c string) *jobWrapper {
	j.Labels[kueue.PriorityClassLabel] = c
	return j
}
func (j *jobWrapper) podPriority(c string) *jobWrapper {
	j.Spec.Template.Spec.PriorityClassName = c
	return j
}
func (j *jobWrapper) parallelism(p int32) *jobWrapper { j.Spec.Parallelism = ptr.To(p); return j }
func (j *jobWrapper) completions(c int32) *jobWrapper { j.Spec.Completions = ptr.To(c); return j }
func (j *jobWrapper) suspend(s bool) *jobWrapper      { j.Spec.Suspend = ptr.To(s); return j }
func (j *jobWrapper) request(name corev1.ResourceName, q string) *jobWrapper {
	j.Spec.Template.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q)
	return j
}
func (j *jobWrapper) nodeSelector(k, v string) *jobWrapper {
	if j.Spec.Template.Spec.NodeSelector == nil {
		j.Spec.Template.Spec.NodeSelector = map[string]string{}
	}
	j.Spec.Template.Spec.NodeSelector[k] = v
	return j
}
func (j *jobWrapper) toleration(t corev1.Toleration) *jobWrapper {
	j.Spec.Template.Spec.Tolerations = append(j.Spec.Template.Spec.Tolerations, t)
	return j
}
func (j *jobWrapper) condition(t batchv1.JobConditionType, msg string) *jobWrapper {
	j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Message: msg})
	return j
}
func (j *jobWrapper) obj() *batchv1.Job { return &j.Job }

// gpuToleration is the toleration of spec 002's h100 flavor.
var gpuToleration = corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// h100 is spec 002's ResourceFlavor.
func h100() *kueue.ResourceFlavor {
	return &kueue.ResourceFlavor{
		ObjectMeta: metav1.ObjectMeta{Name: "h100"},
		Spec: kueue.ResourceFlavorSpec{
			NodeLabels:  map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
			Tolerations: []corev1.Toleration{gpuToleration},
			NodeTaints:  []corev1.Taint{{Key: "dedicated", Value: "h100", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
}

// admit writes the admission the core writes: status.admission with the flavor
// of every resource, QuotaReserved and Admitted.
func admit(wl *kueue.Workload, flavor string) {
	wl.Status.Admission = &kueue.Admission{
		ClusterQueue: "research",
		PodSetAssignments: []kueue.PodSetAssignment{{
			Name: kueue.DefaultPodSetName,
			Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{
				corev1.ResourceCPU: kueue.ResourceFlavorReference(flavor),
				"nvidia.com/gpu":   kueue.ResourceFlavorReference(flavor),
			},
			Count: ptr.To(wl.Spec.PodSets[0].Count),
		}},
	}
	setCondition(wl, kueue.WorkloadQuotaReserved, "QuotaReserved")
	setCondition(wl, kueue.WorkloadAdmitted, "Admitted")
}

func setCondition(wl *kueue.Workload, t, reason string) {
	wl.Status.Conditions = append(wl.Status.Conditions, metav1.Condition{
		Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: reason, LastTransitionTime: metav1.Now(),
	})
}
