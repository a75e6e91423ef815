// Package core holds the controllers that connect Quokka's pure engine to the
// cluster: reconcilers that feed API objects into the engine, the scheduling
// loop that runs engine cycles and writes their decisions back, the Workload
// lifecycle (finalizer, eviction, requeue), queue status and metrics.
//
// The controllers hold no quota logic. Every rule lives in engine/; this package
// only translates between API objects and engine calls, which is why a restart
// can rebuild the engine from the API alone.
package core
