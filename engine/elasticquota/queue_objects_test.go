package elasticquota

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
)

func handQueue(name, namespace string, policy queuev1alpha1.QueuePolicy, annotations ...string) *queuev1alpha1.Queue {
	q := &queuev1alpha1.Queue{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: map[string]string{}}}
	q.Spec.QueuePolicy = policy
	for i := 0; i+1 < len(annotations); i += 2 {
		q.Annotations[annotations[i]] = annotations[i+1]
	}
	return q
}

// 004: "Annotations that are written directly to the Queue are preserved. The
// reconciliation adds and updates the annotations that come from the
// ElasticQuota; it does not remove others. A Queue that is maintained by hand
// can therefore carry additional annotations, but its policy remains under the
// control of the quota."
func TestUpsertQueueAddsAnnotationsButNotThePolicy(t *testing.T) {
	t.Parallel()
	ns := queuev1alpha1.DefaultQueueNamespace
	cases := []struct {
		name  string
		quota []string // policy, then annotation pairs
		queue *queuev1alpha1.Queue
		want  queueConfig
	}{{
		name:  "an extra max-depth on the Queue bounds the scan",
		quota: []string{"Priority"},
		queue: handQueue("q", ns, "", MaxDepthAnnotation, "2"),
		want:  queueConfig{name: "q", policy: queuev1alpha1.PriorityPolicy, threshold: DefaultPriorityThreshold, maxDepth: 2},
	}, {
		name:  "an extra priority-threshold on the Queue splits an Intelligent queue",
		quota: []string{"Intelligent"},
		queue: handQueue("q", ns, "", PriorityThresholdAnnotation, "10"),
		want:  queueConfig{name: "q", policy: queuev1alpha1.IntelligentPolicy, threshold: 10},
	}, {
		name:  "the quota's own annotation wins over the Queue's",
		quota: []string{"Priority", MaxDepthAnnotation, "5"},
		queue: handQueue("q", ns, "", MaxDepthAnnotation, "2"),
		want:  queueConfig{name: "q", policy: queuev1alpha1.PriorityPolicy, threshold: DefaultPriorityThreshold, maxDepth: 5},
	}, {
		name:  "spec.queuePolicy of the Queue is ignored: the quota's label decides",
		quota: []string{"Priority"},
		queue: handQueue("q", ns, queuev1alpha1.BlockPolicy),
		want:  queueConfig{name: "q", policy: queuev1alpha1.PriorityPolicy, threshold: DefaultPriorityThreshold},
	}, {
		name:  "without a policy label the Queue's Block is still ignored (Priority)",
		quota: []string{""},
		queue: handQueue("q", ns, queuev1alpha1.BlockPolicy, "other.example.com/x", "y"),
		want:  queueConfig{name: "q", policy: queuev1alpha1.PriorityPolicy, threshold: DefaultPriorityThreshold},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "8"}), tc.quota[0], tc.quota[1:]...))
			applied, err := s.UpsertQueue(tc.queue)
			if err != nil || !applied {
				t.Fatalf("UpsertQueue = %v, %v", applied, err)
			}
			if got := s.configs["q"]; got != tc.want {
				t.Errorf("queue config = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The extra annotation changes decisions: with koord-queue/max-depth 1 written
// on the Queue only, the second unit of a Priority queue is not looked at.
func TestUpsertQueueMaxDepthTakesEffectInTheCycle(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, quota("q", "", map[string]string{"cpu": "8"}))
	if _, err := s.UpsertQueue(handQueue("q", queuev1alpha1.DefaultQueueNamespace, "", MaxDepthAnnotation, "1")); err != nil {
		t.Fatal(err)
	}
	addUnits(t, s, mkUnit("big").Quota("q").CPU(9).Obj(), mkUnit("small").Quota("q").CPU(1).At(1).Obj())
	got, _, _ := outcome(t, s.Cycle())
	if got["big"] != ReasonFailedScheduling || got["small"] != ReasonBeyondMaxDepth {
		t.Errorf("decisions = %v, want big FailedScheduling and small BeyondMaxDepth", got)
	}
}

// The scheduler keeps no Queue objects: the quota re-derives its queue when it
// is upserted, and the Queue applies again when the driver hands it back. A
// Queue of a quota that does not exist configures nothing; one outside
// Koord-Queue's namespace is refused (koord-queue lists Queues in "koord-queue"
// only).
func TestUpsertQueueWithoutItsQuotaAndOutsideItsNamespace(t *testing.T) {
	t.Parallel()
	s := NewScheduler(NoOversell)
	q := handQueue("q", queuev1alpha1.DefaultQueueNamespace, "", MaxDepthAnnotation, "1")
	if applied, err := s.UpsertQueue(q); applied || err != nil {
		t.Errorf("a Queue without its quota: applied %v, err %v; want neither", applied, err)
	}
	if _, ok := s.configs["q"]; ok {
		t.Error("a Queue without its quota created a queue")
	}
	if err := s.UpsertQuota(quota("q", "", map[string]string{"cpu": "8"})); err != nil {
		t.Fatal(err)
	}
	if s.configs["q"].maxDepth != 0 {
		t.Errorf("the quota alone has max depth %d, want none", s.configs["q"].maxDepth)
	}
	if applied, err := s.UpsertQueue(q); !applied || err != nil || s.configs["q"].maxDepth != 1 {
		t.Errorf("handed back after the quota: applied %v, err %v, max depth %d; want 1", applied, err, s.configs["q"].maxDepth)
	}
	_, err := s.UpsertQueue(handQueue("q", "default", ""))
	if err == nil || !strings.Contains(err.Error(), "Koord-Queue reads Queues in namespace koord-queue only") {
		t.Errorf("a Queue in namespace default: %v", err)
	}
}
