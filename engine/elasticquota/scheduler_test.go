package elasticquota

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// unitBuilder builds a QueueUnit in namespace default.
type unitBuilder struct{ u QueueUnit }

func mkUnit(name string) *unitBuilder {
	return &unitBuilder{u: QueueUnit{Namespace: "default", Name: name, Created: epoch, Labels: map[string]string{}}}
}

func (b *unitBuilder) Quota(q string) *unitBuilder {
	b.u.Labels[koordv1alpha1.QuotaNameLabel] = q
	return b
}
func (b *unitBuilder) CPU(cores int64) *unitBuilder { b.u.Request = cpu(cores); return b }
func (b *unitBuilder) Priority(p int32) *unitBuilder {
	b.u.Priority = p
	return b
}
func (b *unitBuilder) At(sec int) *unitBuilder {
	b.u.Created = epoch.Add(time.Duration(sec) * time.Second)
	return b
}
func (b *unitBuilder) Obj() QueueUnit { return b.u }

// policy sets the koord-queue/queue-policy label; annotations are added as pairs.
func policy(eq *koordv1alpha1.ElasticQuota, p string, annotations ...string) *koordv1alpha1.ElasticQuota {
	if p != "" {
		eq.Labels[queuev1alpha1.QueuePolicyLabel] = p
	}
	for i := 0; i+1 < len(annotations); i += 2 {
		if eq.Annotations == nil {
			eq.Annotations = map[string]string{}
		}
		eq.Annotations[annotations[i]] = annotations[i+1]
	}
	return eq
}

func newSched(t *testing.T, rate OversellRate, quotas ...*koordv1alpha1.ElasticQuota) *Scheduler {
	t.Helper()
	s := NewScheduler(rate)
	for _, q := range quotas {
		if err := s.UpsertQuota(q); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func addUnits(t *testing.T, s *Scheduler, units ...QueueUnit) {
	t.Helper()
	for _, u := range units {
		if err := s.AddUnit(u); err != nil {
			t.Fatal(err)
		}
	}
}

// outcome is a cycle's decisions by unit name: "admit" or the pending reason.
func outcome(t *testing.T, ds []Decision) (map[string]string, map[string]Pending, []string) {
	t.Helper()
	got := map[string]string{}
	pend := map[string]Pending{}
	var admitted []string
	for _, d := range ds {
		name := d.UnitKey().Name
		if _, dup := got[name]; dup {
			t.Fatalf("two decisions for %s in one cycle", name)
		}
		switch d := d.(type) {
		case Admit:
			got[name] = "admit"
			admitted = append(admitted, name)
		case Pending:
			got[name] = d.Reason
			pend[name] = d
		}
	}
	return got, pend, admitted
}

func key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "default", Name: name}
}

// 004: "Because every level of the chain is evaluated, a job can be held in the
// queue by an ancestor quota even when its own quota still has capacity."
func TestCycleHoldsUnitOnExhaustedAncestor(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell,
		quota("org", "", map[string]string{"cpu": "10"}),
		quota("team-a", "org", map[string]string{"cpu": "8"}),
		quota("team-b", "org", map[string]string{"cpu": "8"}))
	addUnits(t, s, mkUnit("b1").Quota("team-b").CPU(6).Obj())
	if got, _, _ := outcome(t, s.Cycle()); got["b1"] != "admit" {
		t.Fatalf("b1: %v", got)
	}
	addUnits(t, s, mkUnit("a1").Quota("team-a").CPU(5).At(1).Obj(), mkUnit("a2").Quota("team-a").CPU(4).At(2).Obj())
	got, pend, _ := outcome(t, s.Cycle())
	if got["a1"] != ReasonFailedScheduling || !strings.Contains(pend["a1"].Message, "quotaName:org") {
		t.Errorf("a1 (5 CPUs; team-a has 8 free, org 4) = %s %q, want held by org", got["a1"], pend["a1"].Message)
	}
	if got["a2"] != "admit" {
		t.Errorf("a2 (4 CPUs) = %s, want admitted: Priority skips a unit that does not fit", got["a2"])
	}
}

