// Package enginetest has small fluent builders for engine tests, in the style of
// Kueue's test wrappers, so that a table case fits on a few lines:
//
//	MakeClusterQueue("research").Cohort("ml-platform").
//		Quota("h100", "nvidia.com/gpu", "32", Borrowing("16")).Obj()
//
// It is imported only by tests (and the simulator's tests); production code must
// not depend on it.
package enginetest
