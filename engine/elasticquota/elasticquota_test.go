package elasticquota

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/resources"
)

// quota builds an ElasticQuota; parent "" leaves the label out, "-" sets it empty.
func quota(name, parent string, max map[string]string) *koordv1alpha1.ElasticQuota {
	eq := &koordv1alpha1.ElasticQuota{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}}}
	switch parent {
	case "":
	case "-":
		eq.Labels[koordv1alpha1.ParentLabel] = ""
	default:
		eq.Labels[koordv1alpha1.ParentLabel] = parent
	}
	if max != nil {
		eq.Spec.Max = corev1.ResourceList{}
		for r, v := range max {
			eq.Spec.Max[corev1.ResourceName(r)] = resource.MustParse(v)
		}
	}
	return eq
}

func cpu(cores int64) resources.Requests { return resources.Requests{corev1.ResourceCPU: cores * 1000} }

// 004: "The plugin reads the quota name from the label
// quota.scheduling.koordinator.sh/name ... the queue name is the same string."
func TestQueueNameIsTheQuotaName(t *testing.T) {
	c := NewCache()
	if err := c.Upsert(quota("team-a", "", map[string]string{"cpu": "8"})); err != nil {
		t.Fatal(err)
	}
	got := c.Resolve(map[string]string{koordv1alpha1.QuotaNameLabel: "team-a"})
	if got != (Resolution{Quota: "team-a", Queue: "team-a", Found: true}) {
		t.Errorf("Resolve = %+v", got)
	}
}

// 004: "There is no namespace based fallback. A job that does not carry the label
// does not resolve to any quota, and consequently not to any queue."
func TestNoLabelResolvesToNothing(t *testing.T) {
	c := NewCache()
	if err := c.Upsert(quota("default", "", map[string]string{"cpu": "8"})); err != nil {
		t.Fatal(err)
	}
	if got := c.Resolve(map[string]string{"app": "x"}); got != (Resolution{}) {
		t.Errorf("a unit without the quota label resolved to %+v", got)
	}
}

// 004: "a QueueUnit whose label names an unknown quota resolves to a queue that does
// not exist. A Warning event with the reason QueueNotFound is then recorded once on
// the unit, with a message of the form queue <name> not found for queueUnit
// <namespace>/<name>".
func TestUnknownQuotaResolvesToMissingQueue(t *testing.T) {
	c := NewCache()
	got := c.Resolve(map[string]string{koordv1alpha1.QuotaNameLabel: "team-z"})
	if got.Queue != "team-z" || got.Found {
		t.Errorf("Resolve = %+v, want queue team-z not found", got)
	}
	if msg := QueueNotFoundMessage(got.Queue, "default", "training-job"); msg != "queue team-z not found for queueUnit default/training-job" {
		t.Errorf("message = %q", msg)
	}
}

// 004: "two ElasticQuota objects with the same name in different namespaces are
// treated as the same quota, and the one that is reconciled last wins."
func TestSameNameInTwoNamespacesLastWins(t *testing.T) {
	c := NewCache()
	a := quota("team-a", "", map[string]string{"cpu": "8"})
	b := quota("team-a", "", map[string]string{"cpu": "2"})
	b.Namespace = "other"
	_ = c.Upsert(a)
	_ = c.Upsert(b)
	if len(c.Names()) != 1 {
		t.Fatalf("quotas = %v, want one", c.Names())
	}
	if err := c.CheckUsage("u", "team-a", cpu(4), NoOversell); !errors.Is(err, ErrInsufficient) {
		t.Errorf("4 CPUs against the last reconciled max of 2: got %v, want insufficient", err)
	}
}

// 004: "When the label is absent or empty, the parent defaults to
// koordinator-root-quota ... the root quota itself has no parent."
func TestParentDefaultsToRoot(t *testing.T) {
	for _, p := range []string{"", "-"} {
		if got := ParentName(quota("team-a", p, nil)); got != koordv1alpha1.RootQuotaName {
			t.Errorf("parent label %q: ParentName = %q", p, got)
		}
	}
	if got := ParentName(quota(koordv1alpha1.RootQuotaName, "", nil)); got != "" {
		t.Errorf("the root's parent = %q, want none", got)
	}
	if got := ParentName(quota("team-a", "org", nil)); got != "org" {
		t.Errorf("ParentName = %q, want org", got)
	}
}

