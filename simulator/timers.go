package simulator

import (
	"container/heap"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// finishTimer is the end of a running job's runtime. gen is the job's admission
// generation when the timer was set: a job preempted in the meantime has a newer
// generation, and its old timer is ignored when it fires.
type finishTimer struct {
	at  time.Duration
	seq uint64
	key types.NamespacedName
	gen uint64
	// koord marks the timer of a Koord-Queue unit; podsRunning, of a unit's
	// pods that start running (koord_startup.go) rather than its finish.
	koord, podsRunning bool
	// reclaim, when positive, marks the start of a Job's last wave, when
	// that many of its admitted pods become reclaimable (jobwaves.go).
	reclaim int32
	// podsReady marks the moment a Kueue job's pods are ready (podsready.go).
	podsReady bool
}

// timerHeap orders timers by time, then by the order they were set (admission
// order), so that jobs finishing at the same instant are listed deterministically.
type timerHeap []finishTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(finishTimer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// timers is the queue of pending finishes.
type timers struct {
	h   timerHeap
	seq uint64
}

func (t *timers) add(at time.Duration, key types.NamespacedName, gen uint64) {
	t.seq++
	heap.Push(&t.h, finishTimer{at: at, seq: t.seq, key: key, gen: gen})
}

// addReclaim sets the timer at which reclaim of a job's admitted pods
// become reclaimable.
func (t *timers) addReclaim(at time.Duration, key types.NamespacedName, gen uint64, reclaim int32) {
	t.seq++
	heap.Push(&t.h, finishTimer{at: at, seq: t.seq, key: key, gen: gen, reclaim: reclaim})
}

// addPodsReady sets the timer at which an admitted job's pods are ready.
func (t *timers) addPodsReady(at time.Duration, key types.NamespacedName, gen uint64) {
	t.seq++
	heap.Push(&t.h, finishTimer{at: at, seq: t.seq, key: key, gen: gen, podsReady: true})
}

// addKoord sets the finish timer of an admitted Koord-Queue unit.
func (t *timers) addKoord(at time.Duration, key types.NamespacedName, gen uint64) {
	t.seq++
	heap.Push(&t.h, finishTimer{at: at, seq: t.seq, key: key, gen: gen, koord: true})
}

// addKoordPodsRunning sets the timer at which an admitted Koord-Queue unit's
// pods run.
func (t *timers) addKoordPodsRunning(at time.Duration, key types.NamespacedName, gen uint64) {
	t.seq++
	heap.Push(&t.h, finishTimer{at: at, seq: t.seq, key: key, gen: gen, koord: true, podsRunning: true})
}

// next returns the time of the earliest timer.
func (t *timers) next() (time.Duration, bool) {
	if len(t.h) == 0 {
		return 0, false
	}
	return t.h[0].at, true
}

// popDue removes and returns the earliest timer if it is due at or before now.
func (t *timers) popDue(now time.Duration) (finishTimer, bool) {
	if len(t.h) == 0 || t.h[0].at > now {
		return finishTimer{}, false
	}
	return heap.Pop(&t.h).(finishTimer), true
}
