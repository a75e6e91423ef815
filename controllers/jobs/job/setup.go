package job

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/cli"
)

// OwnerJobIndex indexes Workloads by the name of the Job that controls them, so
// that the Workloads of a deleted Job can be found without its UID.
const OwnerJobIndex = "quokka.dev/owner-job"

// Controller registers the Job reconciler with `quokka manager`.
func Controller() cli.Controller {
	return cli.Controller{Name: "job", Setup: func(mgr manager.Manager, cfg *configapi.Configuration) error {
		opts := Options{WaitForPodsReady: cfg.WaitForPodsReady != nil,
			NoReclaimablePods:          !cfg.FeatureGate(configapi.FeatureReclaimablePods),
			ManageJobsWithoutQueueName: cfg.ManageJobsWithoutQueueName, ManagedNamespaces: cfg.ManagedNamespaces()}
		if cfg.Integrations != nil {
			opts.LabelKeysToCopy = cfg.Integrations.LabelKeysToCopy
		}
		if p := cfg.ObjectRetentionPolicies; p != nil && p.Workloads != nil && p.Workloads.AfterDeactivatedByKueue != nil {
			opts.AfterDeactivatedByKueue = &p.Workloads.AfterDeactivatedByKueue.Duration
		}
		if cfg.FeatureGate(configapi.FeatureMetricForWorkloadCreationLatency) {
			role := "standalone"
			if cfg.LeaderElectionEnabled() {
				role = "leader"
			}
			var err error
			if opts.CreationLatency, err = NewCreationLatency(ctrlmetrics.Registry, role); err != nil {
				return err
			}
		}
		return Setup(mgr, opts)
	}}
}

// Options are the Configuration's settings the Job reconciler follows.
type Options struct {
	// WaitForPodsReady makes it keep the Workloads' PodsReady condition.
	WaitForPodsReady bool
	// AfterDeactivatedByKueue deletes a Job that long after the manager
	// deactivated its Workload; nil keeps it.
	AfterDeactivatedByKueue *time.Duration
	// NoReclaimablePods is the ReclaimablePods gate off.
	NoReclaimablePods bool
	// ManageJobsWithoutQueueName and ManagedNamespaces manage Jobs without
	// the queue-name label in the namespaces the selector matches.
	ManageJobsWithoutQueueName bool
	ManagedNamespaces          labels.Selector
	// LabelKeysToCopy are the Job labels its Workload is created with.
	LabelKeysToCopy []string
	// CreationLatency, when set, observes each Workload's creation latency.
	CreationLatency *CreationLatency
}

// Setup adds the Job reconciler and its index to mgr.
func Setup(mgr manager.Manager, opts Options) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &kueue.Workload{}, OwnerJobIndex, IndexOwnerJob); err != nil {
		return fmt.Errorf("indexing workloads by owner job: %w", err)
	}
	// Only labelled Jobs are watched through; a create, update or delete of any
	// other Job is dropped before it reaches the queue. An update that removes the
	// label still passes (the old object has it), and the reconciler then leaves
	// the Job alone.
	// With manageJobsWithoutQueueName every Job passes, and the reconciler
	// reads its namespace.
	managed := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return opts.ManageJobsWithoutQueueName || o.GetLabels()[kueue.QueueNameLabel] != ""
	})
	// SkipNameValidation, as the core's controllers: one process may run
	// several managers (the integration tests do), each with its controller.
	err := ctrl.NewControllerManagedBy(mgr).
		Named("job").
		For(&batchv1.Job{}, builder.WithPredicates(predicate.Or(managed, labelRemoved()))).
		Owns(&kueue.Workload{}).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(&Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("quokka-job-controller"),
			WaitForPodsReady: opts.WaitForPodsReady, AfterDeactivatedByKueue: opts.AfterDeactivatedByKueue,
			NoReclaimablePods: opts.NoReclaimablePods, ManageJobsWithoutQueueName: opts.ManageJobsWithoutQueueName,
			ManagedNamespaces: opts.ManagedNamespaces, LabelKeysToCopy: opts.LabelKeysToCopy,
			CreationLatency: opts.CreationLatency})
	if err != nil {
		return fmt.Errorf("creating job controller: %w", err)
	}
	return nil
}

// labelRemoved passes updates whose old object carried the queue label.
func labelRemoved() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(_ event.CreateEvent) bool { return false },
		DeleteFunc:  func(_ event.DeleteEvent) bool { return false },
		GenericFunc: func(_ event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetLabels()[kueue.QueueNameLabel] != ""
		},
	}
}

// IndexOwnerJob is the indexer of OwnerJobIndex.
func IndexOwnerJob(o client.Object) []string {
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != jobGVK.Kind || ref.APIVersion != jobGVK.GroupVersion().String() {
		return nil
	}
	return []string{ref.Name}
}
