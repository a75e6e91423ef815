package simulator

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/simulator/manifest"
)

// world is the simulated cluster's objects as they are now: what an informer cache
// would hold. The engine gets every change; the simulator keeps its own copy to run
// Dynamic Quota Orchestration, to rebuild the engine when the Configuration
// changes, and to name the source of an object in errors.
type world struct {
	flavors    map[string]*kueue.ResourceFlavor
	cqs        map[string]*live[kueue.ClusterQueue]
	cohorts    map[string]*live[kueue.Cohort]
	lqs        map[types.NamespacedName]*live[kueue.LocalQueue]
	namespaces map[string]*corev1.Namespace
	implicitNS map[string]bool
	wpcs       map[string]int32
	// pcs are the scheduling.k8s.io PriorityClasses by name: the priority of
	// a Koord-Queue Job whose pod template names one.
	pcs map[string]int32
	// limitRanges are each namespace's LimitRanges by name, and
	// runtimeClasses each RuntimeClass's overhead.
	limitRanges    map[string]map[string]corev1.LimitRange
	runtimeClasses map[string]corev1.ResourceList
	// koordQueues are the Koord-Queue Queues written by hand, by name (all in
	// namespace koord-queue), as the quota's reconciliation left them.
	koordQueues map[string]*queuev1alpha1.Queue
	providers   map[string]*kueuev1alpha1.CapacityProvider
	dqos        map[string]*live[kueuev1alpha1.DynamicQuotaOrchestrator]
	// preemptionConfigs are the PreemptionConfigs the engine accepted.
	preemptionConfigs map[string]*live[kueuev1alpha1.PreemptionConfig]
	// uids gives every object a stable UID: the first document of a key assigns
	// it and replacements keep it, as an update in a cluster does.
	uids   map[manifest.Key]types.UID
	uidSeq int
	// created is the creation time of every object, kept across replacements.
	created map[manifest.Key]metav1.Time
}

// live is an object with the document that last applied it.
type live[T any] struct {
	obj *T
	src manifest.Source
}

func newWorld() *world {
	return &world{
		flavors:        map[string]*kueue.ResourceFlavor{},
		cqs:            map[string]*live[kueue.ClusterQueue]{},
		cohorts:        map[string]*live[kueue.Cohort]{},
		lqs:            map[types.NamespacedName]*live[kueue.LocalQueue]{},
		namespaces:     map[string]*corev1.Namespace{},
		implicitNS:     map[string]bool{},
		limitRanges:    map[string]map[string]corev1.LimitRange{},
		runtimeClasses: map[string]corev1.ResourceList{},
		wpcs:           map[string]int32{},
		pcs:            map[string]int32{},
		providers:      map[string]*kueuev1alpha1.CapacityProvider{},
		dqos:           map[string]*live[kueuev1alpha1.DynamicQuotaOrchestrator]{},
		uids:           map[manifest.Key]types.UID{},
		created:        map[manifest.Key]metav1.Time{},

		preemptionConfigs: map[string]*live[kueuev1alpha1.PreemptionConfig]{},
		koordQueues:       map[string]*queuev1alpha1.Queue{},
	}
}

// uidFor returns the UID of the object with key, assigning the next one in
// document order on first use. The engine breaks ties in queue order by UID, and
// DQO breaks ties between orchestrators by UID, so ordered UIDs keep both in
// document order. A UID written in the manifest is kept.
func (w *world) uidFor(key manifest.Key, written types.UID) types.UID {
	if written != "" {
		w.uids[key] = written
		return written
	}
	if uid, ok := w.uids[key]; ok {
		return uid
	}
	w.uidSeq++
	uid := types.UID(formatUID(w.uidSeq))
	w.uids[key] = uid
	return uid
}

// formatUID renders a sequence number as a UUID-shaped string that sorts in
// numeric order.
func formatUID(n int) string {
	const digits = "0123456789"
	b := []byte("00000000-0000-0000-0000-000000000000")
	for i := len(b) - 1; i >= 0 && n > 0; i-- {
		if b[i] == '-' {
			continue
		}
		b[i] = digits[n%10]
		n /= 10
	}
	return string(b)
}

// clusterQueueOf is the ClusterQueue a LocalQueue points to, "" when the
// LocalQueue does not exist.
func (w *world) clusterQueueOf(lq types.NamespacedName) string {
	if l, ok := w.lqs[lq]; ok {
		return string(l.obj.Spec.ClusterQueue)
	}
	return ""
}

func (w *world) sortedClusterQueues() []*live[kueue.ClusterQueue] {
	out := make([]*live[kueue.ClusterQueue], 0, len(w.cqs))
	for _, name := range sortedNames(w.cqs) {
		out = append(out, w.cqs[name])
	}
	return out
}

func (w *world) sortedCohorts() []*live[kueue.Cohort] {
	out := make([]*live[kueue.Cohort], 0, len(w.cohorts))
	for _, name := range sortedNames(w.cohorts) {
		out = append(out, w.cohorts[name])
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// limitRangesOf is namespace ns's LimitRanges in name order.
func (w *world) limitRangesOf(ns string) []corev1.LimitRange {
	out := make([]corev1.LimitRange, 0, len(w.limitRanges[ns]))
	for _, name := range sortedNames(w.limitRanges[ns]) {
		out = append(out, w.limitRanges[ns][name])
	}
	return out
}
