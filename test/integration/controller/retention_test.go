//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/controller/core/workload_controller_test.go,
// "Workload controller with resource retention": with
// objectRetentionPolicies.workloads.afterFinished, a finished Workload is
// deleted once that long has passed since it finished ("should delete the
// workload after retention period elapses"), and not before ("should not
// delete the workload before retention period elapses"), with Kueue's event
// "Deleted finished workload due to elapsed retention".
func TestKueueFinishedWorkloadsAreDeletedAfterTheirRetention(t *testing.T) {
	ns := "retention"
	cpuQueue(t, ns, "2")
	create(t, makeWL(ns, "wl-to-expire", "q", "cpu", "1"))
	startManager(t, func(c *configapi.Configuration) {
		c.ObjectRetentionPolicies = &configapi.ObjectRetentionPolicies{Workloads: &configapi.WorkloadRetentionPolicy{
			AfterFinished: &metav1.Duration{Duration: 3 * time.Second}}}
	})
	waitAdmitted(t, ns, "wl-to-expire")
	finished := time.Now()
	updateStatus(t, ns, "wl-to-expire", func(w *kueue.Workload) {
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadFinished,
			Status: metav1.ConditionTrue, Reason: "FinishedByTest", Message: "Finished for testing purposes"})
	})

	consistently(t, time.Second, func() string {
		if err := env.Client.Get(context.Background(), keyOf(ns, "wl-to-expire"), &kueue.Workload{}); err != nil {
			return fmt.Sprintf("the finished workload is gone before its retention: %v", err)
		}
		return ""
	})
	eventually(t, 20*time.Second, func() string {
		err := env.Client.Get(context.Background(), keyOf(ns, "wl-to-expire"), &kueue.Workload{})
		if !apierrors.IsNotFound(err) {
			return fmt.Sprintf("finished workload still there %v after it finished (err %v)", time.Since(finished), err)
		}
		return ""
	})
	if gone := time.Since(finished); gone < 2*time.Second {
		t.Errorf("deleted %v after it finished, want about 3 s (the retention, to the second)", gone)
	}
	waitForEvent(t, ns, "wl-to-expire", corev1.EventTypeNormal, "Deleted", "Deleted finished workload due to elapsed retention")
}