// 004: "A job that does not carry the label does not resolve to any quota ... Its
// QueueUnit is created and then held in the pending list of the controller, which
// retries the mapping periodically. The unit is never admitted and no event is
// recorded for it, so this misconfiguration is silent".
func TestCycleUnitWithoutQuotaLabelStaysPendingSilently(t *testing.T) {
	t.Parallel()
	cases := map[string]QueueUnit{
		"no label":    mkUnit("u").CPU(1).Obj(),
		"empty label": mkUnit("u").Quota("").CPU(1).Obj(),
	}
	for name, u := range cases {
		s := newSched(t, NoOversell, quota("default", "", map[string]string{"cpu": "8"}))
		addUnits(t, s, u)
		for i := 0; i < 2; i++ {
			got, pend, _ := outcome(t, s.Cycle())
			if got["u"] != ReasonNoQuotaLabel || !pend["u"].Silent || pend["u"].Quota != "" {
				t.Errorf("%s, cycle %d: %+v, want silently pending on %s", name, i, pend["u"], ReasonNoQuotaLabel)
			}
		}
	}
}

// 004: "A Warning event with the reason QueueNotFound is then recorded once on the
// unit, with a message of the form queue <name> not found for queueUnit
// <namespace>/<name>, and the mapping is retried until a matching ElasticQuota
// appears."
func TestCycleUnknownQuotaIsQueueNotFoundUntilItAppears(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell)
	addUnits(t, s, mkUnit("training-job").Quota("team-z").CPU(1).Obj())
	_, pend, _ := outcome(t, s.Cycle())
	p := pend["training-job"]
	if p.Reason != QueueNotFoundReason || p.Message != "queue team-z not found for queueUnit default/training-job" || p.Silent {
		t.Errorf("pending = %+v", p)
	}
	if err := s.UpsertQuota(quota("team-z", "", map[string]string{"cpu": "1"})); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := outcome(t, s.Cycle()); got["training-job"] != "admit" {
		t.Errorf("after the quota appears: %v, want admitted", got)
	}
}

// 004: "Both conditions surface as a FailedScheduling event on the QueueUnit whose
// message contains one of the following texts: CheckUsage found cycle reference,
// item:..., quotaName:..., visited quota: ... / CheckUsage found quota not exist,
// item:..., quotaName:..., visited quota: ..."
func TestCycleCheckUsageErrorsAreFailedScheduling(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		quotas []*koordv1alpha1.ElasticQuota
		want   string
	}{
		{"cycle", []*koordv1alpha1.ElasticQuota{
			quota("a", "b", map[string]string{"cpu": "8"}), quota("b", "a", map[string]string{"cpu": "8"})},
			"CheckUsage found cycle reference, item:default/job, quotaName:a, visited quota: a,b"},
		{"missing parent", []*koordv1alpha1.ElasticQuota{quota("a", "org", map[string]string{"cpu": "8"})},
			"CheckUsage found quota not exist, item:default/job, quotaName:org, visited quota: a,org"},
		{"insufficient", []*koordv1alpha1.ElasticQuota{quota("a", "", map[string]string{"cpu": "1"})},
			"limited quotaName:a, limited resKey:cpu"},
	}
	for _, c := range cases {
		s := newSched(t, NoOversell, c.quotas...)
		addUnits(t, s, mkUnit("job").Quota("a").CPU(2).Obj())
		_, pend, _ := outcome(t, s.Cycle())
		if p := pend["job"]; p.Reason != ReasonFailedScheduling || !strings.Contains(p.Message, c.want) {
			t.Errorf("%s: %+v, want FailedScheduling containing %q", c.name, p, c.want)
		}
		if s.AdmittedCount() != 0 {
			t.Errorf("%s: a refused unit was admitted", c.name)
		}
	}
}

