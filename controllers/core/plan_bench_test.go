package core

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

// BenchmarkPlanLoadedCycle plans a cycle of Kueue's baseline under load: 30
// ClusterQueues, one LocalQueue each, 500 pending workloads per queue, whose
// Pending decisions come interleaved across the queues as the engine's heads
// take turns, and 30 admissions.
func BenchmarkPlanLoadedCycle(b *testing.B) {
	const queues, perQueue = 30, 500
	cqs := make([]string, queues)
	for i := range cqs {
		cqs[i] = fmt.Sprintf("cq-%d", i)
	}
	var decisions []scheduler.Decision
	for i := range perQueue {
		for q, cq := range cqs {
			key := types.NamespacedName{Namespace: fmt.Sprintf("ns-%d", q), Name: fmt.Sprintf("wl-%d-%d", q, i)}
			if i == 0 {
				decisions = append(decisions, scheduler.Admit{Workload: key, ClusterQueue: cq})
				continue
			}
			decisions = append(decisions, scheduler.Pending{Workload: key, LocalQueue: "lq-" + cq, ClusterQueue: cq,
				Reason: "InsufficientQuota", Message: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default"})
		}
	}
	l := &loop{pending: newPendingTracker(), deferred: newDeferredReasons(2 * time.Second)}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		res, writes := l.plan(decisions, now)
		if len(writes) < queues || res.inadmissibleByCQ[cqs[0]] != perQueue-1 {
			b.Fatalf("planned %d writes, %d pending in %s", len(writes), res.inadmissibleByCQ[cqs[0]], cqs[0])
		}
	}
}
