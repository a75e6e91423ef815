package explain

import (
	"cmp"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// QueueReport is the answer for a ClusterQueue or a LocalQueue: its state, its
// quota and usage, and its pending workloads in queue order with the engine's
// reason for each.
type QueueReport struct {
	Kind             string      `json:"kind"`
	Name             string      `json:"name"`
	ClusterQueue     string      `json:"clusterQueue"`
	Cohort           string      `json:"cohort,omitempty"`
	QueueingStrategy string      `json:"queueingStrategy,omitempty"`
	Active           bool        `json:"active"`
	ActiveReason     string      `json:"activeReason,omitempty"`
	ActiveMessage    string      `json:"activeMessage,omitempty"`
	StopPolicy       string      `json:"stopPolicy,omitempty"`
	Quotas           []QuotaLine `json:"quotas,omitempty"`
	Admitted         int         `json:"admitted"`
	// Pending lists the pending workloads (of the LocalQueue, for a
	// LocalQueue); Position is within the ClusterQueue.
	Pending []PendingLine `json:"pending"`
}

// QuotaLine is one flavor and resource of a ClusterQueue.
type QuotaLine struct {
	Flavor         string `json:"flavor"`
	Resource       string `json:"resource"`
	Nominal        string `json:"nominal"`
	BorrowingLimit string `json:"borrowingLimit"`
	LendingLimit   string `json:"lendingLimit"`
	Used           string `json:"used"`
	Borrowed       string `json:"borrowed"`
}

// PendingLine is one pending workload of a queue.
type PendingLine struct {
	Position   int    `json:"position"`
	Workload   string `json:"workload"`
	LocalQueue string `json:"localQueue"`
	Fits       bool   `json:"fits"`
	Reason     string `json:"reason,omitempty"`
	Message    string `json:"message,omitempty"`
}

// ClusterQueue explains a ClusterQueue.
func (e *Explainer) ClusterQueue(name string) (*QueueReport, error) {
	rep, err := e.clusterQueue(name)
	if err != nil {
		return nil, err
	}
	rep.Kind, rep.Name = "ClusterQueue", name
	for i, q := range e.pendingOf(name) {
		rep.Pending = append(rep.Pending, pendingLine(i+1, q))
	}
	return rep, nil
}

// LocalQueue explains a LocalQueue: its ClusterQueue's state and its own
// pending workloads, with their positions in the ClusterQueue.
func (e *Explainer) LocalQueue(key types.NamespacedName) (*QueueReport, error) {
	v, ok := e.s.LocalQueueSnapshot(key.Namespace, key.Name)
	if !ok {
		return nil, fmt.Errorf("LocalQueue %s not found", key)
	}
	rep, err := e.clusterQueue(v.ClusterQueue)
	if err != nil {
		rep = &QueueReport{ClusterQueue: v.ClusterQueue, ActiveMessage: err.Error()}
	}
	rep.Kind, rep.Name = "LocalQueue", key.String()
	rep.StopPolicy = string(cmp.Or(v.StopPolicy, kueue.None))
	rep.Admitted = v.AdmittedWorkloads
	rep.Pending = nil
	for i, q := range e.pendingOf(v.ClusterQueue) {
		if q.key.Namespace == key.Namespace && q.lq == key.Name {
			rep.Pending = append(rep.Pending, pendingLine(i+1, q))
		}
	}
	return rep, nil
}

func (e *Explainer) clusterQueue(name string) (*QueueReport, error) {
	v, ok := e.s.ClusterQueueSnapshot(name)
	if !ok {
		return nil, fmt.Errorf("ClusterQueue %s not found", name)
	}
	rep := &QueueReport{ClusterQueue: name, Cohort: v.Cohort, Active: v.Active, ActiveReason: v.ActiveReason,
		ActiveMessage: v.ActiveMessage, Admitted: v.AdmittedWorkloads}
	if cq, ok := e.cqs[name]; ok {
		rep.QueueingStrategy = string(cmp.Or(cq.Spec.QueueingStrategy, kueue.BestEffortFIFO))
	}
	used := map[resources.FlavorResource][2]int64{}
	for _, u := range v.Usage {
		used[resources.FlavorResource{Flavor: u.Flavor, Resource: u.Resource}] = [2]int64{u.Total, u.Borrowed}
	}
	for _, q := range v.Quotas {
		u := used[resources.FlavorResource{Flavor: q.Flavor, Resource: q.Resource}]
		rep.Quotas = append(rep.Quotas, QuotaLine{Flavor: q.Flavor, Resource: string(q.Resource),
			Nominal: qty(q.Resource, q.Nominal), BorrowingLimit: qty(q.Resource, q.BorrowingLimit),
			LendingLimit: qty(q.Resource, q.LendingLimit), Used: qty(q.Resource, u[0]), Borrowed: qty(q.Resource, u[1])})
	}
	return rep, nil
}

func pendingLine(pos int, q queued) PendingLine {
	return PendingLine{Position: pos, Workload: q.key.String(), LocalQueue: q.lq, Fits: q.d.Fits,
		Reason: q.d.Reason, Message: q.d.Message}
}
