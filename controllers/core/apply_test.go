package core

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

// Only the first pending workload of each ClusterQueue (its head, in the
// engine's order) and every workload that reaches no ClusterQueue get their
// reason written.
func TestPendingHeads(t *testing.T) {
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: n} }
	decisions := []scheduler.Decision{
		scheduler.Admit{Workload: key("admitted"), ClusterQueue: "a"},
		scheduler.Pending{Workload: key("a-head"), ClusterQueue: "a", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("b-head"), ClusterQueue: "b", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("a-second"), ClusterQueue: "a", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("no-lq-1"), Reason: "LocalQueueNotFound"},
		scheduler.Pending{Workload: key("no-lq-2"), Reason: "LocalQueueNotFound"},
		scheduler.Pending{Workload: key("b-second"), ClusterQueue: "b", Reason: "InsufficientQuota"},
	}
	want := map[string]bool{"a-head": true, "b-head": true, "no-lq-1": true, "no-lq-2": true}
	var heads headPicker
	for _, d := range decisions {
		p, ok := d.(scheduler.Pending)
		if !ok {
			continue
		}
		if got := heads.isHead(p); got != want[p.Workload.Name] {
			t.Errorf("%s: written = %v, want %v", p.Workload.Name, got, want[p.Workload.Name])
		}
	}
}
