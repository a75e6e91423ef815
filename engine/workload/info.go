package workload

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/resources"
)

// PodSet is one pod set with its requests and placement constraints, copied out
// of the object so that the caller may reuse it.
type PodSet struct {
	Name  string
	Count int32
	// MinCount is spec.podSets[].minCount, 0 when unset: the fewest pods the
	// pod set may be admitted with (Kueue's partial admission).
	MinCount int32
	// Reclaimable is the pod set's status.reclaimablePods count: pods that
	// finished for good. Count already leaves them out, as Kueue counts a
	// workload's requests (spec count less reclaimable pods).
	Reclaimable int32
	// PerPod and Total (Count × PerPod) are canonical; zero cells are absent.
	PerPod resources.Requests
	Total  resources.Requests
	// NodeSelector, RequiredAffinity and Tolerations decide which flavors fit.
	// Zero lists the resources the pods name but request none of (see
	// ZeroRequests).
	Zero             []corev1.ResourceName
	NodeSelector     map[string]string
	RequiredAffinity *corev1.NodeSelector
	Tolerations      []corev1.Toleration
}

// Admission is the quota a workload holds.
type Admission struct {
	ClusterQueue string
	PodSets      []decision.PodSetAssignment
	// Usage is the charge per flavor and resource.
	Usage resources.Amounts
}

// Info is the engine's view of a Workload.
type Info struct {
	Key       types.NamespacedName
	UID       types.UID
	Created   time.Time
	QueueName string
	// Labels are metadata.labels, for the rules of a PreemptionConfig
	// (preemptorSelector, labelSelector, numericLabels). Shared, read-only.
	Labels map[string]string
	// Priority is spec.priority when set.
	Priority *int32
	// PriorityBoost is the kueue.x-k8s.io/priority-boost annotation, 0 when
	// it is absent or not an integer (Kueue's defence in depth: the webhook
	// refuses such a value, and the base priority stands); the scheduler adds
	// it with the PriorityBoost gate on (EffectivePriority).
	PriorityBoost int32
	PriorityClass *kueue.PriorityClassRef
	Active        bool
	Finished      bool
	PodSets       []PodSet
	// Admission is set when status.admission is.
	Admission *Admission
	// EquivalenceShape is the workload's class for Kueue's
	// SchedulingEquivalenceHashing, but for its priority (equivalence.go);
	// the zero Shape for none.
	EquivalenceShape Shape
	// Invalid, when not "", says why the workload can never be admitted as
	// it is (a container requests more than its limit).
	Invalid string
	// QuotaReservedAt is the lastTransitionTime of a QuotaReserved=True
	// condition, zero without one; preemption takes the most recently admitted
	// workloads first.
	QuotaReservedAt time.Time
	// AdmittedAt is the lastTransitionTime of an Admitted=True condition,
	// zero without one: the maximum execution time counts from it.
	AdmittedAt time.Time
	// MaxExecution is spec.maximumExecutionTimeSeconds, zero when unset;
	// PastExecution is status.accumulatedPastExecutionTimeSeconds, the time
	// admitted before the current admission.
	MaxExecution  time.Duration
	PastExecution time.Duration
	// DeactivationTarget is set while a DeactivationTarget=True condition
	// waits for spec.active=false: the deactivation is already decided.
	DeactivationTarget bool
	// PodsReady is the PodsReady condition (waitForPodsReady): Status true
	// when all pods are ready, else the reason (WaitForStart,
	// WaitForRecovery) and since when; zero without the condition.
	PodsReady PodsReady
	// RequeueAt and RequeueCount are status.requeueState: the workload may
	// not be admitted before RequeueAt (the back-off after a PodsReady
	// timeout), and Count such evictions happened already.
	RequeueAt    time.Time
	RequeueCount int32
	// Evicted is an Evicted=True condition: an eviction is under way (or,
	// on a pending workload, was the last thing that happened to it).
	Evicted bool
	// PodsReadyTimeoutAt is when the workload was evicted for a PodsReady
	// timeout (an Evicted=True condition with that reason), zero otherwise:
	// Kueue orders it in its queue by that time instead of its creation
	// (waitForPodsReady.requeuingStrategy.timestamp Eviction).
	PodsReadyTimeoutAt time.Time
	// ReclaimedWhileBorrowingAt is when the workload was last preempted to
	// reclaim quota it borrowed (a Preempted=True condition with reason
	// InCohortReclaimWhileBorrowing), zero otherwise: with Kueue's
	// PrioritySortingWithinCohort gate off it is ordered just after that
	// moment, behind its preemptor.
	ReclaimedWhileBorrowingAt time.Time
}

