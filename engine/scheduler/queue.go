package scheduler

import (
	"slices"
	"strings"
)

// pendingList keeps one ClusterQueue's pending workloads in queue order. New
// entries go to added and are merged in at the next cycle (sort the few new ones,
// merge linearly), so that bulk loading costs one sort, and a cycle never re-sorts
// a deep queue. Entries whose record moved on (admitted, re-queued, its
// LocalQueue gone) are recognised by their gen and dropped while merging.
//
// Without new entries a list is compacted every compactEvery prepares only:
// a queue that a herd wakes cycle after cycle would otherwise scan its whole
// list each time to find nothing stale. Stale entries left in place are
// skipped by everything that reads the list (entry.valid).
type pendingList struct {
	sorted []entry
	added  []entry
	// spare is the buffer the next merge writes into (the sorted slice
	// before the last merge, cleared), so that lists merged every cycle do
	// not allocate a new one each time.
	spare []entry
	// prepares counts the prepares since the last compaction.
	prepares int
	// walked is the last cycle that walked the queue (see park.go).
	walked uint64
}

// compactEvery is how many prepares without new entries a list goes between
// compactions.
const compactEvery = 8

type entry struct {
	r   *record
	gen uint64
}

func (e entry) valid() bool { return e.r.gen == e.gen && e.r.state == StatePending }

// list returns cq's pending list for adding to it, so it also wakes cq.
func (s *Scheduler) list(cq string) *pendingList {
	s.wake(cq)
	return s.listOf(cq)
}

// listOf returns cq's pending list, made when missing.
func (s *Scheduler) listOf(cq string) *pendingList {
	l, ok := s.lists[cq]
	if !ok {
		l = &pendingList{}
		s.lists[cq] = l
	}
	return l
}

// add queues r, invalidating any earlier entry of it.
func (l *pendingList) add(s *Scheduler, r *record) {
	s.gen++
	r.gen = s.gen
	l.added = append(l.added, entry{r: r, gen: r.gen})
}

// prepare merges added entries in and drops stale ones.
func (l *pendingList) prepare() {
	if len(l.added) == 0 {
		if l.prepares++; l.prepares >= compactEvery {
			l.compact()
		}
		return
	}
	l.prepares = 0
	slices.SortFunc(l.added, func(a, b entry) int { return compareQueueOrder(a.r, b.r) })
	out := l.spare[:0]
	if n := len(l.sorted) + len(l.added); cap(out) < n {
		out = make([]entry, 0, n+n/4)
	}
	i, j := 0, 0
	for i < len(l.sorted) || j < len(l.added) {
		var e entry
		if j >= len(l.added) || (i < len(l.sorted) && compareQueueOrder(l.sorted[i].r, l.added[j].r) <= 0) {
			e = l.sorted[i]
			i++
		} else {
			e = l.added[j]
			j++
		}
		if e.valid() {
			out = append(out, e)
		}
	}
	clear(l.sorted) // the records it points at may be gone
	l.spare = l.sorted[:0]
	l.sorted = out
	l.added = l.added[:0]
}

func (l *pendingList) compact() {
	l.prepares = 0
	n := 0
	for _, e := range l.sorted {
		if e.valid() {
			l.sorted[n] = e
			n++
		}
	}
	clear(l.sorted[n:])
	l.sorted = l.sorted[:n]
}

// compareQueueOrder is the order within a ClusterQueue: higher priority first,
// then older creation time (or PodsReady timeout eviction, see record.orderAt),
// then UID, then namespace/name so that the order is total and every run is
// reproducible.
func compareQueueOrder(a, b *record) int {
	return comparePriorityThenArrival(a.priority, b.priority, a, b)
}

// compareHeadOrder is the order of heads of different queues of one tree
// after their borrowing: as compareQueueOrder, but by headPriority (no
// priority at all with Kueue's PrioritySortingWithinCohort gate off).
func compareHeadOrder(a, b *record) int {
	return comparePriorityThenArrival(a.headPriority, b.headPriority, a, b)
}

// comparePriorityThenArrival puts the higher of pa and pb (a's and b's
// priorities for the order at hand) first, then the earlier arrival.
func comparePriorityThenArrival(pa, pb int32, a, b *record) int {
	if pa != pb {
		if pa > pb {
			return -1
		}
		return 1
	}
	return compareArrival(a, b)
}

// compareArrival orders workloads of equal priority: older orderAt first,
// then UID, then namespace/name.
func compareArrival(a, b *record) int {
	if c := a.orderAt.Compare(b.orderAt); c != 0 {
		return c
	}
	if a.uidKey != b.uidKey {
		if a.uidKey < b.uidKey {
			return -1
		}
		return 1
	}
	if c := strings.Compare(string(a.info.UID), string(b.info.UID)); c != 0 {
		return c
	}
	if c := strings.Compare(a.info.Key.Namespace, b.info.Key.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.info.Key.Name, b.info.Key.Name)
}