// 004: the automatically created Queue of the spec's team-a example.
func TestQueueDerivedFromElasticQuota(t *testing.T) {
	eq := quota("team-a", "-", map[string]string{"cpu": "8", "memory": "16Gi"})
	eq.Labels[koordv1alpha1.IsParentLabel] = "false"
	eq.Labels[queuev1alpha1.QueuePolicyLabel] = "Priority"
	eq.Annotations = map[string]string{
		"koord-queue/wait-for-pods-running":       "true",
		"koord-queue/enable-queueunit-preemption": "true",
		"unrelated.example.com/owner":             "ml",
	}
	q := DesiredQueue(eq, queuev1alpha1.DefaultQueueNamespace)
	if q.Name != "team-a" || q.Namespace != "koord-queue" {
		t.Errorf("queue %s/%s, want koord-queue/team-a", q.Namespace, q.Name)
	}
	if q.Spec.Priority == nil || *q.Spec.Priority != 1000 || q.Spec.QueuePolicy != queuev1alpha1.PriorityPolicy {
		t.Errorf("spec = %+v, want priority 1000 and policy Priority", q.Spec)
	}
	if v, ok := q.Labels[koordv1alpha1.ParentLabel]; !ok || v != "" {
		t.Errorf("parent label = %q (present %v), want copied empty value", v, ok)
	}
	if len(q.Labels) != 1 {
		t.Errorf("labels = %v, want only the parent label", q.Labels)
	}
	want := map[string]string{"koord-queue/wait-for-pods-running": "true", "koord-queue/enable-queueunit-preemption": "true"}
	if len(q.Annotations) != len(want) {
		t.Errorf("annotations = %v, want %v", q.Annotations, want)
	}
	for k, v := range want {
		if q.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, q.Annotations[k], v)
		}
	}
}

// 004: "spec.queuePolicy: The value of the label koord-queue/queue-policy, when that
// value is one of Priority, Block, Round or Intelligent. Otherwise Priority."
func TestQueuePolicyFromLabel(t *testing.T) {
	cases := map[string]queuev1alpha1.QueuePolicy{
		"Priority": "Priority", "Block": "Block", "Round": "Round", "Intelligent": "Intelligent",
		"FIFO": "Priority", "": "Priority", "block": "Priority",
	}
	for label, want := range cases {
		eq := quota("q", "", nil)
		if label != "" {
			eq.Labels[queuev1alpha1.QueuePolicyLabel] = label
		}
		if got := DesiredQueue(eq, "koord-queue").Spec.QueuePolicy; got != want {
			t.Errorf("label %q: policy %q, want %q", label, got, want)
		}
	}
}

// 004, "Reconciliation Semantics": a policy written to the Queue is restored, and
// annotations written to the Queue are preserved.
func TestReconcileRestoresPolicyAndKeepsQueueAnnotations(t *testing.T) {
	eq := quota("team-a", "", nil)
	eq.Annotations = map[string]string{"koord-queue/priority-threshold": "100"}
	existing := DesiredQueue(eq, "koord-queue")
	existing.Spec.QueuePolicy = queuev1alpha1.BlockPolicy
	existing.Annotations["koord-queue/scan-depth"] = "5"

	eq.Annotations["koord-queue/priority-threshold"] = "200"
	got := ReconcileQueue(existing, eq, "koord-queue")
	if got.Spec.QueuePolicy != queuev1alpha1.PriorityPolicy {
		t.Errorf("policy = %s, want restored to Priority", got.Spec.QueuePolicy)
	}
	if got.Annotations["koord-queue/scan-depth"] != "5" {
		t.Error("an annotation written to the Queue was removed")
	}
	if got.Annotations["koord-queue/priority-threshold"] != "200" {
		t.Error("a synchronised annotation was not updated")
	}
	if existing.Spec.QueuePolicy != queuev1alpha1.BlockPolicy {
		t.Error("ReconcileQueue modified its input")
	}
}

