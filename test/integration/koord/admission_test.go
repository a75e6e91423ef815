//go:build integration

package koord

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/koord"
	"quokka.dev/quokka/engine/elasticquota"
)

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T, name string) string {
	t.Helper()
	if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return name
}

// quota creates an ElasticQuota with max (and min = max) of cpu, under parent
// ("" for koordinator-root-quota), with extra labels and annotations.
func quota(t *testing.T, name, parent, maxCPU string, labels, annotations map[string]string) *koordv1alpha1.ElasticQuota {
	t.Helper()
	l := map[string]string{koordv1alpha1.ParentLabel: parent}
	for k, v := range labels {
		l[k] = v
	}
	eq := &koordv1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: l, Annotations: annotations},
		Spec: koordv1alpha1.ElasticQuotaSpec{
			Min: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(maxCPU)},
			Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(maxCPU)},
		},
	}
	if err := env.Client.Create(context.Background(), eq); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), eq) })
	return eq
}

// job is a batch/v1 Job with parallelism pods of cpu each, created suspended,
// labelled with the quota ("" for no label).
func job(ns, name, quotaName, cpu string, parallelism int32) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{}},
		Spec: batchv1.JobSpec{
			Suspend:     ptr.To(true),
			Parallelism: ptr.To(parallelism),
			Completions: ptr.To(parallelism),
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name: "main", Image: "busybox",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
					}},
				},
			},
		},
	}
	if quotaName != "" {
		j.Labels[koordv1alpha1.QuotaNameLabel] = quotaName
	}
	return j
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

func getUnit(t *testing.T, ns, name string) (*queuev1alpha1.QueueUnit, error) {
	t.Helper()
	u := &queuev1alpha1.QueueUnit{}
	err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, u)
	return u, err
}

func getJob(t *testing.T, ns, name string) *batchv1.Job {
	t.Helper()
	j := &batchv1.Job{}
	if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, j); err != nil {
		t.Fatal(err)
	}
	return j
}

// waitPhase waits until the unit reaches phase.
func waitPhase(t *testing.T, ns, name string, phase queuev1alpha1.QueueUnitPhase) *queuev1alpha1.QueueUnit {
	t.Helper()
	var u *queuev1alpha1.QueueUnit
	eventually(t, fmt.Sprintf("QueueUnit %s/%s in phase %s", ns, name, phase), func() (bool, error) {
		var err error
		u, err = getUnit(t, ns, name)
		if err != nil {
			return false, err
		}
		return u.Status.Phase == phase, fmt.Errorf("phase %q, message %q", u.Status.Phase, u.Status.Message)
	})
	return u
}