// Koord-Queue's queue order (schedulingqueuev2 less): higher priority first, then
// the older unit. Priority skips a unit that does not fit.
func TestCyclePriorityPolicyOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		units []QueueUnit
		want  []string
	}{
		{"higher priority first", []QueueUnit{
			mkUnit("low").Quota("q").CPU(3).Priority(1).At(0).Obj(),
			mkUnit("high").Quota("q").CPU(3).Priority(9).At(5).Obj()}, []string{"high"}},
		{"then older", []QueueUnit{
			mkUnit("young").Quota("q").CPU(3).At(5).Obj(),
			mkUnit("old").Quota("q").CPU(3).At(1).Obj()}, []string{"old"}},
		{"a unit that does not fit is skipped", []QueueUnit{
			mkUnit("big").Quota("q").CPU(5).Priority(9).Obj(),
			mkUnit("a").Quota("q").CPU(2).At(1).Obj(),
			mkUnit("b").Quota("q").CPU(2).At(2).Obj()}, []string{"a", "b"}},
	}
	for _, c := range cases {
		s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "4"}), "Priority"))
		addUnits(t, s, c.units...)
		_, _, admitted := outcome(t, s.Cycle())
		if strings.Join(admitted, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: admitted %v, want %v", c.name, admitted, c.want)
		}
	}
}

// Koord-Queue, Block: an unschedulable unit marks its quota blocked and later
// units of that quota are skipped; since a queue holds exactly one quota's units,
// "a head that does not fit blocks the rest of its queue". Other queues go on.
func TestCycleBlockPolicyHeadBlocksItsQueue(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"Block", "Priority"} {
		s := newSched(t, NoOversell,
			policy(quota("q", "", map[string]string{"cpu": "4"}), p),
			policy(quota("other", "", map[string]string{"cpu": "4"}), p))
		addUnits(t, s,
			mkUnit("first").Quota("q").CPU(2).At(0).Obj(),
			mkUnit("head").Quota("q").CPU(5).At(1).Obj(),
			mkUnit("small").Quota("q").CPU(1).At(2).Obj(),
			mkUnit("elsewhere").Quota("other").CPU(5).At(0).Obj(),
			mkUnit("elsewhere-small").Quota("other").CPU(1).At(1).Obj())
		got, pend, _ := outcome(t, s.Cycle())
		if got["first"] != "admit" || got["head"] != ReasonFailedScheduling {
			t.Errorf("%s: first %s, head %s", p, got["first"], got["head"])
		}
		wantSmall := "admit"
		if p == "Block" {
			wantSmall = ReasonQueueBlocked
		}
		if got["small"] != wantSmall || got["elsewhere-small"] != wantSmall {
			t.Errorf("%s: small %s, elsewhere-small %s, want %s", p, got["small"], got["elsewhere-small"], wantSmall)
		}
		if p == "Block" && !strings.Contains(pend["small"].Message, "blocked by default/head") {
			t.Errorf("Block message = %q", pend["small"].Message)
		}
	}
}

// Koord-Queue, Intelligent: units at or above koord-queue/priority-threshold
// (default 4) are retried when they do not fit and hold the queue; a unit below
// it that does not fit is skipped.
func TestCycleIntelligentPolicy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		annotations []string
		units       []QueueUnit
		want        map[string]string
	}{
		{"a high-priority unit that does not fit holds the queue", nil, []QueueUnit{
			mkUnit("high-big").Quota("q").CPU(5).Priority(4).Obj(),
			mkUnit("high-small").Quota("q").CPU(1).Priority(4).At(1).Obj(),
			mkUnit("low").Quota("q").CPU(1).Priority(1).Obj()},
			map[string]string{"high-big": ReasonFailedScheduling, "high-small": ReasonQueueBlocked, "low": ReasonQueueBlocked}},
		{"a low-priority unit that does not fit is skipped", nil, []QueueUnit{
			mkUnit("high").Quota("q").CPU(1).Priority(5).Obj(),
			mkUnit("low-big").Quota("q").CPU(5).Priority(3).Obj(),
			mkUnit("low-small").Quota("q").CPU(1).Priority(2).Obj()},
			map[string]string{"high": "admit", "low-big": ReasonFailedScheduling, "low-small": "admit"}},
		{"the threshold comes from koord-queue/priority-threshold", []string{PriorityThresholdAnnotation, "10"}, []QueueUnit{
			mkUnit("big").Quota("q").CPU(5).Priority(5).Obj(),
			mkUnit("small").Quota("q").CPU(1).Priority(5).At(1).Obj()},
			map[string]string{"big": ReasonFailedScheduling, "small": "admit"}},
	}
	for _, c := range cases {
		s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "4"}), "Intelligent", c.annotations...))
		addUnits(t, s, c.units...)
		got, _, _ := outcome(t, s.Cycle())
		for n, w := range c.want {
			if got[n] != w {
				t.Errorf("%s: %s = %s, want %s", c.name, n, got[n], w)
			}
		}
	}
}

