// Package job integrates batch/v1 Jobs the way Kueue does: a Job labelled with
// kueue.x-k8s.io/queue-name gets a Workload, stays suspended until the Workload is
// admitted, runs on the admitted flavor's nodes, and finishes its Workload when it
// completes or fails.
package job

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	// JobUIDLabel on a Workload holds the UID of the Job it was made for, as in
	// Kueue, so that a Workload left behind by an earlier Job of the same name is
	// never mistaken for the current one's.
	JobUIDLabel = "kueue.x-k8s.io/job-uid"

	// maxNameLength is the longest object name the API server accepts.
	maxNameLength = 253
	// hashLength is the number of hex digits of the name's suffix.
	hashLength = 5
)

// WorkloadName is the name of the Workload of a Job: "job-<job name>-<hash>", the
// shape Kueue uses. The hash covers the Job's name and UID, so a Job deleted and
// re-created under the same name gets a Workload of a different name and does not
// collide with the old one while the garbage collector removes it. Long Job names
// are truncated so that the result is a valid object name.
func WorkloadName(jobName string, uid types.UID) string {
	sum := sha1.Sum([]byte(strings.Join([]string{"batch/v1", "Job", jobName, string(uid)}, "/")))
	hash := hex.EncodeToString(sum[:])[:hashLength]
	prefix := "job-" + jobName
	if maxLen := maxNameLength - hashLength - 1; len(prefix) > maxLen {
		prefix = strings.TrimRight(prefix[:maxLen], "-.")
	}
	return prefix + "-" + hash
}

// workloadNameFor is WorkloadName for a Job object.
func workloadNameFor(job *batchv1.Job) string {
	return WorkloadName(job.Name, job.UID)
}
