package output

import (
	"encoding/json"
	"io"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/simulator"
)

// Document is the JSON output: {"events": [...], "final": {...}}, plus
// "quotaUpdates" when Dynamic Quota Orchestration changed a quota.
type Document struct {
	Events       []Event       `json:"events"`
	QuotaUpdates []QuotaUpdate `json:"quotaUpdates,omitempty"`
	Final        Final         `json:"final"`
}

// Event is one timeline entry. time is in seconds from the start.
type Event struct {
	Time         float64                                   `json:"time"`
	Type         simulator.EventType                       `json:"type"`
	Workload     string                                    `json:"workload"`
	ClusterQueue string                                    `json:"clusterQueue,omitempty"`
	ElasticQuota string                                    `json:"elasticQuota,omitempty"`
	Flavors      map[string]map[corev1.ResourceName]string `json:"flavors,omitempty"`
	Borrowing    bool                                      `json:"borrowing,omitempty"`
	// PodCounts, on Admitted, are the pod sets' admitted counts when some
	// got fewer pods than asked for (partial admission); on Reclaimed, the
	// pods of each pod set that became reclaimable.
	PodCounts map[string]int32 `json:"podCounts,omitempty"`
	Preset    bool             `json:"preset,omitempty"`
	Reason    string           `json:"reason,omitempty"`
	Message   string           `json:"message,omitempty"`
	Preemptor string           `json:"preemptor,omitempty"`
}

// QuotaUpdate is a change made by Dynamic Quota Orchestration: new nominal quotas
// of a ClusterQueue or Cohort, or an orchestrator's condition.
type QuotaUpdate struct {
	Time      float64                                   `json:"time"`
	Object    string                                    `json:"object"`
	Nominal   map[string]map[corev1.ResourceName]string `json:"nominal,omitempty"`
	Condition string                                    `json:"condition,omitempty"`
	Status    string                                    `json:"status,omitempty"`
	Reason    string                                    `json:"reason,omitempty"`
	Message   string                                    `json:"message,omitempty"`
}

// Final is the state at the end of the run (at --until when given).
type Final struct {
	Time          float64        `json:"time"`
	Workloads     []Workload     `json:"workloads"`
	ClusterQueues []ClusterQueue `json:"clusterQueues"`
	// ElasticQuotas is only present when the input has ElasticQuotas.
	ElasticQuotas []ElasticQuota `json:"elasticQuotas,omitempty"`
	// LocalQueues is only present when admission fair sharing is on.
	LocalQueues []LocalQueue `json:"localQueues,omitempty"`
}

// LocalQueue is one LocalQueue's admission fair sharing usage at the end:
// its decayed consumed resources (as its status gives them) and the usage
// the order compares (lower goes first; "+Inf" at weight 0).
type LocalQueue struct {
	Name              string                         `json:"name"`
	ClusterQueue      string                         `json:"clusterQueue"`
	ConsumedResources map[corev1.ResourceName]string `json:"consumedResources"`
	Usage             string                         `json:"admissionFairSharingUsage"`
}

// Workload is one workload's state at the end.
type Workload struct {
	Name         string                                    `json:"name"`
	State        simulator.WorkloadState                   `json:"state"`
	ClusterQueue string                                    `json:"clusterQueue,omitempty"`
	ElasticQuota string                                    `json:"elasticQuota,omitempty"`
	Flavors      map[string]map[corev1.ResourceName]string `json:"flavors,omitempty"`
	Reason       string                                    `json:"reason,omitempty"`
	Message      string                                    `json:"message,omitempty"`
	// RuntimeAssumed is true when the runtime was assumed, not known.
	RuntimeAssumed bool `json:"runtimeAssumed,omitempty"`
}

// ElasticQuota is a Koord-Queue quota at the end: its parent (omitted for the
// root), min and max as written, and used, what admitted units charge to it and
// its descendants, as quantity strings per resource.
type ElasticQuota struct {
	Name   string                         `json:"name"`
	Parent string                         `json:"parent,omitempty"`
	Min    map[corev1.ResourceName]string `json:"min,omitempty"`
	Max    map[corev1.ResourceName]string `json:"max,omitempty"`
	Used   map[corev1.ResourceName]string `json:"used"`
}

// ClusterQueue is a queue's usage at the end: per flavor, per resource, as
// quantity strings; borrowed is the part above the nominal quota.
type ClusterQueue struct {
	Name     string                                    `json:"name"`
	Usage    map[string]map[corev1.ResourceName]string `json:"usage"`
	Borrowed map[string]map[corev1.ResourceName]string `json:"borrowed,omitempty"`
	Pending  int                                       `json:"pending"`
}