// stays checks that cond holds for a while (the loop resyncs every second).
func stays(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if err := cond(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// events lists the events recorded on an object of kind kind.
func events(t *testing.T, ns, kind, name string) []corev1.Event {
	t.Helper()
	var list corev1.EventList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func eventsWithReason(t *testing.T, ns, kind, name, reason string) []corev1.Event {
	var out []corev1.Event
	for _, e := range events(t, ns, kind, name) {
		if e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// finishJob writes what the Job controller writes when every pod succeeded.
func finishJob(t *testing.T, ns, name string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		j := getJob(t, ns, name)
		now := metav1.Now()
		if j.Status.StartTime == nil {
			start := metav1.NewTime(now.Add(-time.Minute))
			j.Status.StartTime = &start
		}
		j.Status.Active, j.Status.Ready = 0, ptr.To[int32](0)
		j.Status.CompletionTime = &now
		j.Status.Succeeded = *j.Spec.Completions
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now},
		}
		return env.Client.Status().Update(context.Background(), j)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setRunning writes what the Job controller writes when ready pods run.
func setRunning(t *testing.T, ns, name string, ready int32) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		j := getJob(t, ns, name)
		now := metav1.Now()
		j.Status.StartTime = &now
		j.Status.Active = *j.Spec.Parallelism
		j.Status.Ready = ptr.To(ready)
		return env.Client.Status().Update(context.Background(), j)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// 004's example: the Job `training-job` labelled with team-a is queued through a
// QueueUnit and started when team-a has room.
func TestSpecTrainingJobIsAdmittedAndResumed(t *testing.T) {
	ns := newNamespace(t, "koord-training")
	quota(t, "t1-team-a", "", "8", map[string]string{queuev1alpha1.QueuePolicyLabel: "Priority"}, nil)
	j := job(ns, "training-job", "t1-team-a", "2", 2)
	j.Annotations = map[string]string{"team": "research"}
	create(t, j)

	u := waitPhase(t, ns, "training-job", queuev1alpha1.Dequeued)
	// 004: "The job extension copies the labels and annotations of a job onto
	// the QueueUnit that it creates for it".
	if u.Labels[koordv1alpha1.QuotaNameLabel] != "t1-team-a" || u.Annotations["team"] != "research" {
		t.Errorf("labels %v, annotations %v: not copied from the Job", u.Labels, u.Annotations)
	}
	// 004: "The spec.queue field of a QueueUnit that was created by a job
	// extension is left empty".
	if u.Spec.Queue != "" {
		t.Errorf("spec.queue = %q, want empty", u.Spec.Queue)
	}
	if ref := u.Spec.ConsumerRef; ref == nil || ref.Kind != "Job" || ref.Name != "training-job" || ref.Namespace != ns {
		t.Errorf("consumerRef = %+v", ref)
	}
	if owner := metav1.GetControllerOf(u); owner == nil || owner.Kind != "Job" || owner.Name != "training-job" {
		t.Errorf("owner = %+v, want the Job", owner)
	}
	// parallelism × pod request.
	if got := u.Spec.Resource[corev1.ResourceCPU]; got.Cmp(resource.MustParse("4")) != 0 {
		t.Errorf("spec.resource cpu = %s, want 4 (2 pods × 2)", got.String())
	}
	if u.Status.Message != koord.MessageDequeued || u.Status.LastAllocateTime == nil ||
		len(u.Status.Admissions) != 1 || u.Status.Admissions[0].Replicas != 2 {
		t.Errorf("status = %+v, want Koord-Queue's dequeue record", u.Status)
	}
	// The recorder writes events asynchronously, after the status write that
	// waitPhase saw: wait for the event, then require exactly one.
	eventually(t, "Scheduled event recorded", func() (bool, error) {
		n := len(eventsWithReason(t, ns, "QueueUnit", "training-job", koord.EventScheduled))
		return n == 1, fmt.Errorf("%d Scheduled events, want one: %v", n, events(t, ns, "QueueUnit", "training-job"))
	})
	eventually(t, "Job resumed", func() (bool, error) {
		got := getJob(t, ns, "training-job")
		return !*got.Spec.Suspend && got.Annotations[elasticquota.DequeueTimestampAnnotation] != "" &&
			got.Annotations[elasticquota.EnqueuedAnnotation] == "true", nil
	})
	eventually(t, "usage published on the Queue", func() (bool, error) {
		q := &queuev1alpha1.Queue{}
		err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: queuev1alpha1.DefaultQueueNamespace, Name: "t1-team-a"}, q)
		return err == nil && q.Annotations[koord.QueueUsedAnnotation] == `{"cpu":4000}`, fmt.Errorf("annotations %v (%v)", q.Annotations, err)
	})

	// Pods running: Running; Job complete: Succeed, and the quota is free.
	setRunning(t, ns, "training-job", 2)
	waitPhase(t, ns, "training-job", queuev1alpha1.Running)
	finishJob(t, ns, "training-job")
	waitPhase(t, ns, "training-job", queuev1alpha1.Succeed)
	eventually(t, "usage released", func() (bool, error) {
		q := &queuev1alpha1.Queue{}
		err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: queuev1alpha1.DefaultQueueNamespace, Name: "t1-team-a"}, q)
		return err == nil && q.Annotations[koord.QueueUsedAnnotation] == `{}`, fmt.Errorf("annotations %v (%v)", q.Annotations, err)
	})

	// Job deleted: its QueueUnit goes, without a garbage collector.
	if err := env.Client.Delete(context.Background(), getJob(t, ns, "training-job")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "QueueUnit deleted with its Job", func() (bool, error) {
		_, err := getUnit(t, ns, "training-job")
		return apierrors.IsNotFound(err), err
	})
}

