package scheduler

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Maps are never iterated where order shows in the output; these helpers give
// the stable orders the cycle and the views use.

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func compareKeys(a, b types.NamespacedName) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func sortedLQKeys[V any](m map[types.NamespacedName]V) []types.NamespacedName {
	out := make([]types.NamespacedName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compareKeys)
	return out
}

// sortedRecords returns records in queue order (priority, creation, UID, name).
func sortedRecords(m map[types.NamespacedName]*record) []*record {
	out := make([]*record, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, compareQueueOrder)
	return out
}
