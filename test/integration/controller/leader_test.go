//go:build integration

package controller

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// With leader election, only the leader writes; the follower keeps its engine
// warm (its gauges show the same usage, labelled replica_role="follower", which
// the spec's chargeback query filters out) and takes over when the leader stops.
func TestLeaderElection(t *testing.T) {
	ns := "ha"
	cpuQueue(t, ns, "2")
	create(t, makeNS(configapi.DefaultNamespace, nil))
	elect := func(cfg *configapi.Configuration) {
		cfg.LeaderElection.LeaderElect = ptr.To(true)
		cfg.Metrics.EnableClusterQueueResources = true
	}
	usage := func(m *runningManager, role string, want float64) func() string {
		return func() string {
			v, ok := sample(m.scrape(t), "kueue_cluster_queue_resource_usage",
				map[string]string{"cluster_queue": ns, "resource": "cpu", "replica_role": role})
			if !ok || v != want {
				return fmt.Sprintf("kueue_cluster_queue_resource_usage{cluster_queue=%s,replica_role=%s} = %v (found %v), want %v", ns, role, v, ok, want)
			}
			return ""
		}
	}
	first := startManager(t, elect)
	eventually(t, 30*time.Second, usage(first, "leader", 0))
	second := startManagerWith(t, elect, prometheus.NewRegistry())
	eventually(t, 30*time.Second, usage(second, "follower", 0))

	for i := range 3 {
		create(t, makeWL(ns, fmt.Sprintf("w%d", i), "q", "cpu", "1"))
	}
	eventually(t, 20*time.Second, func() string {
		if n := countAdmitted(listWLs(t, ns)); n != 2 {
			return fmt.Sprintf("%d admitted, want 2", n)
		}
		return ""
	})
	eventually(t, 10*time.Second, usage(first, "leader", 2))
	eventually(t, 10*time.Second, usage(second, "follower", 2))

	first.stop()
	eventually(t, 30*time.Second, usage(second, "leader", 2))
	var pending string
	for _, wl := range listWLs(t, ns) {
		if !isAdmitted(&wl) {
			pending = wl.Name
		}
	}
	waitPending(t, ns, pending, kueue.WorkloadQuotaReservedReasonWaitingForQuota)
	for _, wl := range listWLs(t, ns) {
		if isAdmitted(&wl) {
			finish(t, &wl)
			break
		}
	}
	waitAdmitted(t, ns, pending)
}