// PodsReady is the PodsReady condition as the engine reads it.
type PodsReady struct {
	Ready  bool
	Reason string
	Since  time.Time
}

// FromAPI converts a Workload. Errors name the field path of the quantity that
// cannot be converted.
func FromAPI(wl *kueue.Workload) (*Info, error) { return FromAPIWith(wl, nil) }

// FromAPIWith is FromAPI with the Configuration's resources block: the pod
// sets' requests are what rules count (see ResourceRules). An admission's
// resourceUsage, written when it was made, is taken as it is.
func FromAPIWith(wl *kueue.Workload, rules *ResourceRules) (*Info, error) {
	return FromAPIIn(wl, rules, nil)
}

// FromAPIIn is FromAPIWith in the environment of the workload's namespace:
// its pod sets are counted as Kueue counts them there (LimitRange defaults
// and RuntimeClass overheads), and a pod set outside the namespace's
// LimitRanges makes the workload Invalid. A nil env adds nothing.
func FromAPIIn(wl *kueue.Workload, rules *ResourceRules, env *Environment) (*Info, error) {
	info := &Info{
		Key:       types.NamespacedName{Namespace: wl.Namespace, Name: wl.Name},
		UID:       wl.UID,
		Created:   wl.CreationTimestamp.Time,
		QueueName: string(wl.Spec.QueueName),
		Labels:    copyMap(wl.Labels),
		Active:    wl.Spec.Active == nil || *wl.Spec.Active,
		Finished:  meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished),
	}
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved); c != nil && c.Status == "True" {
		info.QuotaReservedAt = c.LastTransitionTime.Time
	}
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted); c != nil && c.Status == "True" {
		info.AdmittedAt = c.LastTransitionTime.Time
	}
	if m := wl.Spec.MaximumExecutionTimeSeconds; m != nil && *m > 0 {
		info.MaxExecution = time.Duration(*m) * time.Second
	}
	if p := wl.Status.AccumulatedPastExecutionTimeSeconds; p != nil && *p > 0 {
		info.PastExecution = time.Duration(*p) * time.Second
	}
	info.DeactivationTarget = meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadDeactivationTarget)
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPodsReady); c != nil {
		info.PodsReady = PodsReady{Ready: c.Status == "True", Reason: c.Reason, Since: c.LastTransitionTime.Time}
	}
	if rs := wl.Status.RequeueState; rs != nil {
		if rs.RequeueAt != nil {
			info.RequeueAt = rs.RequeueAt.Time
		}
		if rs.Count != nil {
			info.RequeueCount = *rs.Count
		}
	}
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted); c != nil && c.Status == "True" {
		info.Evicted = true
		if c.Reason == kueue.WorkloadEvictedByPodsReadyTimeout {
			info.PodsReadyTimeoutAt = c.LastTransitionTime.Time
		}
	}
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPreempted); c != nil && c.Status == "True" &&
		c.Reason == kueue.InCohortReclaimWhileBorrowingReason {
		info.ReclaimedWhileBorrowingAt = c.LastTransitionTime.Time
	}
	if wl.Spec.Priority != nil {
		p := *wl.Spec.Priority
		info.Priority = &p
	}
	if ref := wl.Spec.PriorityClassRef; ref != nil {
		r := *ref
		info.PriorityClass = &r
	}
	if b, err := kueue.PriorityBoost(wl.Annotations); err == nil {
		info.PriorityBoost = b
	}
	base := field.NewPath("spec", "podSets")
	for i := range wl.Spec.PodSets {
		ps := &wl.Spec.PodSets[i]
		specPath := base.Index(i).Child("template", "spec")
		spec := env.adjust(&ps.Template.Spec)
		perPod, err := PodRequests(specPath, spec)
		if err != nil {
			return nil, fmt.Errorf("workload %s: %w", info.Key, err)
		}
		if v := LimitViolation(specPath, spec); v != "" && info.Invalid == "" {
			info.Invalid = "resources validation failed: " + v
		}
		if info.Invalid == "" {
			info.Invalid = env.limitRangeViolation(specPath, spec, perPod)
		}
		name := string(ps.Name)
		if name == "" {
			name = string(kueue.DefaultPodSetName)
		}
		perPod, zero := rules.apply(perPod, ZeroRequests(spec, perPod))
		reclaimable := reclaimableOf(wl, name, ps.Count)
		count := ps.Count - reclaimable
		info.PodSets = append(info.PodSets, PodSet{
			Name:             name,
			Count:            count,
			MinCount:         ptr.Deref(ps.MinCount, 0),
			Reclaimable:      reclaimable,
			PerPod:           perPod,
			Total:            scale(perPod, count),
			Zero:             zero,
			NodeSelector:     copyMap(spec.NodeSelector),
			RequiredAffinity: requiredAffinity(spec),
			Tolerations:      append([]corev1.Toleration(nil), spec.Tolerations...),
		})
	}
	info.EquivalenceShape = equivalenceShape(wl, info)
	if adm := wl.Status.Admission; adm != nil {
		a, err := admissionFromAPI(info, adm)
		if err != nil {
			return nil, fmt.Errorf("workload %s: %w", info.Key, err)
		}
		info.Admission = a
	}
	return info, nil
}

