package manifest

import (
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kind is the kind of an accepted object.
type Kind string

// The kinds the simulator accepts. Anything else stops the run: a manifest that the
// simulator silently skipped would make the simulation answer a different question
// than the one asked.
const (
	KindResourceFlavor           Kind = "ResourceFlavor"
	KindClusterQueue             Kind = "ClusterQueue"
	KindCohort                   Kind = "Cohort"
	KindLocalQueue               Kind = "LocalQueue"
	KindWorkloadPriorityClass    Kind = "WorkloadPriorityClass"
	KindWorkload                 Kind = "Workload"
	KindCapacityProvider         Kind = "CapacityProvider"
	KindDynamicQuotaOrchestrator Kind = "DynamicQuotaOrchestrator"
	KindPreemptionConfig         Kind = "PreemptionConfig"
	KindElasticQuota             Kind = "ElasticQuota"
	KindQueue                    Kind = "Queue"
	KindQueueUnit                Kind = "QueueUnit"
	KindNamespace                Kind = "Namespace"
	KindPriorityClass            Kind = "PriorityClass"
	KindLimitRange               Kind = "LimitRange"
	KindRuntimeClass             Kind = "RuntimeClass"
	KindJob                      Kind = "Job"
	KindConfiguration            Kind = "Configuration"
)

// kindInfo is what the loader needs to know about an accepted kind.
type kindInfo struct {
	apiVersion string
	namespaced bool
	// newObject returns a pointer to a zero object to decode into.
	newObject func() any
}

// kinds maps "apiVersion/Kind" to its description. It is a function, not a package
// variable, so that no mutable state is shared between loads.
func kinds() map[string]kindInfo {
	return map[string]kindInfo{
		"kueue.x-k8s.io/v1beta2/ResourceFlavor":            {"kueue.x-k8s.io/v1beta2", false, func() any { return &kueue.ResourceFlavor{} }},
		"kueue.x-k8s.io/v1beta2/ClusterQueue":              {"kueue.x-k8s.io/v1beta2", false, func() any { return &kueue.ClusterQueue{} }},
		"kueue.x-k8s.io/v1beta2/Cohort":                    {"kueue.x-k8s.io/v1beta2", false, func() any { return &kueue.Cohort{} }},
		"kueue.x-k8s.io/v1beta2/LocalQueue":                {"kueue.x-k8s.io/v1beta2", true, func() any { return &kueue.LocalQueue{} }},
		"kueue.x-k8s.io/v1beta2/WorkloadPriorityClass":     {"kueue.x-k8s.io/v1beta2", false, func() any { return &kueue.WorkloadPriorityClass{} }},
		"kueue.x-k8s.io/v1beta2/Workload":                  {"kueue.x-k8s.io/v1beta2", true, func() any { return &kueue.Workload{} }},
		"kueue.x-k8s.io/v1alpha1/CapacityProvider":         {"kueue.x-k8s.io/v1alpha1", false, func() any { return &kueuev1alpha1.CapacityProvider{} }},
		"kueue.x-k8s.io/v1alpha1/DynamicQuotaOrchestrator": {"kueue.x-k8s.io/v1alpha1", false, func() any { return &kueuev1alpha1.DynamicQuotaOrchestrator{} }},
		"kueue.x-k8s.io/v1alpha1/PreemptionConfig":         {"kueue.x-k8s.io/v1alpha1", false, func() any { return &kueuev1alpha1.PreemptionConfig{} }},
		"scheduling.sigs.k8s.io/v1alpha1/ElasticQuota":     {"scheduling.sigs.k8s.io/v1alpha1", true, func() any { return &koordv1alpha1.ElasticQuota{} }},
		"scheduling.x-k8s.io/v1alpha1/Queue":               {"scheduling.x-k8s.io/v1alpha1", true, func() any { return &queuev1alpha1.Queue{} }},
		"scheduling.x-k8s.io/v1alpha1/QueueUnit":           {"scheduling.x-k8s.io/v1alpha1", true, func() any { return &queuev1alpha1.QueueUnit{} }},
		"v1/Namespace":                                     {"v1", false, func() any { return &corev1.Namespace{} }},
		"scheduling.k8s.io/v1/PriorityClass":               {"scheduling.k8s.io/v1", false, func() any { return &schedulingv1.PriorityClass{} }},
		"v1/LimitRange":                                    {"v1", true, func() any { return &corev1.LimitRange{} }},
		"node.k8s.io/v1/RuntimeClass":                      {"node.k8s.io/v1", false, func() any { return &nodev1.RuntimeClass{} }},
		"batch/v1/Job":                                     {"batch/v1", true, func() any { return &batchv1.Job{} }},
		"config.kueue.x-k8s.io/v1beta2/Configuration":      {"config.kueue.x-k8s.io/v1beta2", false, nil},
	}
}

// acceptedKinds lists "Kind (apiVersion)" for error messages, sorted.
func acceptedKinds() string {
	var out []string
	for key, info := range kinds() {
		out = append(out, key[len(info.apiVersion)+1:]+" ("+info.apiVersion+")")
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// Key identifies an object across documents: a later document with the same key
// replaces the earlier one at its own time. The Configuration has no name; all
// Configurations share one key.
type Key struct {
	Kind      Kind
	Namespace string
	Name      string
}

func (k Key) String() string {
	switch {
	case k.Kind == KindConfiguration:
		return string(k.Kind)
	case k.Namespace == "":
		return string(k.Kind) + " " + k.Name
	default:
		return string(k.Kind) + " " + k.Namespace + "/" + k.Name
	}
}

// Document is one object read from the input, with its place on the simulated clock.
type Document struct {
	Source Source
	Key    Key
	// At is when the object is applied, from the start of the simulation.
	At time.Duration
	// Runtime is how long a job runs once admitted; HasRuntime is false for a job
	// that runs until the end of the simulation, and for every other kind.
	Runtime    time.Duration
	HasRuntime bool
	// RuntimeAssumed is set when the annotation simulation.quokka.dev/runtime-assumed
	// says Runtime is a guess (a live Workload taken by `quokka snapshot`).
	RuntimeAssumed bool
	// PodsReadyAfter is how long the job's pods take to be ready once it is
	// admitted (AnnotationPodsReadyAfter); 0: at admission.
	PodsReadyAfter time.Duration
	// Object is the decoded, validated object: *kueue.ClusterQueue,
	// *batchv1.Job, *corev1.Namespace, *config.Configuration and so on.
	Object any
	// Workload is the Workload that stands for a job: the object itself for a
	// Workload, the one Kueue's job integration would create for a batch/v1 Job.
	// Nil for every other kind, a QueueUnit included.
	Workload *kueue.Workload
}

// IsJob reports whether the document submits work (a Workload, a Job or a
// Koord-Queue QueueUnit).
func (d *Document) IsJob() bool { return isJobKind(d.Key.Kind) }

func isJobKind(k Kind) bool { return k == KindWorkload || k == KindJob || k == KindQueueUnit }
