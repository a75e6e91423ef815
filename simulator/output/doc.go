// Package output writes a simulation's result for people (a timeline and summary
// tables) and for programs (one JSON document whose schema is documented in
// simulator/README.md). Both are deterministic: the same input gives the same bytes,
// which is what lets the examples be checked by golden files.
package output