// Priority orders workloads: higher first. ResolvePriority applies the fallback
// to priority classes.
func (i *Info) ResolvePriority(lookup func(ref kueue.PriorityClassRef) (int32, bool)) int32 {
	if i.Priority != nil {
		return *i.Priority
	}
	if i.PriorityClass != nil && lookup != nil {
		if v, ok := lookup(*i.PriorityClass); ok {
			return v
		}
	}
	return 0
}

// EffectivePriority is ResolvePriority plus PriorityBoost when boost is set
// (Kueue's PriorityBoost gate). Kueue adds the two in 64 bits; the engine's
// priorities are 32-bit, so a sum past either end is held at it: only
// boosts that push a priority beyond ±2^31 order differently.
func (i *Info) EffectivePriority(lookup func(ref kueue.PriorityClassRef) (int32, bool), boost bool) int32 {
	p := i.ResolvePriority(lookup)
	if !boost || i.PriorityBoost == 0 {
		return p
	}
	sum := int64(p) + int64(i.PriorityBoost)
	return int32(max(math.MinInt32, min(math.MaxInt32, sum)))
}

func admissionFromAPI(info *Info, adm *kueue.Admission) (*Admission, error) {
	out := &Admission{ClusterQueue: string(adm.ClusterQueue), Usage: resources.Amounts{}}
	base := field.NewPath("status", "admission", "podSetAssignments")
	for i, psa := range adm.PodSetAssignments {
		a := decision.PodSetAssignment{Name: string(psa.Name), Flavors: map[corev1.ResourceName]string{}}
		for r, f := range psa.Flavors {
			a.Flavors[resources.InternResource(r)] = resources.Intern(string(f))
		}
		ps := info.podSet(a.Name)
		switch {
		case len(psa.ResourceUsage) > 0:
			u, err := toRequests(base.Index(i).Child("resourceUsage"), psa.ResourceUsage)
			if err != nil {
				return nil, err
			}
			a.Usage = u
		case ps != nil:
			count := ps.Count + ps.Reclaimable
			if psa.Count != nil {
				count = *psa.Count
			}
			a.Usage = scale(ps.PerPod, count)
			if _, ok := psa.Flavors[corev1.ResourcePods]; ok && count > 0 {
				// The ClusterQueue counts pods (Kueue writes the count in
				// resourceUsage; an admission without it gets it here).
				a.Usage[corev1.ResourcePods] = int64(count)
			}
		default:
			a.Usage = resources.Requests{}
		}
		if psa.Count != nil {
			a.Count = *psa.Count
		} else if ps != nil {
			a.Count = ps.Count + ps.Reclaimable
		}
		if ps != nil && ps.Count < a.Count {
			// Pods reclaimed since the admission: the charge shrinks to the
			// pods still needed, per pod as Kueue divides it (an integer
			// division of each resource's total), never above what was
			// admitted (a partial admission keeps its count).
			a.Usage = ScaleDown(a.Usage, a.Count, ps.Count)
			a.Count = ps.Count
		}
		for r, v := range a.Usage {
			if f, ok := a.Flavors[r]; ok && v != 0 {
				fr := resources.FlavorResource{Flavor: f, Resource: r}
				out.Usage[fr] = resources.Add(out.Usage[fr], v)
			}
		}
		out.PodSets = append(out.PodSets, a)
	}
	return out, nil
}

