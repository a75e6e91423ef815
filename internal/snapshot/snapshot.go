// Package snapshot writes what a cluster's queueing state is now as manifests
// that `quokka simulate -f DIR` replays unchanged: the queues, quotas and
// priorities, the admitted Workloads with the admission they hold (they start
// admitted, already running) and the pending ones in queue order (they arrive at
// time 0, in that order). `quokka snapshot` writes the files; `quokka simulate
// --from-cluster` parses them in memory.
//
// The objects are read through internal/feed, the lister the manager's engine is
// built from, plus the kinds the engine does not take directly but the simulator
// does (CapacityProviders, DynamicQuotaOrchestrators, ElasticQuotas).
package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/yaml"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/feed"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/simulator/manifest"
)

// DefaultAssumedRuntime is the runtime given to a live Workload that does not say
// how long it runs.
const DefaultAssumedRuntime = time.Hour

// Objects is everything a snapshot holds, as listed from the cluster.
type Objects struct {
	feed.Objects
	CapacityProviders kueuev1alpha1.CapacityProviderList
	DQOs              kueuev1alpha1.DynamicQuotaOrchestratorList
	ElasticQuotas     koordv1alpha1.ElasticQuotaList
}

// List reads every kind a snapshot holds through r. A kind whose CRD is not
// installed (a cluster without Koord-Queue's ElasticQuota) is taken as empty.
func List(ctx context.Context, r client.Reader) (*Objects, error) {
	base, err := feed.List(ctx, r)
	if err != nil {
		return nil, err
	}
	o := &Objects{Objects: *base}
	for _, list := range []client.ObjectList{&o.CapacityProviders, &o.DQOs, &o.ElasticQuotas} {
		if err := r.List(ctx, list); err != nil && !apimeta.IsNoMatchError(err) {
			return nil, fmt.Errorf("listing %T: %w", list, err)
		}
	}
	return o, nil
}

// Options shape a snapshot.
type Options struct {
	// AssumedRuntime is the runtime written on a Workload that has no
	// simulation.quokka.dev/runtime annotation, marked as assumed.
	AssumedRuntime time.Duration
	// Configuration, when set, is the manager's Configuration file (already
	// validated), written first so that the simulation decides with the
	// manager's options (fair sharing, AFS, ...). The cluster does not say
	// which file the manager was started with, so the user names it.
	Configuration []byte
}

// File is one manifest file of a snapshot.
type File struct {
	Name string
	Data []byte
}

// Snapshot is a cluster's state as manifest files, in the order they are applied.
type Snapshot struct {
	Files []File
	// Admitted and Pending count the Workloads written.
	Admitted, Pending int
	// Assumed names the Workloads whose runtime was assumed.
	Assumed []string
	// Skipped says which Workloads were left out and why (finished, being
	// deleted, or not in a queue).
	Skipped []string
}

// Build converts listed objects into manifests. The files are numbered in the
// order the simulator must apply them: flavors, namespaces and priorities before
// the queues that use them, queues before workloads.
func Build(o *Objects, opts Options, scheme *runtime.Scheme) (*Snapshot, error) {
	snap := &Snapshot{}
	var objs [][]client.Object
	add := func(list []client.Object) { objs = append(objs, list) }
	add(items(o.Flavors.Items))
	add(items(o.Namespaces.Items))
	add(items(o.LimitRanges.Items))
	add(items(o.RuntimeClasses.Items))
	add(items(o.PriorityClasses.Items))
	add(items(o.WPCs.Items))
	add(items(o.PreemptionConfigs.Items))
	add(items(o.Cohorts.Items))
	add(items(o.ClusterQueues.Items))
	add(items(o.LocalQueues.Items))
	add(items(o.CapacityProviders.Items))
	add(items(o.DQOs.Items))
	add(items(o.ElasticQuotas.Items))
	names := []string{"resourceflavors", "namespaces", "limitranges", "runtimeclasses", "priorityclasses", "workloadpriorityclasses",
		"preemptionconfigs", "cohorts", "clusterqueues", "localqueues", "capacityproviders",
		"dynamicquotaorchestrators", "elasticquotas"}
	workloads := snap.workloads(o.Workloads.Items, opts)
	add(workloads)
	names = append(names, "workloads")
	if len(opts.Configuration) > 0 {
		// "00-configuration" sorts before "00-resourceflavors".
		snap.Files = append(snap.Files, File{Name: "00-configuration.yaml", Data: opts.Configuration})
	}
	for i, list := range objs {
		if len(list) == 0 {
			continue
		}
		sortByName := i != len(objs)-1 // workloads are already in queue order
		data, err := encode(list, scheme, sortByName)
		if err != nil {
			return nil, err
		}
		snap.Files = append(snap.Files, File{Name: fmt.Sprintf("%02d-%s.yaml", i, names[i]), Data: data})
	}
	return snap, nil
}