// 004: "AddQueueFail event on a Queue: The requested policy is not registered by
// the queue factory, which is the case for Round and for FIFO." The label only
// selects "Priority, Block, Round or Intelligent. Otherwise Priority", so FIFO
// on the label means Priority and only Round reaches the factory.
func TestCycleUnregisteredPolicyIsAddQueueFail(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"Round": ReasonAddQueueFail, "FIFO": "admit", "Intelligent": "admit", "Block": "admit"}
	for p, want := range cases {
		s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "4"}), p))
		addUnits(t, s, mkUnit("u").Quota("q").CPU(1).Obj())
		got, pend, _ := outcome(t, s.Cycle())
		if got["u"] != want {
			t.Errorf("policy %s: %s, want %s", p, got["u"], want)
		}
		if want == ReasonAddQueueFail && !strings.Contains(pend["u"].Message, "policy Round is not registered by the queue factory") {
			t.Errorf("message = %q", pend["u"].Message)
		}
	}
}

// Finishing a unit releases its quota on every level it was charged to, so the
// next unit fits.
func TestFinishReleasesQuotaOnTheChain(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell,
		quota("org", "", map[string]string{"cpu": "4"}),
		quota("team-a", "org", map[string]string{"cpu": "4"}),
		quota("team-b", "org", map[string]string{"cpu": "4"}))
	addUnits(t, s, mkUnit("a").Quota("team-a").CPU(4).Obj(), mkUnit("b").Quota("team-b").CPU(4).At(1).Obj())
	if got, _, _ := outcome(t, s.Cycle()); got["a"] != "admit" || got["b"] != ReasonFailedScheduling {
		t.Fatalf("first cycle: %v", got)
	}
	if u := s.Cache().Used("org"); u.Cpu().MilliValue() != 4000 {
		t.Errorf("org used %v, want 4 CPUs", u)
	}
	if err := s.FinishUnit(key("a")); err != nil {
		t.Fatal(err)
	}
	if len(s.Cache().Used("org")) != 0 || len(s.Cache().Used("team-a")) != 0 {
		t.Errorf("after finishing: org %v, team-a %v, want nothing", s.Cache().Used("org"), s.Cache().Used("team-a"))
	}
	if got, _, _ := outcome(t, s.Cycle()); got["b"] != "admit" {
		t.Errorf("after finishing a: %v, want b admitted", got)
	}
	if err := s.FinishUnit(key("a")); err == nil {
		t.Error("finishing a unit twice must fail")
	}
}

// 004: usage is evaluated "against its own min and max, scaled by the oversell
// rate configured with the flag --oversellrate".
func TestCycleOversellRate(t *testing.T) {
	t.Parallel()
	for rate, want := range map[string]int{"1": 2, "1.5": 3, "0.5": 1} {
		r, err := ParseOversellRate(rate)
		if err != nil {
			t.Fatal(err)
		}
		s := newSched(t, r, quota("q", "", map[string]string{"cpu": "8"}))
		for i := 0; i < 4; i++ {
			addUnits(t, s, mkUnit(string(rune('a'+i))).Quota("q").CPU(4).At(i).Obj())
		}
		if _, _, admitted := outcome(t, s.Cycle()); len(admitted) != want {
			t.Errorf("rate %s: %d admitted of 4-CPU units against max 8, want %d", rate, len(admitted), want)
		}
	}
}

