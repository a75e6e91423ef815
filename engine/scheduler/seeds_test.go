package scheduler

import (
	"os"
	"strconv"
	"testing"
)

// propertySeeds is how many seeds a random-stream property test runs: def by
// default, short under -short, and N when QUOKKA_PROPERTY_SEEDS=N is set (the
// long runs, see README "Tests"). Steps per seed never shrink: the bugs these
// tests caught showed only thousands of steps into a stream, so a seed is
// either run in full or not at all.
func propertySeeds(t *testing.T, def, short uint64) uint64 {
	t.Helper()
	if v := os.Getenv("QUOKKA_PROPERTY_SEEDS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			t.Fatalf("QUOKKA_PROPERTY_SEEDS=%q: want a positive number of seeds", v)
		}
		return n
	}
	if testing.Short() {
		return short
	}
	return def
}