func items[T any, PT interface {
	*T
	client.Object
}](list []T) []client.Object {
	out := make([]client.Object, 0, len(list))
	for i := range list {
		out = append(out, PT(&list[i]))
	}
	return out
}

// workloads returns the Workloads to write: admitted ones first (they hold quota
// from time 0), then pending ones in creation order, which is the order the
// simulator queues them in (equal priorities are served first come, first served).
func (snap *Snapshot) workloads(list []kueue.Workload, opts Options) []client.Object {
	var admitted, pending []*kueue.Workload
	for i := range list {
		wl := list[i].DeepCopy()
		name := wl.Namespace + "/" + wl.Name
		switch {
		case !wl.DeletionTimestamp.IsZero():
			snap.Skipped = append(snap.Skipped, name+": being deleted")
			continue
		case apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished):
			snap.Skipped = append(snap.Skipped, name+": finished")
			continue
		case wl.Spec.QueueName == "" && !manifest.IsKoordUnit(wl):
			snap.Skipped = append(snap.Skipped, name+": no spec.queueName")
			continue
		}
		if wl.Status.Admission != nil {
			reserved := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
			if reserved == nil || reserved.Status != metav1.ConditionTrue {
				reserved = &metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue,
					Reason: "QuotaReserved", LastTransitionTime: wl.CreationTimestamp}
			}
			// Only what the simulator reads: where the quota is held.
			wl.Status = kueue.WorkloadStatus{Admission: wl.Status.Admission, Conditions: []metav1.Condition{*reserved}}
			admitted = append(admitted, wl)
		} else {
			wl.Status = kueue.WorkloadStatus{}
			pending = append(pending, wl)
		}
		if _, ok := wl.Annotations[manifest.AnnotationRuntime]; !ok {
			if wl.Annotations == nil {
				wl.Annotations = map[string]string{}
			}
			wl.Annotations[manifest.AnnotationRuntime] = opts.AssumedRuntime.String()
			wl.Annotations[manifest.AnnotationRuntimeAssumed] = "true"
			snap.Assumed = append(snap.Assumed, name)
		}
	}
	sort.SliceStable(admitted, func(i, j int) bool { return keyOf(admitted[i]) < keyOf(admitted[j]) })
	sort.SliceStable(pending, func(i, j int) bool {
		a, b := pending[i], pending[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return keyOf(a) < keyOf(b)
	})
	sort.Strings(snap.Assumed)
	snap.Admitted, snap.Pending = len(admitted), len(pending)
	out := make([]client.Object, 0, len(admitted)+len(pending))
	for _, wl := range admitted {
		out = append(out, wl)
	}
	for _, wl := range pending {
		out = append(out, wl)
	}
	return out
}

func keyOf(o client.Object) string { return o.GetNamespace() + "/" + o.GetName() }