// 004: "Deleting the ElasticQuota deletes the Queue. Units that are still enqueued
// lose their queue and are reported through QueueNotFound events until a
// matching quota exists again."
func TestDeletedQuotaLeavesUnitsQueueNotFound(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, quota("q", "", map[string]string{"cpu": "1"}))
	addUnits(t, s, mkUnit("u").Quota("q").CPU(2).Obj())
	if got, _, _ := outcome(t, s.Cycle()); got["u"] != ReasonFailedScheduling {
		t.Fatalf("%v", got)
	}
	s.DeleteQuota("q")
	if got, _, _ := outcome(t, s.Cycle()); got["u"] != QueueNotFoundReason {
		t.Errorf("after deletion: %v, want QueueNotFound", got)
	}
	if err := s.UpsertQuota(quota("q", "", map[string]string{"cpu": "2"})); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := outcome(t, s.Cycle()); got["u"] != "admit" {
		t.Errorf("after re-creation: %v, want admitted", got)
	}
}

// 004: "The Priority and Block policies read the wait-for-pods-running,
// preemption and scan depth annotations, while the Intelligent policy reads
// koord-queue/priority-threshold only and is not affected by the other three."
func TestCycleMaxDepthBoundsPriorityAndBlockOnly(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"Priority": ReasonBeyondMaxDepth, "Block": ReasonBeyondMaxDepth, "Intelligent": "admit"}
	for p, want := range cases {
		s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "8"}), p, MaxDepthAnnotation, "1"))
		addUnits(t, s, mkUnit("first").Quota("q").CPU(1).Obj(), mkUnit("second").Quota("q").CPU(1).At(1).Obj())
		got, _, _ := outcome(t, s.Cycle())
		if got["first"] != "admit" || got["second"] != want {
			t.Errorf("%s: first %s, second %s, want admit and %s", p, got["first"], got["second"], want)
		}
	}
}

// One cycle admits everything that fits: a second cycle without a change admits
// nothing, and a quota change keeps what is admitted.
func TestCycleSettlesInOnePassAndQuotaChangeKeepsAdmitted(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell,
		quota("org", "", map[string]string{"cpu": "6"}),
		policy(quota("a", "org", map[string]string{"cpu": "4"}), "Block"),
		quota("b", "org", map[string]string{"cpu": "4"}))
	for i, q := range []string{"a", "b", "a", "b", "a", "b"} {
		addUnits(t, s, mkUnit(q+string(rune('0'+i))).Quota(q).CPU(int64(1+i%3)).At(i).Obj())
	}
	first := len(s.Cycle())
	if first != 6 {
		t.Fatalf("first cycle: %d decisions for 6 units", first)
	}
	if _, _, admitted := outcome(t, s.Cycle()); len(admitted) != 0 {
		t.Errorf("a second cycle admitted %v", admitted)
	}
	before := s.AdmittedCount()
	if err := s.UpsertQuota(quota("org", "", map[string]string{"cpu": "1"})); err != nil {
		t.Fatal(err)
	}
	s.Cycle()
	if s.AdmittedCount() != before {
		t.Errorf("shrinking org changed the admitted units: %d, was %d", s.AdmittedCount(), before)
	}
}

func TestAddUnitTwiceFailsAndDeleteReleases(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, quota("q", "", map[string]string{"cpu": "1"}))
	addUnits(t, s, mkUnit("u").Quota("q").CPU(1).Obj())
	if err := s.AddUnit(mkUnit("u").Quota("q").Obj()); err == nil {
		t.Error("adding a queued unit again must fail")
	}
	s.Cycle()
	if err := s.AddUnit(mkUnit("u").Quota("q").Obj()); err == nil {
		t.Error("adding an admitted unit again must fail")
	}
	if !s.DeleteUnit(key("u")) || len(s.Cache().Used("q")) != 0 {
		t.Errorf("deleting the admitted unit must release its quota: %v", s.Cache().Used("q"))
	}
	if s.DeleteUnit(key("u")) {
		t.Error("deleting an unknown unit reported true")
	}
}
