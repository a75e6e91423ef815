// Package manifest reads the simulator's input: ordinary Kubernetes manifests, the
// same files a person would apply to a cluster, plus a few annotations that place
// each object on the simulated clock.
//
// Why ordinary manifests instead of a trace format of our own: a what-if run is only
// worth something if its input is what production runs. A ClusterQueue copied from a
// cluster, or a Job copied from a CI pipeline, must load unchanged, and a manifest that
// would be rejected by the API server must be rejected here too, with the same field
// path. Decoding is therefore strict (an unknown field is an error that names its
// path), and every object is validated in Go the way the CRD schema and Kueue's
// webhooks validate it.
//
// The package is pure: it reads files and returns Documents in the order they were
// read. What happens at which simulated time is the simulator's business.
package manifest