// 004: "Because every level of the chain is evaluated, a job can be held in the
// queue by an ancestor quota even when its own quota still has capacity."
func TestAncestorHoldsJobUntilItsJobFinishes(t *testing.T) {
	ns := newNamespace(t, "koord-ancestor")
	quota(t, "t2-org", "", "4", nil, nil)
	quota(t, "t2-team-a", "t2-org", "4", nil, nil)
	quota(t, "t2-team-b", "t2-org", "4", nil, nil)
	create(t, job(ns, "a1", "t2-team-a", "3", 1))
	waitPhase(t, ns, "a1", queuev1alpha1.Dequeued)
	create(t, job(ns, "b1", "t2-team-b", "2", 1))
	eventually(t, "b1 refused by t2-org", func() (bool, error) {
		u, err := getUnit(t, ns, "b1")
		if err != nil {
			return false, err
		}
		return strings.Contains(u.Status.Message, "limited quotaName:t2-org") &&
			len(eventsWithReason(t, ns, "QueueUnit", "b1", koord.EventFailedScheduling)) == 1, fmt.Errorf("message %q", u.Status.Message)
	})
	if !*getJob(t, ns, "b1").Spec.Suspend {
		t.Fatal("b1 was resumed while t2-org is full")
	}
	finishJob(t, ns, "a1")
	waitPhase(t, ns, "b1", queuev1alpha1.Dequeued)
}

// 004: "A Warning event with the reason QueueNotFound is then recorded once on
// the unit ... and the mapping is retried until a matching ElasticQuota
// appears."
func TestQueueNotFoundOnceThenAdmittedWhenQuotaAppears(t *testing.T) {
	ns := newNamespace(t, "koord-notfound")
	create(t, job(ns, "early", "t3-later", "1", 1))
	eventually(t, "QueueNotFound recorded", func() (bool, error) {
		evs := eventsWithReason(t, ns, "QueueUnit", "early", elasticquota.QueueNotFoundReason)
		return len(evs) == 1 && evs[0].Message == "queue t3-later not found for queueUnit "+ns+"/early" && evs[0].Type == corev1.EventTypeWarning,
			fmt.Errorf("events %v", evs)
	})
	// Several resyncs later, still one event (count 1: not re-recorded).
	time.Sleep(3 * time.Second)
	if evs := eventsWithReason(t, ns, "QueueUnit", "early", elasticquota.QueueNotFoundReason); len(evs) != 1 || evs[0].Count > 1 {
		t.Fatalf("QueueNotFound events %+v, want one, recorded once", evs)
	}
	quota(t, "t3-later", "", "2", nil, nil)
	waitPhase(t, ns, "early", queuev1alpha1.Dequeued)
}

// 004: "The unit is never admitted and no event is recorded for it"; "A
// QueueUnit stays without a phase and without any event".
func TestUnlabelledSuspendedJobStaysSilent(t *testing.T) {
	ns := newNamespace(t, "koord-silent")
	create(t, job(ns, "nolabel", "", "1", 1))
	eventually(t, "QueueUnit created", func() (bool, error) {
		_, err := getUnit(t, ns, "nolabel")
		return err == nil, err
	})
	stays(t, "no phase, no event, still suspended", func() error {
		u, err := getUnit(t, ns, "nolabel")
		if err != nil {
			return err
		}
		if u.Status.Phase != "" || u.Status.Message != "" {
			return fmt.Errorf("status %+v", u.Status)
		}
		if evs := events(t, ns, "QueueUnit", "nolabel"); len(evs) != 0 {
			return fmt.Errorf("events %v", evs)
		}
		if !*getJob(t, ns, "nolabel").Spec.Suspend {
			return fmt.Errorf("job resumed")
		}
		return nil
	})
}

