package webhooks

import (
	"context"
	"strings"
	"testing"

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
