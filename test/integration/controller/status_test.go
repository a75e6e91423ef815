//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Queue status says why a queue cannot admit: a ClusterQueue naming a missing
// flavor is Active=False FlavorNotFound until the flavor exists; a LocalQueue
// pointing at a missing ClusterQueue is Active=False ClusterQueueDoesNotExist.
func TestQueueActiveConditions(t *testing.T) {
	create(t, makeNS("status", map[string]string{"team": "status"}),
		makeCQ("status-cq").flavor("status-missing", quota("cpu", "1", "", "")).obj(),
		makeLQ("status", "to-cq", "status-cq"),
		makeLQ("status", "dangling", "status-no-such-cq"))
	startManager(t, nil)
	activeIs := func(get func() ([]metav1.Condition, error), status metav1.ConditionStatus, reason string) func() string {
		return func() string {
			conds, err := get()
			if err != nil {
				return err.Error()
			}
			c := meta.FindStatusCondition(conds, kueue.ClusterQueueActive)
			if c == nil || c.Status != status || c.Reason != reason {
				return fmt.Sprintf("Active = %+v, want %s/%s", c, status, reason)
			}
			return ""
		}
	}
	cqConds := func() ([]metav1.Condition, error) {
		cq := &kueue.ClusterQueue{}
		err := env.Client.Get(context.Background(), keyOf("", "status-cq"), cq)
		return cq.Status.Conditions, err
	}
	lqConds := func(name string) func() ([]metav1.Condition, error) {
		return func() ([]metav1.Condition, error) {
			lq := &kueue.LocalQueue{}
			err := env.Client.Get(context.Background(), keyOf("status", name), lq)
			return lq.Status.Conditions, err
		}
	}
	eventually(t, 10*time.Second, activeIs(cqConds, metav1.ConditionFalse, kueue.ClusterQueueActiveReasonFlavorNotFound))
	eventually(t, 10*time.Second, activeIs(lqConds("dangling"), metav1.ConditionFalse, "ClusterQueueDoesNotExist"))
	eventually(t, 10*time.Second, activeIs(lqConds("to-cq"), metav1.ConditionFalse, "ClusterQueueIsInactive"))

	create(t, makeFlavor("status-missing"))
	eventually(t, 10*time.Second, activeIs(cqConds, metav1.ConditionTrue, kueue.ClusterQueueActiveReasonReady))
	eventually(t, 10*time.Second, activeIs(lqConds("to-cq"), metav1.ConditionTrue, "Ready"))
}
