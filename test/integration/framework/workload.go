//go:build integration

package framework

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// WorkloadAdmitted returns a check for Eventually: nil once the Workload has
// an admission and Admitted=True.
func WorkloadAdmitted(ctx context.Context, c client.Client, key client.ObjectKey) func() error {
	return func() error {
		got := &kueue.Workload{}
		if err := c.Get(ctx, key, got); err != nil {
			return err
		}
		if got.Status.Admission == nil || !meta.IsStatusConditionTrue(got.Status.Conditions, kueue.WorkloadAdmitted) {
			return fmt.Errorf("workload %s not admitted; conditions %v", key, got.Status.Conditions)
		}
		return nil
	}
}
