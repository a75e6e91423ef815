package v1beta2

import (
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
)

// ParseMaxExecTimeSeconds reads the value of MaxExecTimeSecondsLabel: a
// positive whole number of seconds, as Kueue's job framework requires. The
// error says what is wrong with the value, for a field error on the label.
func ParseMaxExecTimeSeconds(v string) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("must be a whole number of seconds")
	}
	if n <= 0 {
		return 0, fmt.Errorf("should be greater than 0")
	}
	return int32(n), nil
}

const (
	// JobMinParallelismAnnotation on a batch/v1 Job lets it be admitted
	// with fewer pods than its parallelism, down to the annotation's value
	// (Kueue's partial admission): it becomes the Workload's pod set
	// minCount, and the Job runs with the parallelism it was admitted with.
	JobMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism"
	// JobCompletionsEqualParallelismAnnotation ("true") on an Indexed Job
	// whose completions equal its parallelism keeps them equal when partial
	// admission changes the parallelism.
	JobCompletionsEqualParallelismAnnotation = "kueue.x-k8s.io/job-completions-equal-parallelism"
	// PriorityBoostAnnotation on a Workload is a signed 32-bit integer added
	// to its priority when the PriorityBoost gate is on (Kueue's KEP-7990):
	// an external controller raises or lowers a workload's standing without
	// touching its priority class.
	PriorityBoostAnnotation = "kueue.x-k8s.io/priority-boost"
)

// JobMinParallelism reads JobMinParallelismAnnotation as Kueue's Job
// integration does: nil when it is absent or not a whole number (which the
// Job webhook refuses; see ValidateJobMinParallelism).
func JobMinParallelism(annotations map[string]string) *int32 {
	v, ok := annotations[JobMinParallelismAnnotation]
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return nil
	}
	m := int32(n)
	return &m
}

// ValidateJobMinParallelism checks a JobMinParallelismAnnotation value against
// the Job's pod count (min of parallelism and completions), as Kueue's Job
// webhook does: a whole number from 1 to one below the pod count. The error
// says what is wrong, for a field error on the annotation.
func ValidateJobMinParallelism(v string, podCount int32) error {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return fmt.Errorf("must be a whole number")
	}
	if n <= 0 || int32(n) >= podCount {
		return fmt.Errorf("should be between 0 and %d", podCount-1)
	}
	return nil
}

// JobCompletionsEqualParallelism reads
// JobCompletionsEqualParallelismAnnotation: true only for a value
// strconv.ParseBool reads as true.
func JobCompletionsEqualParallelism(annotations map[string]string) bool {
	b, err := strconv.ParseBool(annotations[JobCompletionsEqualParallelismAnnotation])
	return err == nil && b
}

// JobPodCount is the number of pods a batch/v1 Job runs at once, which is
// what its Workload's pod set counts and quota must cover: its parallelism
// (1 when unset), or its completions when fewer pods ever run, as in Kueue.
func JobPodCount(job *batchv1.Job) int32 {
	n := int32(1)
	if job.Spec.Parallelism != nil {
		n = *job.Spec.Parallelism
	}
	if c := job.Spec.Completions; c != nil && *c < n {
		n = *c
	}
	return n
}

// PriorityBoost reads PriorityBoostAnnotation: 0 when it is absent; an error
// naming the annotation when it is not a signed 32-bit integer (the empty
// string included: "0" says no boost), which the Workload webhook refuses
// with the PriorityBoost gate on.
func PriorityBoost(annotations map[string]string) (int32, error) {
	v, ok := annotations[PriorityBoostAnnotation]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("metadata.annotations[%s]: %q must be a valid signed 32-bit integer", PriorityBoostAnnotation, v)
	}
	return int32(n), nil
}
