package kubecluster

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AddNode creates a node for KWOK to play (annotated FakeNodeAnnotation=fake,
// with its capacity in its status, which a node's create keeps) and removes
// the not-ready taint the API server gives every new node: no node lifecycle
// controller runs to remove it once KWOK marks the node Ready. Other taints
// stay.
func AddNode(ctx context.Context, c client.Client, node client.Object) error {
	if err := c.Create(ctx, node); err != nil {
		return fmt.Errorf("creating node %s: %w", node.GetName(), err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var n corev1.Node
		if err := c.Get(ctx, client.ObjectKey{Name: node.GetName()}, &n); err != nil {
			return err
		}
		kept := slices.DeleteFunc(slices.Clone(n.Spec.Taints), func(t corev1.Taint) bool {
			return t.Key == corev1.TaintNodeNotReady
		})
		if len(kept) == len(n.Spec.Taints) {
			return nil
		}
		n.Spec.Taints = kept
		return c.Update(ctx, &n)
	})
	if err != nil {
		return fmt.Errorf("removing the not-ready taint of node %s: %w", node.GetName(), err)
	}
	return nil
}