// encode writes objects as one multi-document YAML file, cleaned of what the
// server sets.
func encode(list []client.Object, scheme *runtime.Scheme, sortByName bool) ([]byte, error) {
	if sortByName {
		sort.SliceStable(list, func(i, j int) bool { return keyOf(list[i]) < keyOf(list[j]) })
	}
	var buf bytes.Buffer
	for _, obj := range list {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return nil, err
		}
		obj = obj.DeepCopyObject().(client.Object)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		Clean(obj)
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("writing %s %s: %w", gvk.Kind, keyOf(obj), err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

// Clean strips what the API server and controllers set, so that the manifest
// reads like one a person would apply: resourceVersion, uid, managedFields,
// owners, finalizers, the last-applied annotation, and status the simulator
// recomputes. It keeps metadata.generation (a CapacityProvider's condition is
// trusted only at its generation), a Workload's creation time (its place in the
// queue) and its admission, the effective quotas DQO wrote, and a LocalQueue's
// admission fair sharing usage (its history, which the manager orders by and
// the simulator seeds from, as a restarted manager does). Annotations that
// place an object on the simulated clock are dropped: a snapshot is "now", at 0.
func Clean(obj client.Object) {
	obj.SetResourceVersion("")
	obj.SetUID("")
	obj.SetManagedFields(nil)
	obj.SetOwnerReferences(nil)
	obj.SetFinalizers(nil)
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetSelfLink("")
	obj.SetGenerateName("")
	if _, ok := obj.(*kueue.Workload); !ok {
		obj.SetCreationTimestamp(metav1.Time{})
	}
	ann := obj.GetAnnotations()
	delete(ann, "kubectl.kubernetes.io/last-applied-configuration")
	for k := range ann {
		if strings.HasPrefix(k, manifest.AnnotationPrefix) {
			if _, job := obj.(*kueue.Workload); !job || k == manifest.AnnotationAt {
				delete(ann, k)
			}
		}
	}
	if len(ann) == 0 {
		ann = nil
	}
	obj.SetAnnotations(ann)
	switch o := obj.(type) {
	case *kueue.ClusterQueue:
		o.Status = kueue.ClusterQueueStatus{EffectiveQuotas: o.Status.EffectiveQuotas}
	case *kueue.Cohort:
		o.Status = kueue.CohortStatus{EffectiveQuotas: o.Status.EffectiveQuotas}
	case *kueue.LocalQueue:
		var afs *kueue.FairSharingStatus
		if fs := o.Status.FairSharing; fs != nil && fs.AdmissionFairSharingStatus != nil {
			afs = &kueue.FairSharingStatus{AdmissionFairSharingStatus: fs.AdmissionFairSharingStatus}
		}
		o.Status = kueue.LocalQueueStatus{FairSharing: afs}
	case *koordv1alpha1.ElasticQuota:
		o.Status = koordv1alpha1.ElasticQuotaStatus{}
	case *corev1.Namespace:
		o.Spec, o.Status = corev1.NamespaceSpec{}, corev1.NamespaceStatus{}
	}
}

// Write writes the snapshot's files into dir, creating it. dir must be empty or
// missing: a file left from an earlier snapshot would be replayed with this one.
func (snap *Snapshot) Write(dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("writing the snapshot: %s is not empty; give a new or empty directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	for _, f := range snap.Files {
		path := filepath.Join(dir, f.Name)
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// Documents parses the snapshot as `quokka simulate -f DIR` would read the
// written files, for --from-cluster. dir only names the files in errors.
func (snap *Snapshot) Documents(dir string) ([]manifest.Document, error) {
	var docs []manifest.Document
	for _, f := range snap.Files {
		d, err := manifest.Parse(filepath.Join(dir, f.Name), f.Data)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// Take reads the cluster that kubeconfig names (empty: $KUBECONFIG,
// ~/.kube/config or the in-cluster service account) and builds its snapshot.
// Only the Reader half of the client is used: a snapshot never writes.
func Take(ctx context.Context, kubeconfig string, opts Options) (*Snapshot, error) {
	var restConfig *rest.Config
	var err error
	if kubeconfig != "" {
		restConfig, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		restConfig, err = ctrlconfig.GetConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("finding the cluster: %w", err)
	}
	s := scheme.New()
	c, err := client.New(restConfig, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("creating a client: %w", err)
	}
	objs, err := List(ctx, client.Reader(c))
	if err != nil {
		return nil, err
	}
	return Build(objs, opts, s)
}
