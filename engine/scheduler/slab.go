package scheduler

// A cycle on a loaded tree makes a run for every queue it walks and a head
// for every candidate, thousands per cycle, and drops them all at its end.
// They come from slabs that the next cycle reuses, so that the garbage
// collector does not have to find them.

// slabChunk is how many values a slab allocates at a time.
const slabChunk = 256

// slab hands out zeroed values that stay valid until reset. Values never
// move: a slab grows by whole chunks.
type slab[T any] struct {
	chunks [][]T
	n      int
}

// get returns a zeroed value.
func (s *slab[T]) get() *T {
	c, i := s.n/slabChunk, s.n%slabChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]T, slabChunk))
	}
	s.n++
	return &s.chunks[c][i]
}

// reset takes back every value handed out, zeroing them so that they hold
// on to nothing.
func (s *slab[T]) reset() {
	for c := 0; c*slabChunk < s.n; c++ {
		clear(s.chunks[c][:min(slabChunk, s.n-c*slabChunk)])
	}
	s.n = 0
}
