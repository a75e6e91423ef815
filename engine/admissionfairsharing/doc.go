// Package admissionfairsharing keeps the decayed historical usage of
// LocalQueues for ClusterQueues that order their pending workloads by it
// (spec.admissionScope.admissionMode: UsageBasedAdmissionFairSharing). Time is
// an argument and the arithmetic is integer, so tests drive decay exactly.
package admissionfairsharing
