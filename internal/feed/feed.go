// Package feed turns the API objects of a cluster into engine input. The
// manager's rebuild and `quokka explain` both go through it, so that the engine
// the command reasons about is built exactly as the manager's is: the same
// kinds, in the same dependency order, with the same calls.
package feed

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// Objects are the listed objects the engine needs.
type Objects struct {
	Flavors           kueue.ResourceFlavorList
	Cohorts           kueue.CohortList
	Namespaces        corev1.NamespaceList
	LimitRanges       corev1.LimitRangeList
	RuntimeClasses    nodev1.RuntimeClassList
	WPCs              kueue.WorkloadPriorityClassList
	PriorityClasses   schedulingv1.PriorityClassList
	PreemptionConfigs kueuev1alpha1.PreemptionConfigList
	ClusterQueues     kueue.ClusterQueueList
	LocalQueues       kueue.LocalQueueList
	Workloads         kueue.WorkloadList
}

// List reads every kind the engine needs through r (an informer cache in the
// manager, the API server in the CLI). It only reads.
func List(ctx context.Context, r client.Reader) (*Objects, error) {
	o := &Objects{}
	for _, list := range []client.ObjectList{&o.Flavors, &o.Cohorts, &o.Namespaces, &o.LimitRanges, &o.RuntimeClasses, &o.WPCs, &o.PriorityClasses,
		&o.PreemptionConfigs, &o.ClusterQueues, &o.LocalQueues, &o.Workloads} {
		if err := r.List(ctx, list); err != nil {
			return nil, fmt.Errorf("listing %T: %w", list, err)
		}
	}
	return o, nil
}

// Into upserts the objects into s in dependency order: flavors, cohorts,
// namespaces (with their LimitRanges), RuntimeClasses and priorities before
// the queues and workloads that use them, queues before
// workloads. Workloads with status.admission are charged as admitted; ones being
// deleted are forgotten, as their quota goes with them. Objects the engine
// refuses are returned as errors and skipped; the rest are fed all the same.
func (o *Objects) Into(s *scheduler.Scheduler) []error {
	var errs []error
	for i := range o.Flavors.Items {
		s.UpsertResourceFlavor(&o.Flavors.Items[i])
	}
	for i := range o.Cohorts.Items {
		if err := s.UpsertCohort(&o.Cohorts.Items[i]); err != nil {
			errs = append(errs, fmt.Errorf("Cohort %s: %w", o.Cohorts.Items[i].Name, err))
		}
	}
	for i := range o.Namespaces.Items {
		s.UpsertNamespace(o.Namespaces.Items[i].Name, o.Namespaces.Items[i].Labels)
	}
	byNamespace := map[string][]corev1.LimitRange{}
	for _, lr := range o.LimitRanges.Items {
		byNamespace[lr.Namespace] = append(byNamespace[lr.Namespace], lr)
	}
	for ns, ranges := range byNamespace {
		s.SetLimitRanges(ns, ranges)
	}
	for i := range o.RuntimeClasses.Items {
		rc := &o.RuntimeClasses.Items[i]
		var overhead corev1.ResourceList
		if rc.Overhead != nil {
			overhead = rc.Overhead.PodFixed
		}
		s.UpsertRuntimeClass(rc.Name, overhead)
	}
	for i := range o.WPCs.Items {
		s.UpsertWorkloadPriorityClass(o.WPCs.Items[i].Name, o.WPCs.Items[i].Value)
	}
	for i := range o.PriorityClasses.Items {
		s.UpsertPriorityClass(o.PriorityClasses.Items[i].Name, o.PriorityClasses.Items[i].Value)
	}
	for i := range o.PreemptionConfigs.Items {
		if err := s.UpsertPreemptionConfig(&o.PreemptionConfigs.Items[i]); err != nil {
			errs = append(errs, fmt.Errorf("PreemptionConfig %s: %w", o.PreemptionConfigs.Items[i].Name, err))
		}
	}
	for i := range o.ClusterQueues.Items {
		if err := s.UpsertClusterQueue(&o.ClusterQueues.Items[i]); err != nil {
			errs = append(errs, fmt.Errorf("ClusterQueue %s: %w", o.ClusterQueues.Items[i].Name, err))
		}
	}
	for i := range o.LocalQueues.Items {
		s.UpsertLocalQueue(&o.LocalQueues.Items[i])
	}
	for i := range o.Workloads.Items {
		wl := &o.Workloads.Items[i]
		if !wl.DeletionTimestamp.IsZero() {
			s.DeleteWorkload(client.ObjectKeyFromObject(wl))
			continue
		}
		if err := s.UpsertWorkload(wl); err != nil {
			errs = append(errs, fmt.Errorf("Workload %s: %w", client.ObjectKeyFromObject(wl), err))
		}
	}
	return errs
}
