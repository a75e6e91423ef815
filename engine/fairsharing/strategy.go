package fairsharing

import (
	"fmt"

	config "quokka.dev/quokka/apis/config/v1beta2"
)

// Strategy decides whether a preemptor may take a victim from a target, given
// the preemptor's share with its workload admitted (preemptorNew) and the
// target's share before (targetOld) and after (targetNew) losing the victim.
// Shares are those of the two queues' almost-lowest-common-ancestors.
type Strategy struct {
	Name  config.PreemptionStrategy
	Allow func(preemptorNew, targetOld, targetNew Share) bool
}

// LessThanOrEqualToFinalShare: "preemptor's share with its workload admitted ≤
// target's share after losing the victim". It never flips an imbalance, which
// is why two queues cannot keep preempting each other.
var LessThanOrEqualToFinalShare = Strategy{Name: config.LessThanOrEqualToFinalShare,
	Allow: func(pNew, _, tNew Share) bool { return pNew <= tNew }}

// LessThanInitialShare: "preemptor's new share < target's share before
// preemption".
var LessThanInitialShare = Strategy{Name: config.LessThanInitialShare,
	Allow: func(pNew, tOld, _ Share) bool { return pNew < tOld }}

// PreemptionStrategyName is the Configuration's name of a strategy.
type PreemptionStrategyName = config.PreemptionStrategy

// Strategies resolves the Configuration's list, in its order (the list is
// validated by apis/config; an unknown name is an error here too).
func Strategies(names []config.PreemptionStrategy) ([]Strategy, error) {
	out := make([]Strategy, 0, len(names))
	for _, n := range names {
		switch n {
		case config.LessThanOrEqualToFinalShare:
			out = append(out, LessThanOrEqualToFinalShare)
		case config.LessThanInitialShare:
			out = append(out, LessThanInitialShare)
		default:
			return nil, fmt.Errorf("unknown fair sharing preemption strategy %q", n)
		}
	}
	return out, nil
}
