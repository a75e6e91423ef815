package webhooks

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// 002: "Fair sharing works with reclaimWithinCohort and withinClusterQueue, but
// borrowWithinCohort is classic-only"; a ClusterQueue that combines them is
// rejected while fair sharing is on, naming the field, and accepted otherwise.
func TestClusterQueueWebhookRejectsBorrowWithinCohortWithFairSharing(t *testing.T) {
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "research"},
		Spec: kueue.ClusterQueueSpec{
			CohortName: "ml-platform",
			Preemption: &kueue.ClusterQueuePreemption{
				ReclaimWithinCohort: kueue.PreemptionPolicyAny,
				BorrowWithinCohort:  &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicyLowerPriority},
			},
		},
	}
	decode := func(extra string) *configapi.Configuration {
		cfg, err := configapi.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + extra))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	ctx := context.Background()

	classic := &ClusterQueueWebhook{Config: decode("")}
	if _, err := classic.ValidateCreate(ctx, cq); err != nil {
		t.Errorf("classic preemption: %v, want accepted", err)
	}

	fair := &ClusterQueueWebhook{Config: decode("fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare]\n")}
	_, err := fair.ValidateCreate(ctx, cq)
	if err == nil || !strings.Contains(err.Error(), "spec.preemption.borrowWithinCohort.policy") {
		t.Errorf("fair sharing: got %v, want a rejection naming spec.preemption.borrowWithinCohort.policy", err)
	}
	if _, err := fair.ValidateUpdate(ctx, cq, cq); err == nil {
		t.Error("an update keeping borrowWithinCohort must be rejected too")
	}
	never := cq.DeepCopy()
	never.Spec.Preemption.BorrowWithinCohort.Policy = kueue.BorrowWithinCohortPolicyNever
	if _, err := fair.ValidateCreate(ctx, never); err != nil {
		t.Errorf("borrowWithinCohort Never with fair sharing: %v, want accepted", err)
	}
}

// Kueue: test/integration/singlecluster/webhook/core/clusterqueue_test.go
// (v0.17.0), the five "Validate ClusterQueue on creation" entries its webhook
// decides and Quokka's schema cannot: an unqualified resource name (in
// coveredResources and in a flavor's resources), and a namespaceSelector with
// an invalid label key (two entries) or an In expression without values.
func TestKueueClusterQueueWebhookNames(t *testing.T) {
	w := &ClusterQueueWebhook{Config: configapi.Default()}
	withResource := func(name corev1.ResourceName) *kueue.ClusterQueue {
		return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cluster-queue"}, Spec: kueue.ClusterQueueSpec{
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{name}, Flavors: []kueue.FlavorQuotas{{
				Name: "x86", Resources: []kueue.ResourceQuota{{Name: name, NominalQuota: resource.MustParse("5")}}}}}}}}
	}
	withSelector := func(sel *metav1.LabelSelector) *kueue.ClusterQueue {
		return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cluster-queue"}, Spec: kueue.ClusterQueueSpec{NamespaceSelector: sel}}
	}
	for _, tc := range []struct {
		name    string
		cq      *kueue.ClusterQueue
		refused string
	}{
		{"Should have qualified resource name", withResource("@cpu"), "spec.resourceGroups[0].coveredResources[0]"},
		{"Should forbid to create clusterQueue with invalid resource name", withResource("@cpu"), "spec.resourceGroups[0].flavors[0].resources[0].name"},
		{"Should forbid clusterQueue creation with unqualified labelSelector",
			withSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"nospecialchars^=@": "bar"}}), "spec.namespaceSelector.matchLabels"},
		{"Should forbid to create clusterQueue with namespaceSelector with invalid labels",
			withSelector(&metav1.LabelSelector{MatchLabels: map[string]string{"nospecialchars^=@": "bar"}}), "spec.namespaceSelector.matchLabels"},
		{"Should forbid to create clusterQueue with namespaceSelector with invalid expressions",
			withSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "key", Operator: "In"}}}), "spec.namespaceSelector.matchExpressions[0].values"},
		{"Should allow to create clusterQueue with extended resources with qualified names", withResource("example.com/gpu"), ""},
	} {
		_, err := w.ValidateCreate(context.Background(), tc.cq)
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%s: err = %v; want a refusal naming %s", tc.name, err, tc.refused)
		}
	}
}
