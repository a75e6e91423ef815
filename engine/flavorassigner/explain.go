package flavorassigner

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

func qty(r corev1.ResourceName, v int64) string {
	if v == resources.Unlimited {
		return "unlimited"
	}
	q := resources.ToQuantity(r, v)
	return q.String()
}

func notCovered(cq *quota.ClusterQueue, ps *workload.PodSet, r corev1.ResourceName, multi bool) Result {
	msg := fmt.Sprintf("requests %s, which no resource group of ClusterQueue %s covers; add it to coveredResources or remove the request", r, cq.Name())
	return Result{Reason: decision.ReasonResourceNotCovered, Message: prefix(ps.Name, multi) + msg}
}

func prefix(podSet string, multi bool) string {
	if !multi {
		return ""
	}
	return "pod set " + podSet + ": "
}

// explain picks the reason code from the most hopeful flavor (one that needs
// quota now in use beats one that can never fit, which beats a skipped one) and
// writes one sentence per flavor tried, in list order.
func explain(c *quota.Cache, cq *quota.ClusterQueue, g *GroupOutcome, multi bool) (string, string) {
	best := -1
	for i := range g.Flavors {
		fo := &g.Flavors[i]
		if fo.Skipped != "" {
			continue
		}
		if best < 0 || fo.Mode > g.Flavors[best].Mode {
			best = i
		}
	}
	parts := make([]string, 0, len(g.Flavors))
	reason := decision.ReasonFlavorSkipped
	for i := range g.Flavors {
		fo := &g.Flavors[i]
		if fo.Skipped != "" {
			parts = append(parts, fmt.Sprintf("flavor %s skipped: %s", fo.Flavor, fo.Skipped))
			continue
		}
		code, sentence := flavorSentence(c, cq, fo)
		if i == best {
			reason = code
		}
		parts = append(parts, sentence)
	}
	if len(parts) == 0 {
		parts = append(parts, "no flavor to try")
	}
	return reason, prefix(g.PodSet, multi) + strings.Join(parts, "; ")
}

func flavorSentence(c *quota.Cache, cq *quota.ClusterQueue, fo *FlavorOutcome) (string, string) {
	// Report the resource that decides the flavor's mode; among several, one held
	// back by a borrowing limit, since raising the cohort's capacity alone would
	// not help it. Name the other short resources too.
	var ro *ResourceOutcome
	var others []string
	for i := range fo.Resources {
		cur := &fo.Resources[i]
		if cur.Mode != fo.Mode {
			continue
		}
		if ro == nil || explainsBetter(fo, cur, ro) {
			if ro != nil {
				others = append(others, string(ro.Resource))
			}
			ro = cur
		} else {
			others = append(others, string(cur.Resource))
		}
	}
	if ro == nil {
		return "", fmt.Sprintf("flavor %s fits", fo.Flavor)
	}
	code, sentence := resourceSentence(c, cq, fo, ro)
	if len(others) > 0 {
		sort.Strings(others)
		sentence += "; also short of " + strings.Join(others, ", ")
	}
	return code, sentence
}

// explainsBetter reports whether cur names the cause of a flavor's outcome better
// than best: a resource held back by a borrowing limit first, since raising the
// cohort's capacity alone would not help it; then a scarce resource (a GPU, any
// extended resource) over CPU, memory, storage and pods, because on a GPU cluster
// "needs 8 nvidia.com/gpu" is what a person acts on, and the CPU and memory that
// come with each GPU are short only because the GPUs are.
func explainsBetter(fo *FlavorOutcome, cur, best *ResourceOutcome) bool {
	curLimited := cur.LimitedBy != "" && fo.Mode == Preempt
	bestLimited := best.LimitedBy != "" && fo.Mode == Preempt
	if curLimited != bestLimited {
		return curLimited
	}
	return commonResource(best.Resource) && !commonResource(cur.Resource)
}

// commonResource is true for the resources every pod requests.
func commonResource(r corev1.ResourceName) bool {
	switch r {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
		return true
	}
	return false
}

func resourceSentence(c *quota.Cache, cq *quota.ClusterQueue, fo *FlavorOutcome, ro *ResourceOutcome) (string, string) {
	r := ro.Resource
	fr := resources.FlavorResource{Flavor: fo.Flavor, Resource: r}
	q, _ := cq.Quota(fr)
	needs := fmt.Sprintf("needs %s %s in flavor %s", qty(r, ro.Requested), r, fo.Flavor)
	cohort := cq.CohortName()
	switch {
	case fo.Mode == NoFit:
		return decision.ReasonExceedsMaximumQuota, fmt.Sprintf("%s, more than ClusterQueue %s can ever get (at most %s: nominal %s, borrowing limit %s)",
			needs, cq.Name(), qty(r, ro.Potential), qty(r, q.Nominal), qty(r, q.BorrowingLimit))
	case ro.LimitedBy != "":
		who := ro.LimitedBy
		if ro.LimitedByCohort {
			who = "cohort " + who
		}
		return decision.ReasonBorrowingLimitReached, fmt.Sprintf("%s; %s unused in cohort %s; borrowing limit of %s reached (%s uses %s, nominal %s, borrowing limit %s)",
			needs, qty(r, max(0, c.CohortAvailable(cq, fr))), cohort, who, cq.Name(), qty(r, cq.Usage(fr)), qty(r, q.Nominal), qty(r, q.BorrowingLimit))
	case cohort != "":
		return decision.ReasonInsufficientQuotaInCohort, fmt.Sprintf("%s; %s unused in cohort %s (%s uses %s of nominal %s)",
			needs, qty(r, max(0, c.CohortAvailable(cq, fr))), cohort, cq.Name(), qty(r, cq.Usage(fr)), qty(r, q.Nominal))
	default:
		return decision.ReasonInsufficientQuota, fmt.Sprintf("%s; %s unused in ClusterQueue %s (uses %s of nominal %s)",
			needs, qty(r, max(0, ro.Available)), cq.Name(), qty(r, cq.Usage(fr)), qty(r, q.Nominal))
	}
}
