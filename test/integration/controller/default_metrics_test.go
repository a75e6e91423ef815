//go:build integration

package controller

import (
	"fmt"
	"math"
	"testing"
	"time"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
)

// Kueue: test/e2e/singlecluster/baseline/metrics_test.go, "should ensure the
// default metrics are available". With a workload admitted to a ClusterQueue
// through a LocalQueue, every default family of Kueue's list that Quokka
// exports has a sample labelled with that ClusterQueue (or LocalQueue) and
// the replica's role. Kueue's e2e configuration exports the per-flavor
// resource gauges and fair sharing's weighted share, and LocalQueue metrics
// are on by default; the manager here is configured the same way.
//
// Every family of Kueue's list is checked, kueue_pending_scheduling_hashes
// (the distinct classes of the pending workloads) since a seventeenth
// session, with the workload that waits behind the admitted one.
//
// The rest of Kueue's It (deleting the ClusterQueue and the LocalQueue
// removes their series) is not ported: Quokka's gauges are read from the
// engine at each scrape, so a deleted queue has none, and its counters are
// kept until the manager restarts.
func TestKueueDefaultMetricsAreAvailable(t *testing.T) {
	ns := "default-metrics"
	cpuQueue(t, ns, "1")
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, func(cfg *configapi.Configuration) {
		cfg.Metrics.EnableClusterQueueResources = true
		cfg.FairSharing = &configapi.FairSharing{}
	})
	create(t, makeWL(ns, "test-workload", "q", "cpu", "1"))
	waitAdmitted(t, ns, "test-workload")
	// A second workload does not fit beside the first: it waits, parked.
	create(t, makeWL(ns, "waiting", "q", "cpu", "1"))

	role := "standalone"
	cq := map[string]string{"cluster_queue": ns, "replica_role": role}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	lq := map[string]string{"name": "q", "namespace": ns, "replica_role": role}
	cell := with(cq, "flavor", "default", "resource", "cpu", "cohort", "")
	// value is the sample's expected value; NaN only asks for a sample.
	anyValue := math.NaN()
	for _, want := range []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"kueue_admission_attempts_total", map[string]string{"result": "success", "replica_role": role}, anyValue},
		{"kueue_admission_attempt_duration_seconds_count", map[string]string{"result": "success", "replica_role": role}, anyValue},
		{"kueue_pending_workloads", with(cq, "status", "active"), 0},
		{"kueue_pending_workloads", with(cq, "status", "inadmissible"), 1},
		{"kueue_pending_scheduling_hashes", with(cq, "status", "active"), 0},
		{"kueue_pending_scheduling_hashes", with(cq, "status", "inadmissible"), 1},
		{"kueue_reserving_active_workloads", cq, 1},
		{"kueue_admitted_active_workloads", cq, 1},
		{"kueue_quota_reserved_workloads_total", with(cq, "priority_class", ""), 1},
		{"kueue_quota_reserved_wait_time_seconds_count", with(cq, "priority_class", ""), 1},
		{"kueue_admitted_workloads_total", with(cq, "priority_class", ""), 1},
		{"kueue_admission_wait_time_seconds_count", with(cq, "priority_class", ""), 1},
		{"kueue_cluster_queue_resource_usage", cell, 1},
		{"kueue_cluster_queue_status", with(cq, "status", "active"), 1},
		{"kueue_cluster_queue_resource_reservation", cell, 1},
		// The waiting workload's cpu.
		{"kueue_cluster_queue_resource_pending", with(cq, "resource", "cpu"), 1},
		{"kueue_cluster_queue_nominal_quota", cell, 1},
		{"kueue_cluster_queue_borrowing_limit", cell, math.Inf(1)},
		{"kueue_cluster_queue_lending_limit", cell, math.Inf(1)},
		{"kueue_cluster_queue_weighted_share", with(cq, "cohort", ""), anyValue},

		// LocalQueue metrics.
		{"kueue_local_queue_pending_workloads", with(lq, "status", "active"), 0},
		{"kueue_local_queue_pending_workloads", with(lq, "status", "inadmissible"), 1},
		{"kueue_local_queue_reserving_active_workloads", lq, 1},
		{"kueue_local_queue_admitted_active_workloads", lq, 1},
		{"kueue_local_queue_quota_reserved_workloads_total", with(lq, "priority_class", ""), 1},
		{"kueue_local_queue_quota_reserved_wait_time_seconds_count", with(lq, "priority_class", ""), 1},
		{"kueue_local_queue_admitted_workloads_total", with(lq, "priority_class", ""), 1},
		{"kueue_local_queue_admission_wait_time_seconds_count", with(lq, "priority_class", ""), 1},
		{"kueue_local_queue_status", with(lq, "active", "True"), 1},
	} {
		eventually(t, 10*time.Second, func() string {
			got, ok := sample(mgr.scrape(t), want.name, want.labels)
			switch {
			case !ok:
				return fmt.Sprintf("no %s%v", want.name, want.labels)
			case !math.IsNaN(want.value) && got != want.value:
				return fmt.Sprintf("%s%v = %v, want %v", want.name, want.labels, got, want.value)
			}
			return ""
		})
	}
}
