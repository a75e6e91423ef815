package webhooks

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/webhook/core/cohort_test.go (v0.17.0),
// the two "Validate Cohort on creation" entries its Cohort webhook decides and
// a schema cannot: "Should allow valid resource name" (which, despite its name,
// expects "@cpu" with a quota to be refused) and "Should reject resource with
// invalid name" ("@cpu" without one); and "Should allow extended resources with
// valid name", which the webhook must let through.
func TestKueueCohortWebhookNames(t *testing.T) {
	cohort := func(name corev1.ResourceName, quota string) *kueue.Cohort {
		rq := kueue.ResourceQuota{Name: name}
		if quota != "" {
			rq.NominalQuota = resource.MustParse(quota)
		}
		return &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "cohort"}, Spec: kueue.CohortSpec{
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{name},
				Flavors: []kueue.FlavorQuotas{{Name: "x86", Resources: []kueue.ResourceQuota{rq}}}}}}}
	}
	w := &CohortWebhook{}
	for _, tc := range []struct {
		name    string
		cohort  *kueue.Cohort
		refused []string
	}{
		{"Should allow valid resource name", cohort("@cpu", "5"),
			[]string{"spec.resourceGroups[0].coveredResources[0]", "spec.resourceGroups[0].flavors[0].resources[0].name"}},
		{"Should reject resource with invalid name", cohort("@cpu", ""),
			[]string{"spec.resourceGroups[0].flavors[0].resources[0].name"}},
		{"Should allow extended resources with valid name", cohort("example.com/gpu", ""), nil},
	} {
		for _, validate := range []func() error{
			func() error { _, err := w.ValidateCreate(context.Background(), tc.cohort); return err },
			func() error { _, err := w.ValidateUpdate(context.Background(), tc.cohort, tc.cohort); return err },
		} {
			err := validate()
			if len(tc.refused) == 0 {
				if err != nil {
					t.Errorf("%s: refused: %v", tc.name, err)
				}
				continue
			}
			for _, field := range tc.refused {
				if err == nil || !strings.Contains(err.Error(), field) {
					t.Errorf("%s: err = %v; want a refusal naming %s", tc.name, err, field)
				}
			}
		}
	}
}
