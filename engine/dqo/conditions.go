package dqo

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxListedItems bounds how many objects one condition message names. A subtree can
// hold thousands of ClusterQueues; a message that names the first few and counts the
// rest stays readable and far below the API's 32768-byte limit on messages.
const maxListedItems = 5

// condition builds a condition of the given type for an object at generation gen.
// LastTransitionTime is left zero on purpose (see the package comment).
func condition(typ string, status metav1.ConditionStatus, reason, message string, gen int64) metav1.Condition {
	return metav1.Condition{
		Type:               typ,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: gen,
	}
}

// joinLimited joins items with "; ", naming at most maxListedItems of them and
// counting the rest.
func joinLimited(items []string) string {
	if len(items) <= maxListedItems {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:maxListedItems], "; "), len(items)-maxListedItems)
}
