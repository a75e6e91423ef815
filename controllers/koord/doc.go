// Package koord is Quokka's Koord-Queue path in a cluster (spec 004), the part of
// `quokka manager` that replaces the koord-queue controller and its batch/v1 Job
// extension:
//
//   - QueueReconciler keeps one Queue per ElasticQuota in the koord-queue
//     namespace (queue_controller.go);
//   - JobReconciler is the job extension: a suspended Job becomes a QueueUnit,
//     the unit's phase follows the Job, an admitted unit's Job is resumed, and a
//     deleted Job's unit is deleted (job_controller.go);
//   - the admission loop drives engine/elasticquota's Scheduler, the same pure
//     engine `quokka simulate` replays, and writes its decisions: unit status,
//     events, the Queue's usage annotation and metrics (admission.go).
//
// Every quota decision is the engine's; this package only reads and writes
// objects.
package koord
