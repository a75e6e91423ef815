// Package resources holds quota quantities as int64 in canonical units: CPU in
// millicores, memory and every other resource in whole units (bytes for memory,
// devices for GPUs). Conversion from resource.Quantity happens once, at the edge
// (ToCanonical), so that the engine's hot paths add and compare plain integers.
//
// Arithmetic saturates at Unlimited instead of overflowing: a quota of "unlimited"
// is represented by Unlimited, and any sum that would overflow becomes Unlimited.
// A converted quantity is at most MaxAmount, half of Unlimited.
package resources
