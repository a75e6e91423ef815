package manifest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The annotations that place an object on the simulated clock. They live in their
// own domain so that a cluster ignores them: the same file can be applied for real.
const (
	AnnotationPrefix = "simulation.quokka.dev/"
	// AnnotationAt is when the object is applied, as a Go duration from the start
	// of the simulation ("90s", "2h30m"). Default: 0.
	AnnotationAt = AnnotationPrefix + "at"
	// AnnotationRuntime is how long a job runs once admitted. Default: until the
	// end of the simulation. Only Workloads and Jobs carry it.
	AnnotationRuntime = AnnotationPrefix + "runtime"
	// AnnotationRuntimeAssumed, set to "true" next to AnnotationRuntime, says that
	// the runtime is a guess rather than known: `quokka snapshot` writes it on a
	// live Workload that had no runtime annotation, and the output lists those
	// workloads so that nobody reads a guessed finish time as a forecast.
	AnnotationRuntimeAssumed = AnnotationPrefix + "runtime-assumed"
	// AnnotationPodsReadyAfter is how long a job's pods take to be ready once
	// it is admitted (its Workload's PodsReady condition turns True then).
	// Default: ready at admission. With the Configuration's waitForPodsReady,
	// a job whose pods are not ready within its timeout is evicted and backs
	// off, and blockAdmission holds other admissions meanwhile, as in a
	// cluster. Only Workloads and Jobs carry it.
	AnnotationPodsReadyAfter = AnnotationPrefix + "pods-ready-after"
)

// knownAnnotations are the annotations of the simulator's domain it reads.
var knownAnnotations = []string{AnnotationAt, AnnotationPodsReadyAfter, AnnotationRuntime, AnnotationRuntimeAssumed}

// timing is what the annotations of one object say.
type timing struct {
	at         time.Duration
	runtime    time.Duration
	hasRuntime bool
	assumed    bool
	// podsReadyAfter is AnnotationPodsReadyAfter, 0 without it.
	podsReadyAfter time.Duration
}

// parseTiming reads the simulator's annotations. An annotation in the simulator's
// domain that it does not know is an error, so that a typo ("runtme") does not turn
// a two-hour job into one that runs forever.
func parseTiming(annotations map[string]string, isJob bool) (timing, field.ErrorList) {
	var t timing
	var errs field.ErrorList
	base := field.NewPath("metadata", "annotations")
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		if strings.HasPrefix(k, AnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := annotations[k]
		p := base.Key(k)
		switch k {
		case AnnotationAt:
			d, err := parseDuration(v)
			if err != nil {
				errs = append(errs, field.Invalid(p, v, err.Error()))
				continue
			}
			t.at = d
		case AnnotationRuntime:
			if !isJob {
				errs = append(errs, field.Forbidden(p, "only Workloads and Jobs run; this object is applied, not run"))
				continue
			}
			d, err := parseDuration(v)
			if err != nil {
				errs = append(errs, field.Invalid(p, v, err.Error()))
				continue
			}
			if d == 0 {
				errs = append(errs, field.Invalid(p, v, "must be greater than 0; leave the annotation out for a job that runs to the end"))
				continue
			}
			t.runtime, t.hasRuntime = d, true
		case AnnotationPodsReadyAfter:
			if !isJob {
				errs = append(errs, field.Forbidden(p, "only Workloads and Jobs have pods; this object is applied, not run"))
				continue
			}
			d, err := parseDuration(v)
			if err != nil {
				errs = append(errs, field.Invalid(p, v, err.Error()))
				continue
			}
			t.podsReadyAfter = d
		case AnnotationRuntimeAssumed:
			if v != "true" {
				errs = append(errs, field.NotSupported(p, v, []string{"true"}))
				continue
			}
			if _, ok := annotations[AnnotationRuntime]; !ok {
				errs = append(errs, field.Required(base.Key(AnnotationRuntime), "the runtime that "+AnnotationRuntimeAssumed+" says is assumed"))
				continue
			}
			t.assumed = true
		default:
			errs = append(errs, field.NotSupported(p, k, knownAnnotations))
		}
	}
	return t, errs
}

// parseDuration is time.ParseDuration that refuses negative values and explains
// the format.
func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("must be a Go duration such as 90s, 10m or 2h30m (%v)", err)
	}
	if d < 0 {
		return 0, fmt.Errorf("must not be negative")
	}
	return d, nil
}