// A labelled Job created unsuspended runs unqueued (Koord-Queue's
// ManagedByQueue), and a Job naming a LocalQueue stays with Kueue; both are
// told why in a Warning event, and neither gets a QueueUnit.
func TestJobsNotQueuedByKoordAreToldWhy(t *testing.T) {
	ns := newNamespace(t, "koord-notqueued")
	quota(t, "t5-team", "", "4", nil, nil)
	running := job(ns, "running", "t5-team", "1", 1)
	running.Spec.Suspend = ptr.To(false)
	both := job(ns, "both", "t5-team", "1", 1)
	both.Labels[kueue.QueueNameLabel] = "some-localqueue"
	create(t, running, both)
	eventually(t, "warnings recorded", func() (bool, error) {
		return len(eventsWithReason(t, ns, "Job", "running", koord.EventNotQueued)) == 1 &&
			len(eventsWithReason(t, ns, "Job", "both", koord.EventQuotaLabelIgnored)) == 1, nil
	})
	for _, name := range []string{"running", "both"} {
		if _, err := getUnit(t, ns, name); !apierrors.IsNotFound(err) {
			t.Errorf("QueueUnit %s: %v, want none", name, err)
		}
	}
}

// Block: a unit that does not fit holds back the rest of its queue;
// Intelligent: a high-priority unit that does not fit holds the queue.
func TestBlockAndIntelligentPoliciesHoldTheirQueue(t *testing.T) {
	for _, tc := range []struct {
		policy   string
		priority int32
	}{{"Block", 0}, {"Intelligent", 10}} {
		t.Run(tc.policy, func(t *testing.T) {
			ns := newNamespace(t, "koord-"+strings.ToLower(tc.policy))
			q := "t6-" + strings.ToLower(tc.policy)
			quota(t, q, "", "4", map[string]string{queuev1alpha1.QueuePolicyLabel: tc.policy}, nil)
			create(t, job(ns, "first", q, "3", 1))
			waitPhase(t, ns, "first", queuev1alpha1.Dequeued)
			big := job(ns, "big", q, "2", 1)
			big.Spec.Template.Spec.Priority = ptr.To(tc.priority)
			create(t, big)
			eventually(t, "big refused", func() (bool, error) {
				u, err := getUnit(t, ns, "big")
				return err == nil && strings.Contains(u.Status.Message, "limited quotaName:"+q), err
			})
			small := job(ns, "small", q, "1", 1)
			create(t, small)
			stays(t, "small held behind big", func() error {
				u, err := getUnit(t, ns, "small")
				if err != nil {
					return nil // not created yet
				}
				if u.Status.Phase == queuev1alpha1.Dequeued {
					return fmt.Errorf("small admitted past a blocking unit (%s)", tc.policy)
				}
				return nil
			})
			finishJob(t, ns, "first")
			waitPhase(t, ns, "big", queuev1alpha1.Dequeued)
			waitPhase(t, ns, "small", queuev1alpha1.Dequeued)
		})
	}
}

// A restart in the middle: the new manager rebuilds usage from the units with
// admissions before it admits, so nothing is admitted twice and the quota is
// never exceeded.
func TestRestartAdmitsNothingTwice(t *testing.T) {
	ns := newNamespace(t, "koord-restart")
	quota(t, "t7-team", "", "4", nil, nil)
	create(t, job(ns, "held-1", "t7-team", "2", 1), job(ns, "held-2", "t7-team", "2", 1))
	waitPhase(t, ns, "held-1", queuev1alpha1.Dequeued)
	waitPhase(t, ns, "held-2", queuev1alpha1.Dequeued)
	// Events are recorded asynchronously: let the first manager's land before
	// it stops, so the check below counts the new manager's duplicates only.
	eventually(t, "Scheduled events recorded", func() (bool, error) {
		return len(eventsWithReason(t, ns, "QueueUnit", "held-1", koord.EventScheduled)) == 1 &&
			len(eventsWithReason(t, ns, "QueueUnit", "held-2", koord.EventScheduled)) == 1, nil
	})
	mgr.stop()
	// Created while no manager runs.
	create(t, job(ns, "late", "t7-team", "1", 1))
	var err error
	if mgr, err = startManager(defaultOptions); err != nil {
		t.Fatal(err)
	}
	eventually(t, "late queued by the new manager", func() (bool, error) {
		u, err := getUnit(t, ns, "late")
		return err == nil && u.Status.Phase == queuev1alpha1.Enqueued, err
	})
	stays(t, "late waits: the quota is full", func() error {
		u, err := getUnit(t, ns, "late")
		if err != nil {
			return err
		}
		if u.Status.Phase != queuev1alpha1.Enqueued {
			return fmt.Errorf("late is %s: admitted over a full quota after the restart", u.Status.Phase)
		}
		for _, n := range []string{"held-1", "held-2"} {
			if evs := eventsWithReason(t, ns, "QueueUnit", n, koord.EventScheduled); len(evs) != 1 || evs[0].Count > 1 {
				return fmt.Errorf("%s scheduled %d times", n, len(evs))
			}
		}
		return nil
	})
	finishJob(t, ns, "held-1")
	waitPhase(t, ns, "late", queuev1alpha1.Dequeued)
}

