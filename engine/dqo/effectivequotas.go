package dqo

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"

	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// Identity of a DynamicQuotaOrchestrator in status.effectiveQuotas.orchestratorRef.
const (
	OrchestratorAPIGroup = "kueue.x-k8s.io"
	OrchestratorKind     = "DynamicQuotaOrchestrator"
)

// OrchestratorRef returns the orchestratorRef that names the DynamicQuotaOrchestrator
// called name (000: "When DQO writes the field, orchestratorRef names the
// DynamicQuotaOrchestrator.").
func OrchestratorRef(name string) v1beta2.OrchestratorReference {
	return v1beta2.OrchestratorReference{APIGroup: OrchestratorAPIGroup, Kind: OrchestratorKind, Name: name}
}

// isOrchestrator reports whether ref names some DynamicQuotaOrchestrator, and which.
func isOrchestrator(ref v1beta2.OrchestratorReference) (string, bool) {
	if ref.APIGroup == OrchestratorAPIGroup && ref.Kind == OrchestratorKind {
		return ref.Name, true
	}
	return "", false
}

// NeedsWrite reports whether a controller must write desired to an object whose
// status.effectiveQuotas is current (nil when unset). It compares semantically and
// ignores lastUpdateTime, so that a reconcile that computes the same quotas writes
// nothing, and lastUpdateTime moves only when the quotas do.
func NeedsWrite(current *v1beta2.EffectiveQuotas, desired v1beta2.EffectiveQuotas) bool {
	return !EffectiveQuotasEqual(current, &desired)
}

// EffectiveQuotasEqual compares two effective quotas semantically: the same
// orchestratorRef and the same resource groups in the same order, quantities equal by
// value ("1000m" equals "1", "1Gi" equals "1073741824"). lastUpdateTime is ignored. A
// nil and an empty list of resource groups are equal: both mean "no quota", and an
// empty list does not survive a round trip through the API server as non-nil.
func EffectiveQuotasEqual(a, b *v1beta2.EffectiveQuotas) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.OrchestratorRef != b.OrchestratorRef || len(a.ResourceGroups) != len(b.ResourceGroups) {
		return false
	}
	for i := range a.ResourceGroups {
		if !resourceGroupEqual(&a.ResourceGroups[i], &b.ResourceGroups[i]) {
			return false
		}
	}
	return true
}

func resourceGroupEqual(a, b *v1beta2.ResourceGroup) bool {
	if !slices.Equal(a.CoveredResources, b.CoveredResources) || len(a.Flavors) != len(b.Flavors) {
		return false
	}
	for i := range a.Flavors {
		fa, fb := &a.Flavors[i], &b.Flavors[i]
		if fa.Name != fb.Name || len(fa.Resources) != len(fb.Resources) {
			return false
		}
		for j := range fa.Resources {
			ra, rb := &fa.Resources[j], &fb.Resources[j]
			if ra.Name != rb.Name || ra.NominalQuota.Cmp(rb.NominalQuota) != 0 ||
				!optionalQuantityEqual(ra.BorrowingLimit, rb.BorrowingLimit) ||
				!optionalQuantityEqual(ra.LendingLimit, rb.LendingLimit) {
				return false
			}
		}
	}
	return true
}

func optionalQuantityEqual(a, b *resource.Quantity) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Cmp(*b) == 0
}
