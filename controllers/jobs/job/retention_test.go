package job

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/controller/jobs/job/job_controller_test.go,
// "Job controller with ObjectRetentionPolicies" (jobframework's
// handleWorkloadAfterDeactivatedPolicy): with afterDeactivatedByKueue, a Job
// whose Workload the manager deactivated (Evicted=True, DeactivatedDueTo<cause>)
// is deleted that long after the eviction, with the event "Deleted job:
// deactivation retention period expired", and not before; a Job its user
// deactivated (reason Deactivated) is kept, and so is every Job without the
// policy.
func TestKueueJobDeletedAfterItsDeactivationRetention(t *testing.T) {
	t.Parallel()
	evictedAt := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		retention *time.Duration
		reason    string
		now       time.Time
		wantGone  bool
		wantAfter time.Duration
	}{
		{name: "deactivated by the manager, retention elapsed", retention: ptr.To(time.Minute),
			reason: "DeactivatedDueToMaximumExecutionTimeExceeded", now: evictedAt.Add(time.Minute), wantGone: true},
		{name: "deactivated by the manager, retention not elapsed", retention: ptr.To(time.Minute),
			reason: "DeactivatedDueToRequeuingLimitExceeded", now: evictedAt.Add(20 * time.Second), wantAfter: 40 * time.Second},
		{name: "deactivated by its user", retention: ptr.To(time.Minute),
			reason: kueue.WorkloadDeactivated, now: evictedAt.Add(time.Hour)},
		{name: "no policy", reason: "DeactivatedDueToMaximumExecutionTimeExceeded", now: evictedAt.Add(time.Hour)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, makeJob("train", "ns").queue("q").suspend(true).obj())
			h.settle() // the Workload is created
			wl := h.workload()
			wl.Spec.Active = ptr.To(false)
			if err := h.c.Update(context.Background(), wl); err != nil {
				t.Fatal(err)
			}
			h.writeWorkloadStatus(func(w *kueue.Workload) {
				meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue,
					Reason: tc.reason, Message: "deactivated", LastTransitionTime: metav1.NewTime(evictedAt)})
			})
			h.r.AfterDeactivatedByKueue, h.r.Now = tc.retention, func() time.Time { return tc.now }
			for len(h.events.Events) > 0 {
				<-h.events.Events // the Workload's creation
			}
			res, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key})
			if err != nil {
				t.Fatal(err)
			}
			err = h.c.Get(context.Background(), h.key, makeJob("train", "ns").obj())
			if gone := apierrors.IsNotFound(err); gone != tc.wantGone {
				t.Fatalf("job gone: %v (err %v), want %v", gone, err, tc.wantGone)
			}
			if res.RequeueAfter != tc.wantAfter {
				t.Errorf("requeue after %v, want %v", res.RequeueAfter, tc.wantAfter)
			}
			if tc.wantGone {
				select {
				case e := <-h.events.Events:
					if e != "Normal Deleted Deleted job: deactivation retention period expired" {
						t.Errorf("event %q, want Kueue's Deleted event", e)
					}
				default:
					t.Error("no Deleted event")
				}
			}
		})
	}
}