// --oversellrate scales every max: 4 cpu at 1.5 admit 6.
func TestOversellRate(t *testing.T) {
	rate, err := elasticquota.ParseOversellRate("1.5")
	if err != nil {
		t.Fatal(err)
	}
	restartManager(t, koord.Options{Resync: time.Second, OversellRate: rate})
	defer restartManager(t, defaultOptions)
	ns := newNamespace(t, "koord-oversell")
	quota(t, "t8-team", "", "4", nil, nil)
	create(t, job(ns, "six", "t8-team", "3", 2))
	waitPhase(t, ns, "six", queuev1alpha1.Dequeued)
}

// The annotations of 004's example ElasticQuota: "Enable preemption for a queue:
// Add the annotations koord-queue/wait-for-pods-running and
// koord-queue/enable-queueunit-preemption to the ElasticQuota."
var preemptionAnnotations = map[string]string{
	"koord-queue/wait-for-pods-running":       "true",
	"koord-queue/enable-queueunit-preemption": "true",
}

// wait-for-pods-running: the queue admits nothing new while an admitted unit's
// pods do not all run; once they run, the next unit is admitted.
func TestWaitForPodsRunningSerialisesAdmissions(t *testing.T) {
	ns := newNamespace(t, "koord-wait")
	quota(t, "t9-team", "", "8", nil, map[string]string{"koord-queue/wait-for-pods-running": "true"})
	create(t, job(ns, "first", "t9-team", "2", 1))
	waitPhase(t, ns, "first", queuev1alpha1.Dequeued)
	create(t, job(ns, "second", "t9-team", "2", 1))
	eventually(t, "second waits for first's pods", func() (bool, error) {
		u, err := getUnit(t, ns, "second")
		return err == nil && strings.Contains(u.Status.Message, "first"), fmt.Errorf("message %q (%v)", u.Status.Message, err)
	})
	stays(t, "second not admitted while first's pod does not run", func() error {
		if u, err := getUnit(t, ns, "second"); err == nil && u.Status.Phase != queuev1alpha1.Enqueued {
			return fmt.Errorf("second is %s", u.Status.Phase)
		}
		return nil
	})
	setRunning(t, ns, "first", 1)
	waitPhase(t, ns, "first", queuev1alpha1.Running)
	waitPhase(t, ns, "second", queuev1alpha1.Dequeued)
}

