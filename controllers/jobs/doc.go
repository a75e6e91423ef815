// Package jobs holds Quokka's job integrations: controllers that turn a job API
// (batch/v1 Job, in package job) into a Kueue Workload and back, and the admission
// webhooks (package webhooks) that keep jobs from starting before admission.
//
// The contract with the core controllers is Kueue's Workload API and nothing
// else: a job controller creates and finishes Workloads and reacts to
// status.admission and the Admitted and Evicted conditions that the core writes.
package jobs
