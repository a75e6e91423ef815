package webhooks

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/internal/scheme"
)

func reader(objs ...client.Object) client.Reader {
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
}

func labelledJob(queue string, suspend bool) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "research", UID: "u1", Labels: map[string]string{}}}
	if queue != "" {
		j.Labels[kueue.QueueNameLabel] = queue
	}
	j.Spec.Suspend = ptr.To(suspend)
	return j
}

func TestDefaultSuspendsOnlyManagedJobs(t *testing.T) {
	t.Parallel()
	w := &JobWebhook{Client: reader()}
	managed := labelledJob("research-gpu", false)
	plain := labelledJob("", false)
	for _, j := range []*batchv1.Job{managed, plain} {
		if err := w.Default(context.Background(), j); err != nil {
			t.Fatal(err)
		}
	}
	if !*managed.Spec.Suspend || *plain.Spec.Suspend {
		t.Errorf("suspend: managed %v, plain %v; want true, false", *managed.Spec.Suspend, *plain.Spec.Suspend)
	}
}

func TestQueueLabelChangeRejectedWhileAdmitted(t *testing.T) {
	t.Parallel()
	old := labelledJob("a", true)
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: job.WorkloadName(old.Name, old.UID), Namespace: old.Namespace},
		Status:     kueue.WorkloadStatus{Admission: &kueue.Admission{ClusterQueue: "research"}},
	}
	lqB := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "research"}}
	for _, tc := range []struct {
		name    string
		old     *batchv1.Job
		objs    []client.Object
		wantErr bool
	}{
		{"suspended and pending", old, []client.Object{lqB}, false},
		{"quota reserved", old, []client.Object{lqB, wl}, true},
		{"running", labelledJob("a", false), []client.Object{lqB}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated := tc.old.DeepCopy()
			updated.Labels[kueue.QueueNameLabel] = "b"
			warnings, err := (&JobWebhook{Client: reader(tc.objs...)}).ValidateUpdate(context.Background(), tc.old, updated)
			if tc.wantErr != (err != nil) {
				t.Fatalf("err = %v; want error %v", err, tc.wantErr)
			}
			if err != nil && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), kueue.QueueNameLabel)) {
				t.Errorf("err = %v; want Invalid naming the label", err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings = %v; want none (queue b exists)", warnings)
			}
		})
	}
}

func TestMissingLocalQueueWarns(t *testing.T) {
	t.Parallel()
	w := &JobWebhook{Client: reader()}
	warnings, err := w.ValidateCreate(context.Background(), labelledJob("nowhere", true))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], `LocalQueue "nowhere"`) {
		t.Errorf("warnings %v, err %v; want one warning naming the queue", warnings, err)
	}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "research"}, Spec: kueue.WorkloadSpec{QueueName: "nowhere"}}
	warnings, err = (&WorkloadWebhook{Client: reader()}).ValidateCreate(context.Background(), wl)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "spec.queueName") {
		t.Errorf("workload warnings %v, err %v; want one warning on spec.queueName", warnings, err)
	}
}

func TestLocalQueueToMissingClusterQueueWarns(t *testing.T) {
	t.Parallel()
	lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "research"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "research"}}
	warnings, err := (&LocalQueueWebhook{Client: reader()}).ValidateCreate(context.Background(), lq)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], `ClusterQueue "research" does not exist`) {
		t.Errorf("warnings %v, err %v; want one about the missing ClusterQueue", warnings, err)
	}
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "research"}}
	warnings, _ = (&LocalQueueWebhook{Client: reader(cq)}).ValidateCreate(context.Background(), lq)
	if len(warnings) != 0 {
		t.Errorf("warnings %v with the ClusterQueue present; want none", warnings)
	}
}

// Kueue: pkg/controller/jobframework/validation.go, validateCreateForMaxExecTime
// and validateUpdateForMaxExecTime (the Job webhook's tests "invalid maximum
// execution time" and "immutable maximum execution time"): the label must be a
// positive integer, and may change only while the Job stays suspended.
func TestKueueMaxExecTimeLabelValidation(t *testing.T) {
	t.Parallel()
	withLabel := func(suspend bool, v string) *batchv1.Job {
		j := labelledJob("a", suspend)
		if v != "" {
			j.Labels[kueue.MaxExecTimeSecondsLabel] = v
		}
		return j
	}
	w := &JobWebhook{Client: reader(&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "research"}})}
	for _, tc := range []struct {
		name    string
		job     *batchv1.Job
		wantErr string
	}{
		{"positive", withLabel(true, "10"), ""},
		{"zero", withLabel(true, "0"), "should be greater than 0"},
		{"negative", withLabel(true, "-10"), "should be greater than 0"},
		{"not a number", withLabel(true, "ten"), "whole number"},
		{"unmanaged Job: not Quokka's to judge", func() *batchv1.Job {
			j := labelledJob("", false)
			j.Labels[kueue.MaxExecTimeSecondsLabel] = "ten"
			return j
		}(), ""},
	} {
		t.Run("create "+tc.name, func(t *testing.T) {
			_, err := w.ValidateCreate(context.Background(), tc.job)
			checkInvalid(t, err, tc.wantErr)
		})
	}
	for _, tc := range []struct {
		name     string
		old, new *batchv1.Job
		wantErr  string
	}{
		{"changed while suspended", withLabel(true, "10"), withLabel(true, "20"), ""},
		{"changed while running", withLabel(false, "10"), withLabel(false, "20"), "field is immutable"},
		{"added while running", withLabel(false, ""), withLabel(false, "20"), "field is immutable"},
		{"changed as the Job is unsuspended", withLabel(true, "10"), withLabel(false, "20"), "field is immutable"},
		{"unchanged while running", withLabel(false, "10"), withLabel(false, "10"), ""},
	} {
		t.Run("update "+tc.name, func(t *testing.T) {
			_, err := w.ValidateUpdate(context.Background(), tc.old, tc.new)
			checkInvalid(t, err, tc.wantErr)
		})
	}
}

// checkInvalid: no error when want is "", else an Invalid error naming the
// label and saying want.
func checkInvalid(t *testing.T, err error, want string) {
	t.Helper()
	checkInvalidField(t, err, kueue.MaxExecTimeSecondsLabel, want)
}

// checkInvalidField fails unless err is an Invalid error naming field with
// the message want, or err is nil when want is "".
func checkInvalidField(t *testing.T, err error, field, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), field) ||
		!strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want Invalid naming %s: %q", err, field, want)
	}
}
