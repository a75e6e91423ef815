package flavorassigner

import (
	"testing"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go, TestIsPreferred.
// The ranking of two flavors' preemption modes and borrowing levels under the
// queue's flavorFungibility.preference ("" when unset: Kueue's default,
// BorrowingOverPreemption).
func TestKueueAssignFlavorsIsPreferred(t *testing.T) {
	cases := []struct {
		name string
		a, b granular
		pref kueue.FlavorFungibilityPreference
		want bool
	}{
		{name: "feature gate disabled prioritises preemption",
			a: granular{mode: modeFit}, b: granular{mode: modePreempt}, want: true},
		{name: "explicit BorrowingOverPreemption prioritises borrowing distance",
			a: granular{mode: modePreempt, borrow: 1}, b: granular{mode: modeFit, borrow: 2},
			pref: kueue.BorrowingOverPreemption, want: false},
		{name: "explicit PreemptionOverBorrowing prioritises lower preemption",
			a: granular{mode: modePreempt, borrow: 1}, b: granular{mode: modeFit, borrow: 2},
			pref: kueue.PreemptionOverBorrowing, want: true},
		{name: "explicit PreemptionOverBorrowing breaks borrowing ties with preemption",
			a: granular{mode: modePreempt, borrow: 1}, b: granular{mode: modeFit, borrow: 1},
			pref: kueue.PreemptionOverBorrowing, want: false},
		{name: "explicit PreemptionOverBorrowing rejects no-candidate flavor before borrowing comparison",
			a: granular{mode: modeNoCandidates, borrow: 1}, b: granular{mode: modeFit, borrow: 2},
			pref: kueue.PreemptionOverBorrowing, want: false},
		{name: "explicit PreemptionOverBorrowing prefers fit over shallower-borrowing no-candidate flavor",
			a: granular{mode: modeFit, borrow: 2}, b: granular{mode: modeNoCandidates, borrow: 1},
			pref: kueue.PreemptionOverBorrowing, want: true},
		{name: "no-candidate flavor remains preferable to no-fit flavor",
			a: granular{mode: modeNoCandidates, borrow: 1}, b: granular{mode: modeNoFit}, want: true},
		{name: "no-fit flavor remains worse than no-candidate flavor",
			a: granular{mode: modeNoFit}, b: granular{mode: modeNoCandidates, borrow: 1}, want: false},
		{name: "no-candidate flavors retain borrowing preference",
			a: granular{mode: modeNoCandidates, borrow: 1}, b: granular{mode: modeNoCandidates, borrow: 2},
			pref: kueue.PreemptionOverBorrowing, want: true},
		{name: "no-candidate flavors retain borrowing preference in reverse",
			a: granular{mode: modeNoCandidates, borrow: 2}, b: granular{mode: modeNoCandidates, borrow: 1},
			pref: kueue.PreemptionOverBorrowing, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := preferred(tc.a, tc.b, tc.pref); got != tc.want {
				t.Errorf("preferred(%+v, %+v, %q) = %v, want %v", tc.a, tc.b, tc.pref, got, tc.want)
			}
		})
	}
}
