// Package v1beta2 reads Kueue's manager configuration file,
// config.kueue.x-k8s.io/v1beta2 kind Configuration, for Quokka.
//
// The file is not a CRD: it is read once at start-up, so this package only decodes,
// defaults and validates it. Field names and defaults follow Kueue v0.20 so that a
// Kueue Configuration works unchanged, with three deliberate differences, all in the
// direction of refusing instead of guessing:
//
//   - decoding is strict: a field Quokka does not know, including Kueue fields that
//     Quokka does not implement, is an error that names the field;
//   - a value Kueue would silently turn into a no-op (admissionFairSharing with a
//     usageHalfLifeTime of 0) is refused;
//   - checks that involve ClusterQueues (fair sharing with borrowWithinCohort) are
//     exported as ValidateAgainstClusterQueues so that both the manager and the
//     simulator refuse the same combination.
//
// Feature gates are resolved here, once; the engine receives plain booleans.
package v1beta2