// Queue-level preemption: a high-priority unit that does not fit reclaims a
// lower-priority unit whose pods do not run yet. The victim gets reclaimState
// and a Warning event Preempted; the Job extension suspends its Job (nothing is
// left of it), records a Normal event Reclaimed and enqueues it again; then the
// preemptor is admitted and its Job resumed.
func TestPreemptionReclaimsAnAssumedUnit(t *testing.T) {
	ns := newNamespace(t, "koord-preempt")
	quota(t, "t10-team", "", "4", nil, preemptionAnnotations)
	low := job(ns, "low", "t10-team", "4", 1)
	low.Spec.Template.Spec.Priority = ptr.To[int32](1)
	create(t, low)
	waitPhase(t, ns, "low", queuev1alpha1.Dequeued)
	eventually(t, "low resumed", func() (bool, error) { return !*getJob(t, ns, "low").Spec.Suspend, nil })

	high := job(ns, "high", "t10-team", "4", 1)
	high.Spec.Template.Spec.Priority = ptr.To[int32](100)
	create(t, high)
	eventually(t, "low preempted", func() (bool, error) {
		return len(eventsWithReason(t, ns, "QueueUnit", "low", elasticquota.EventPreempted)) == 1, nil
	})
	eventually(t, "low reclaimed: suspended and enqueued again", func() (bool, error) {
		u, err := getUnit(t, ns, "low")
		if err != nil {
			return false, err
		}
		return *getJob(t, ns, "low").Spec.Suspend && u.Status.Phase == queuev1alpha1.Enqueued &&
			len(eventsWithReason(t, ns, "QueueUnit", "low", elasticquota.EventReclaimed)) == 1, fmt.Errorf("low %+v", u.Status)
	})
	waitPhase(t, ns, "high", queuev1alpha1.Dequeued)
	eventually(t, "high resumed", func() (bool, error) { return !*getJob(t, ns, "high").Spec.Suspend, nil })
	stays(t, "low waits while high holds the quota", func() error {
		if u, _ := getUnit(t, ns, "low"); u.Status.Phase != queuev1alpha1.Enqueued {
			return fmt.Errorf("low is %s", u.Status.Phase)
		}
		return nil
	})
}

// A running pod is never reclaimed: the same high-priority unit waits while
// the low-priority unit's pod runs.
func TestPreemptionNeverReclaimsARunningPod(t *testing.T) {
	ns := newNamespace(t, "koord-running")
	quota(t, "t11-team", "", "4", nil, preemptionAnnotations)
	low := job(ns, "low", "t11-team", "4", 1)
	low.Spec.Template.Spec.Priority = ptr.To[int32](1)
	create(t, low)
	waitPhase(t, ns, "low", queuev1alpha1.Dequeued)
	setRunning(t, ns, "low", 1)
	waitPhase(t, ns, "low", queuev1alpha1.Running)
	high := job(ns, "high", "t11-team", "4", 1)
	high.Spec.Template.Spec.Priority = ptr.To[int32](100)
	create(t, high)
	// The unit has no phase until the manager first sees it; wait for that
	// before checking that it stays queued.
	waitPhase(t, ns, "high", queuev1alpha1.Enqueued)
	stays(t, "low keeps running, high waits", func() error {
		if evs := eventsWithReason(t, ns, "QueueUnit", "low", elasticquota.EventPreempted); len(evs) > 0 {
			return fmt.Errorf("running low preempted: %v", evs)
		}
		if u, err := getUnit(t, ns, "high"); err == nil && u.Status.Phase != queuev1alpha1.Enqueued {
			return fmt.Errorf("high is %s", u.Status.Phase)
		}
		return nil
	})
}

// 004: an ancestor named by a parent label that does not exist surfaces as a
// FailedScheduling event whose message contains "CheckUsage found quota not
// exist, ..."; once the parent exists, the unit is admitted.
func TestMissingParentQuotaSurfacesAsFailedScheduling(t *testing.T) {
	ns := newNamespace(t, "koord-orphan")
	quota(t, "t12-child", "t12-parent", "4", nil, nil)
	create(t, job(ns, "orphan", "t12-child", "1", 1))
	eventually(t, "FailedScheduling with the spec's message", func() (bool, error) {
		evs := eventsWithReason(t, ns, "QueueUnit", "orphan", koord.EventFailedScheduling)
		return len(evs) == 1 && strings.Contains(evs[0].Message, "CheckUsage found quota not exist, item:"+ns+"/orphan, quotaName:t12-parent"),
			fmt.Errorf("events %v", evs)
	})
	quota(t, "t12-parent", "", "4", nil, nil)
	waitPhase(t, ns, "orphan", queuev1alpha1.Dequeued)
}