// NewDocument converts a result into the JSON document.
func NewDocument(r *simulator.Result) Document {
	doc := Document{Events: make([]Event, 0, len(r.Events))}
	for _, e := range r.Events {
		doc.Events = append(doc.Events, Event{
			Time: e.Time.Seconds(), Type: e.Type, Workload: e.Workload, ClusterQueue: e.ClusterQueue, ElasticQuota: e.ElasticQuota,
			Flavors: e.Flavors, Borrowing: e.Borrowing, PodCounts: e.PodCounts, Preset: e.Preset, Reason: e.Reason, Message: e.Message, Preemptor: e.Preemptor,
		})
	}
	for _, u := range r.QuotaUpdates {
		doc.QuotaUpdates = append(doc.QuotaUpdates, QuotaUpdate{
			Time: u.Time.Seconds(), Object: u.Object, Nominal: u.Nominal,
			Condition: u.Condition, Status: u.Status, Reason: u.Reason, Message: u.Message,
		})
	}
	doc.Final.Time = r.End.Seconds()
	doc.Final.Workloads = make([]Workload, 0, len(r.Workloads))
	for _, w := range r.Workloads {
		doc.Final.Workloads = append(doc.Final.Workloads, Workload{
			Name: w.Name, State: w.State, ClusterQueue: w.ClusterQueue, ElasticQuota: w.ElasticQuota, Flavors: w.Flavors, Reason: w.Reason, Message: w.Message,
			RuntimeAssumed: w.RuntimeAssumed,
		})
	}
	for _, q := range r.ElasticQuotas {
		doc.Final.ElasticQuotas = append(doc.Final.ElasticQuotas, ElasticQuota{
			Name: q.Name, Parent: q.Parent, Min: resourceStrings(q.Min), Max: resourceStrings(q.Max), Used: resourceStrings(q.Used),
		})
	}
	for _, lq := range r.LocalQueues {
		doc.Final.LocalQueues = append(doc.Final.LocalQueues, LocalQueue{Name: lq.Name, ClusterQueue: lq.ClusterQueue,
			ConsumedResources: resourceStrings(lq.Consumed), Usage: afsUsageText(lq.Usage)})
	}
	doc.Final.ClusterQueues = make([]ClusterQueue, 0, len(r.Queues))
	for _, q := range r.Queues {
		usage := q.Usage()
		borrowed := resources.Amounts{}
		for fr, v := range usage {
			if b := v - q.Quotas.Cells[fr].Nominal; b > 0 {
				borrowed[fr] = b
			}
		}
		cq := ClusterQueue{Name: q.Name, Usage: quantities(usage), Pending: q.PendingAtEnd()}
		if len(borrowed) > 0 {
			cq.Borrowed = quantities(borrowed)
		}
		doc.Final.ClusterQueues = append(doc.Final.ClusterQueues, cq)
	}
	sort.SliceStable(doc.Final.ClusterQueues, func(i, j int) bool { return doc.Final.ClusterQueues[i].Name < doc.Final.ClusterQueues[j].Name })
	return doc
}

// resourceStrings renders a resource list as quantity strings; never nil.
// afsUsageText renders an admission fair sharing usage with six significant
// digits, "+Inf" for a LocalQueue of weight 0.
func afsUsageText(u float64) string {
	return strconv.FormatFloat(u, 'g', 6, 64)
}

func resourceStrings(l corev1.ResourceList) map[corev1.ResourceName]string {
	out := make(map[corev1.ResourceName]string, len(l))
	for r, q := range l {
		out[r] = q.String()
	}
	return out
}

// quantities renders canonical amounts as quantity strings, flavor by resource.
func quantities(a resources.Amounts) map[string]map[corev1.ResourceName]string {
	out := map[string]map[corev1.ResourceName]string{}
	for _, fr := range a.Keys() {
		m := out[fr.Flavor]
		if m == nil {
			m = map[corev1.ResourceName]string{}
			out[fr.Flavor] = m
		}
		q := resources.ToQuantity(fr.Resource, a[fr])
		m[fr.Resource] = q.String()
	}
	return out
}

// WriteJSON writes the result as one indented JSON document. encoding/json sorts
// map keys, and every list is in a defined order, so the bytes are stable.
func WriteJSON(w io.Writer, r *simulator.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewDocument(r))
}