// CanBePartiallyAdmitted tells whether a pod set may be admitted with fewer
// pods than it asks for (a minCount below its count), as Kueue's
// workload.CanBePartiallyAdmitted.
func (i *Info) CanBePartiallyAdmitted() bool {
	for k := range i.PodSets {
		if ps := &i.PodSets[k]; ps.MinCount > 0 && ps.MinCount < ps.Count {
			return true
		}
	}
	return false
}

// WithCount is the pod set with count pods, its Total scaled to match: what a
// partial admission assigns flavors to.
func (ps PodSet) WithCount(count int32) PodSet {
	ps.Count = count
	ps.Total = scale(ps.PerPod, count)
	return ps
}

func (i *Info) podSet(name string) *PodSet {
	for k := range i.PodSets {
		if i.PodSets[k].Name == name {
			return &i.PodSets[k]
		}
	}
	return nil
}

func scale(perPod resources.Requests, count int32) resources.Requests {
	out := make(resources.Requests, len(perPod))
	for r, v := range perPod {
		if t := resources.Mul(v, int64(count)); t != 0 {
			out[r] = t
		}
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func requiredAffinity(spec *corev1.PodSpec) *corev1.NodeSelector {
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil ||
		spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.DeepCopy()
}

// ReducedCounts is every pod set's assigned count when some pod set of wl
// got fewer pods than it asks for (a partial admission), nil otherwise: what
// reports show beside an admission.
func ReducedCounts(wl *kueue.Workload, assigned []decision.PodSetAssignment) map[string]int32 {
	reduced := false
	for _, a := range assigned {
		for _, ps := range wl.Spec.PodSets {
			name := string(ps.Name)
			if name == "" {
				name = string(kueue.DefaultPodSetName)
			}
			if name == a.Name && a.Count < ps.Count {
				reduced = true
			}
		}
	}
	if !reduced {
		return nil
	}
	out := make(map[string]int32, len(assigned))
	for _, a := range assigned {
		out[a.Name] = a.Count
	}
	return out
}

// CountsText says how many pods ReducedCounts gave: "25 pods" for one pod
// set, "20 pods in two, 10 in three" for several, in name order.
func CountsText(counts map[string]int32) string {
	names := slices.Sorted(maps.Keys(counts))
	if len(names) == 1 {
		return fmt.Sprintf("%d pods", counts[names[0]])
	}
	parts := make([]string, len(names))
	for i, n := range names {
		unit := ""
		if i == 0 {
			unit = " pods"
		}
		parts[i] = fmt.Sprintf("%d%s in %s", counts[n], unit, n)
	}
	return strings.Join(parts, ", ")
}
