package scheduler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/workload"

	. "quokka.dev/quokka/engine/enginetest"
)

// The walk remembers the previous entry's LocalQueue and namespace answers
// (walkmemo.go); each entry must still get its own. 002: a ClusterQueue's
// namespaceSelector "restricts which namespaces' LocalQueues may submit to
// it", and a stopped LocalQueue admits nothing new (pending reason Stopped).
// Entries of three LocalQueues, one stopped and one in a namespace the
// ClusterQueue does not select, come interleaved and in runs, in one walk,
// with an inactive workload among them.
func TestWalkDecidesEachEntryForItsOwnQueueAndNamespace(t *testing.T) {
	order := []string{"ml2/0", "ml2/1", "ml1/0", "web/0", "web/1", "ml1/off", "ml1/1", "ml2/2", "ml1/2", "web/2"}
	objs := []any{
		MakeFlavor("h100").Obj(),
		MakeClusterQueue("a").Quota("h100", gpu, "8").NamespaceSelector(map[string]string{"team": "ml"}).Obj(),
		namespace{"ml1", map[string]string{"team": "ml"}},
		namespace{"ml2", map[string]string{"team": "ml"}},
		namespace{"web", map[string]string{"team": "web"}},
		MakeLocalQueue("ml1", "lq", "a").Obj(),
		MakeLocalQueue("ml2", "lq", "a").StopPolicy(kueue.Hold).Obj(),
		MakeLocalQueue("web", "lq", "a").Obj(),
	}
	for i, k := range order {
		ns, n, _ := strings.Cut(k, "/")
		objs = append(objs, MakeWorkload(ns, ns+"-"+n).Queue("lq").Request(gpu, "1").Created(time.Duration(i)*time.Second).Active(n != "off").Obj())
	}
	s := world(t, Options{}, objs...)
	ds := s.Cycle(now)
	if got, want := fmt.Sprint(admittedNames(ds)), "[ml1-0 ml1-1 ml1-2]"; got != want {
		t.Fatalf("admitted %s, want %s; decisions %v", got, want, ds)
	}
	mustPending(t, ds, "ml1-off", ReasonInactive)
	for _, n := range []string{"0", "1", "2"} {
		mustPending(t, ds, "ml2-"+n, ReasonStopped)
		mustPending(t, ds, "web-"+n, ReasonNamespaceNotSelected)
	}
}

// compareQueueOrder compares UIDs through their eight-byte keys first; where
// priority and creation time tie, its order must be the UIDs' string order,
// for UIDs of any length and bytes (zero bytes included, which the keys pad
// with).
func TestQueueOrderFollowsUIDsThroughTheirKeys(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0, 1, 'a', 'b', 0xff}
	uid := func() string {
		b := make([]byte, rnd.IntN(12))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		return string(b)
	}
	rec := func(u string) *record {
		r := &record{}
		r.setInfo(&workload.Info{UID: types.UID(u), Key: types.NamespacedName{Namespace: "ns", Name: "w"}})
		return r
	}
	for range 20000 {
		a, b := uid(), uid()
		if got, want := compareQueueOrder(rec(a), rec(b)), strings.Compare(a, b); got != want {
			t.Fatalf("UIDs %q and %q: compareQueueOrder %d, strings.Compare %d", a, b, got, want)
		}
	}
}
