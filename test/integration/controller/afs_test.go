//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// afsConfig turns admission fair sharing on with a one-second sampling
// interval and a ten-second half-life: usage moves a fifteenth of the way to
// what is in use at each sample (Kueue's moving average).
func afsConfig(cfg *configapi.Configuration) {
	cfg.AdmissionFairSharing = &configapi.AdmissionFairSharing{
		UsageHalfLifeTime:     metav1.Duration{Duration: 10 * time.Second},
		UsageSamplingInterval: metav1.Duration{Duration: time.Second},
	}
}

// consumedCPU reads a LocalQueue's status.fairSharing.admissionFairSharingStatus.
func consumedCPU(t *testing.T, ns, name string) (milli int64, at time.Time, ok bool) {
	t.Helper()
	lq := &kueue.LocalQueue{}
	if err := env.Client.Get(context.Background(), keyOf(ns, name), lq); err != nil {
		t.Fatalf("reading LocalQueue %s/%s: %v", ns, name, err)
	}
	if lq.Status.FairSharing == nil || lq.Status.FairSharing.AdmissionFairSharingStatus == nil {
		return 0, time.Time{}, false
	}
	s := lq.Status.FairSharing.AdmissionFairSharingStatus
	q := s.ConsumedResources[corev1.ResourceCPU]
	return q.MilliValue(), s.LastUpdate.Time, true
}

// Kueue (fair_sharing_test.go, "Restarting the manager", "should retain the
// LocalQueue's historical usage across a restart"): the manager writes each
// LocalQueue's decayed usage to status.fairSharing.admissionFairSharingStatus,
// sampling on a quiet cluster too, and a restarted manager starts from it
// rather than from zero.
func TestAdmissionFairSharingUsageSurvivesRestart(t *testing.T) {
	ns := "afs-restart"
	cq := makeCQ(ns).selector("team", ns).flavor("default", quota("cpu", "4", "", "")).obj()
	cq.Spec.AdmissionScope = &kueue.AdmissionScope{AdmissionMode: kueue.UsageBasedAdmissionFairSharing}
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}), cq, makeLQ(ns, "q", ns))
	first := startManager(t, afsConfig)
	create(t, makeWL(ns, "w0", "q", "cpu", "2"))
	waitAdmitted(t, ns, "w0")
	// The usage grows with each sample while w0 runs, with no other event.
	eventually(t, 20*time.Second, func() string {
		v, _, ok := consumedCPU(t, ns, "q")
		if !ok || v < 500 {
			return fmt.Sprintf("consumed cpu %dm (status written: %v), want at least 500m", v, ok)
		}
		return ""
	})
	// Kueue's kueue_local_queue_admission_fair_sharing_usage: the same usage,
	// weighted, over the LocalQueue's weight (1).
	eventually(t, 10*time.Second, func() string {
		v, ok := sample(first.scrape(t), "kueue_local_queue_admission_fair_sharing_usage",
			map[string]string{"name": "q", "namespace": ns, "cluster_queue": cq.Name, "replica_role": "standalone"})
		if !ok || v < 0.5 {
			return fmt.Sprintf("kueue_local_queue_admission_fair_sharing_usage = %v (found %v), want at least 0.5", v, ok)
		}
		return ""
	})
	finish(t, getWL(t, ns, "w0"))
	first.stop()
	before, stoppedAt, _ := consumedCPU(t, ns, "q")

	startManager(t, afsConfig)
	// The new manager samples (w0 is finished: nothing in use) and writes a
	// newer status; seeded from the old one, it is what it was, decayed by
	// the samples since (Kueue's test asks for more than 70%; from zero it
	// would stay 0).
	eventually(t, 20*time.Second, func() string {
		v, at, ok := consumedCPU(t, ns, "q")
		if !ok || !at.After(stoppedAt) {
			return fmt.Sprintf("no status written since the restart (last update %v, stopped at %v)", at, stoppedAt)
		}
		if v <= before*7/10 {
			return fmt.Sprintf("consumed cpu after the restart %dm, want more than 70%% of %dm", v, before)
		}
		return ""
	})
}
