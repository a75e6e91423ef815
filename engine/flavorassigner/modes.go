package flavorassigner

import (
	"math"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// Possibility is what preemption could do for one cell of a flavor, as the
// preemption oracle answers (Kueue's PreemptionPossibility).
type Possibility int

const (
	// NoCandidates: preemption would find no set of victims that makes the
	// request fit.
	NoCandidates Possibility = iota
	// PreemptInQueue: victims exist and some are the queue's own workloads.
	PreemptInQueue
	// Reclaim: victims exist, all of them in other queues (reclaiming quota
	// they borrow).
	Reclaim
)

// Oracle tells the assigner, for a cell where the request would fit only if
// quota now in use were freed, whether preemption would find victims, and how
// far up the Cohort tree the request would still borrow once they were gone
// (Kueue's preemption oracle, which the flavor assigner consults per flavor).
// Package preemption implements it; it must leave the cache as it found it.
type Oracle interface {
	SimulatePreemption(q *quota.ClusterQueue, fr resources.FlavorResource, quantity int64) (Possibility, int)
}

// preemptionMode ranks how a flavor can take a request, worst first (Kueue's
// granular preemption modes).
type preemptionMode int

const (
	// modeNoFit: the request can never fit, or needs preemption that the
	// queue may not attempt for it.
	modeNoFit preemptionMode = iota
	// modeNoCandidates: it would fit if quota in use were freed, but
	// preemption finds no victims: the workload waits.
	modeNoCandidates
	// modePreempt: preemption finds victims, some in the queue itself.
	modePreempt
	// modeReclaim: preemption finds victims, all in queues that borrow.
	modeReclaim
	// modeFit: it fits now.
	modeFit
)

// granular is a flavor's (or a cell's) preemption mode and borrowing level:
// how far up the Cohort tree the request borrows (0: within the queue's own
// nominal quota).
type granular struct {
	mode   preemptionMode
	borrow int
}

func worstGranular() granular { return granular{mode: modeNoFit, borrow: math.MaxInt} }
func bestGranular() granular  { return granular{mode: modeFit} }

// preferred tells whether a is a better choice than b under the queue's
// flavorFungibility.preference (Kueue's isPreferred). NoFit is never
// preferred; a flavor whose preemption finds no victims ranks below any other
// flavor that can take the request. BorrowingOverPreemption (the default)
// compares the preemption mode first (fit, reclaim, preemption within the
// queue), then the borrowing level; PreemptionOverBorrowing the other way
// round.
func preferred(a, b granular, pref kueue.FlavorFungibilityPreference) bool {
	if a.mode == modeNoFit {
		return false
	}
	if b.mode == modeNoFit {
		return true
	}
	if aNone, bNone := a.mode == modeNoCandidates, b.mode == modeNoCandidates; aNone != bNone {
		return !aNone
	}
	if pref == kueue.PreemptionOverBorrowing {
		if a.borrow != b.borrow {
			return a.borrow < b.borrow
		}
		return a.mode > b.mode
	}
	if a.mode != b.mode {
		return a.mode > b.mode
	}
	return a.borrow < b.borrow
}

// tryNext tells whether the search goes on to the next flavor after one of
// mode g (Kueue's shouldTryNextFlavor): always after a flavor that cannot
// take the request now or by preemption; after one that needs preemption
// under whenCanPreempt TryNextFlavor; after one that borrows under
// whenCanBorrow TryNextFlavor.
func tryNext(g granular, cq *quota.ClusterQueue) bool {
	switch {
	case g.mode == modeNoFit || g.mode == modeNoCandidates:
		return true
	case (g.mode == modePreempt || g.mode == modeReclaim) && cq.WhenCanPreempt == kueue.TryNextFlavor:
		return true
	case g.borrow > 0 && cq.WhenCanBorrow == kueue.TryNextFlavor:
		return true
	}
	return false
}

// fromPossibility is the mode of a cell whose preemption the oracle judged.
func fromPossibility(p Possibility) preemptionMode {
	switch p {
	case PreemptInQueue:
		return modePreempt
	case Reclaim:
		return modeReclaim
	}
	return modeNoCandidates
}