// 004: "Because every level of the chain is evaluated, a job can be held in the
// queue by an ancestor quota even when its own quota still has capacity."
func TestAncestorQuotaHoldsUnit(t *testing.T) {
	c := NewCache()
	_ = c.Upsert(quota("org", "", map[string]string{"cpu": "10"}))
	_ = c.Upsert(quota("team-a", "org", map[string]string{"cpu": "8"}))
	_ = c.Upsert(quota("team-b", "org", map[string]string{"cpu": "8"}))
	if err := c.Reserve("b1", "team-b", cpu(6)); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckUsage("a1", "team-a", cpu(4), NoOversell); err != nil {
		t.Fatalf("4 of org's remaining 4 CPUs should fit: %v", err)
	}
	err := c.CheckUsage("a1", "team-a", cpu(5), NoOversell)
	if !errors.Is(err, ErrInsufficient) || !strings.Contains(err.Error(), "quotaName:org") {
		t.Errorf("5 CPUs: got %v, want held by org although team-a has 8 free", err)
	}
	c.Unreserve("b1")
	if err := c.CheckUsage("a1", "team-a", cpu(8), NoOversell); err != nil {
		t.Errorf("after unreserve, 8 CPUs fit: %v", err)
	}
	if got := c.Used("org"); len(got) != 0 {
		t.Errorf("org usage after unreserve = %v, want none", got)
	}
}

// 004: usage is checked "against its own min and max, scaled by the oversell rate
// configured with the flag --oversellrate".
func TestOversellRateScalesMax(t *testing.T) {
	c := NewCache()
	_ = c.Upsert(quota("team-a", "", map[string]string{"cpu": "10"}))
	rate, err := ParseOversellRate("1.5")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckUsage("u", "team-a", cpu(15), rate); err != nil {
		t.Errorf("15 CPUs within 10 × 1.5: %v", err)
	}
	if err := c.CheckUsage("u", "team-a", cpu(16), rate); !errors.Is(err, ErrInsufficient) {
		t.Errorf("16 CPUs above 10 × 1.5: got %v", err)
	}
	if _, err := ParseOversellRate("-1"); err == nil {
		t.Error("a negative oversell rate must be refused")
	}
}

// 004: "CheckUsage found cycle reference, item:..., quotaName:..., visited quota: ..."
func TestCycleOfParentLabelsIsReported(t *testing.T) {
	c := NewCache()
	_ = c.Upsert(quota("a", "b", map[string]string{"cpu": "8"}))
	_ = c.Upsert(quota("b", "a", map[string]string{"cpu": "8"}))
	err := c.CheckUsage("job-1", "a", cpu(1), NoOversell)
	if !errors.Is(err, ErrCycle) || !strings.Contains(err.Error(), "CheckUsage found cycle reference, item:job-1, quotaName:a, visited quota: a,b") {
		t.Errorf("got %v", err)
	}
}

// 004: "CheckUsage found quota not exist, item:..., quotaName:..., visited quota: ..."
func TestMissingAncestorIsReported(t *testing.T) {
	c := NewCache()
	_ = c.Upsert(quota("team-a", "org", map[string]string{"cpu": "8"}))
	err := c.CheckUsage("job-1", "team-a", cpu(1), NoOversell)
	if !errors.Is(err, ErrQuotaNotExist) || !strings.Contains(err.Error(), "CheckUsage found quota not exist, item:job-1, quotaName:org, visited quota: team-a,org") {
		t.Errorf("got %v", err)
	}
}

// Koord-Queue: a quota with an empty max admits no request ("quota spec is empty but
// queue unit res is not empty"); a resource that max does not list is not limited.
func TestEmptyMaxAdmitsNothing(t *testing.T) {
	c := NewCache()
	_ = c.Upsert(quota("empty", "", nil))
	_ = c.Upsert(quota("cpu-only", "", map[string]string{"cpu": "4"}))
	if err := c.CheckUsage("u", "empty", cpu(1), NoOversell); !errors.Is(err, ErrInsufficient) {
		t.Errorf("empty max: got %v", err)
	}
	gpus := resources.Requests{"nvidia.com/gpu": 8}
	if err := c.CheckUsage("u", "cpu-only", gpus, NoOversell); err != nil {
		t.Errorf("a resource max does not list is not limited: %v", err)
	}
}
