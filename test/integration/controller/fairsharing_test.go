//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// With fair sharing on, a queue's weighted share (its usage above nominal quota,
// per thousand of what the cohort can lend) is published in
// status.fairSharing.weightedShare and kueue_cluster_queue_weighted_share.
func TestWeightedSharePublished(t *testing.T) {
	create(t, makeFlavor("default"), &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "fs-cohort"}})
	for _, name := range []string{"fs-a", "fs-b"} {
		create(t, makeNS(name, map[string]string{"team": name}),
			makeCQ(name).cohort("fs-cohort").selector("team", name).flavor("default", quota("cpu", "2", "", "")).obj(),
			makeLQ(name, "q", name))
	}
	mgr := startManager(t, func(cfg *configapi.Configuration) {
		cfg.FairSharing = &configapi.FairSharing{PreemptionStrategies: []configapi.PreemptionStrategy{
			configapi.LessThanOrEqualToFinalShare, configapi.LessThanInitialShare}}
	})
	for i := range 3 {
		create(t, makeWL("fs-a", fmt.Sprintf("w%d", i), "q", "cpu", "1"))
	}
	waitAdmitted(t, "fs-a", "w0", "w1", "w2")
	eventually(t, 10*time.Second, func() string {
		shares := map[string]int64{}
		for _, name := range []string{"fs-a", "fs-b"} {
			cq := &kueue.ClusterQueue{}
			if err := env.Client.Get(context.Background(), keyOf("", name), cq); err != nil {
				return err.Error()
			}
			if cq.Status.FairSharing == nil {
				return name + " has no status.fairSharing"
			}
			shares[name] = cq.Status.FairSharing.WeightedShare
			v, ok := sample(mgr.scrape(t), "kueue_cluster_queue_weighted_share", map[string]string{"cluster_queue": name})
			if !ok || int64(v) != shares[name] {
				return fmt.Sprintf("kueue_cluster_queue_weighted_share{%s} = %v (found %v), status says %d", name, v, ok, shares[name])
			}
		}
		if shares["fs-a"] <= 0 || shares["fs-b"] != 0 {
			return fmt.Sprintf("weighted shares %v: want fs-a (borrowing) > 0 and fs-b (idle) = 0", shares)
		}
		co := &kueue.Cohort{}
		if err := env.Client.Get(context.Background(), keyOf("", "fs-cohort"), co); err != nil {
			return err.Error()
		}
		if co.Status.FairSharing == nil {
			return "cohort has no status.fairSharing"
		}
		return ""
	})
}
