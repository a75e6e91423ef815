package elasticquota

import (
	"errors"
	"testing"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

// Issue 14: "koordinator-root-quota and every quota on a unit's chain are
// charged with its usage, the root included, and that usage is reported". The
// root is charged whether or not it is written as an ElasticQuota, and released
// with the rest of the chain.
func TestReserveChargesTheRootToo(t *testing.T) {
	t.Parallel()
	for _, withRootObject := range []bool{false, true} {
		c := NewCache()
		if withRootObject {
			if err := c.Upsert(quota(koordv1alpha1.RootQuotaName, "", map[string]string{"cpu": "1"})); err != nil {
				t.Fatal(err)
			}
		}
		for _, eq := range []*koordv1alpha1.ElasticQuota{
			quota("org", "", map[string]string{"cpu": "8"}),
			quota("team-a", "org", map[string]string{"cpu": "8"}),
			quota("team-b", "-", map[string]string{"cpu": "8"}),
		} {
			if err := c.Upsert(eq); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Reserve("a", "team-a", cpu(3)); err != nil {
			t.Fatal(err)
		}
		if err := c.Reserve("b", "team-b", cpu(2)); err != nil {
			t.Fatal(err)
		}
		rootUsed, orgUsed := c.Used(koordv1alpha1.RootQuotaName), c.Used("org")
		if got := rootUsed.Cpu().MilliValue(); got != 5000 {
			t.Errorf("root object %v: root used %dm CPU, want 5000m (both chains reach it)", withRootObject, got)
		}
		if got := orgUsed.Cpu().MilliValue(); got != 3000 {
			t.Errorf("root object %v: org used %dm CPU, want 3000m", withRootObject, got)
		}
		c.Unreserve("a")
		c.Unreserve("b")
		if got := c.Used(koordv1alpha1.RootQuotaName); len(got) != 0 {
			t.Errorf("root object %v: root used %v after every unit left, want nothing", withRootObject, got)
		}
	}
}

// 004: CheckUsage "walks the chain from the quota of the unit up to, but
// excluding, koordinator-root-quota": the root's usage is reported, never
// checked, so a root whose max is smaller than what it carries holds nothing.
func TestCheckUsageStillExcludesTheRoot(t *testing.T) {
	t.Parallel()
	c := NewCache()
	for _, eq := range []*koordv1alpha1.ElasticQuota{
		quota(koordv1alpha1.RootQuotaName, "", map[string]string{"cpu": "1"}),
		quota("team-a", "", map[string]string{"cpu": "8"}),
	} {
		if err := c.Upsert(eq); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Reserve("a", "team-a", cpu(4)); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckUsage("default/b", "team-a", cpu(4), NoOversell); err != nil {
		t.Errorf("CheckUsage checked the root: %v", err)
	}
	if err := c.CheckUsage("default/c", "team-a", cpu(5), NoOversell); !errors.Is(err, ErrInsufficient) {
		t.Errorf("team-a's own max must still hold: %v", err)
	}
}

// The scheduler reports the root's usage: through Quotas when the root is an
// ElasticQuota, and through QuotasWithRoot always, listing a root that is not
// written as an ElasticQuota with no parent, min or max.
func TestQuotasReportTheRootsUsage(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell,
		quota("team-a", "", map[string]string{"cpu": "8"}),
		quota("team-b", "", map[string]string{"cpu": "8"}))
	addUnits(t, s, mkUnit("a").Quota("team-a").CPU(3).Obj(), mkUnit("b").Quota("team-b").CPU(2).Obj())
	s.Cycle()

	byName := func(qs []QuotaStatus) map[string]QuotaStatus {
		m := map[string]QuotaStatus{}
		for _, q := range qs {
			m[q.Name] = q
		}
		return m
	}
	got := s.QuotasWithRoot()
	if len(got) != 3 || got[0].Name != koordv1alpha1.RootQuotaName {
		t.Fatalf("QuotasWithRoot = %+v, want the root first (by name) and both teams", got)
	}
	root := got[0]
	if root.Used.Cpu().MilliValue() != 5000 || root.Parent != "" || root.Min != nil || root.Max != nil {
		t.Errorf("implicit root = %+v, want used 5 CPUs and no parent, min or max", root)
	}

	if err := s.UpsertQuota(quota(koordv1alpha1.RootQuotaName, "", map[string]string{"cpu": "100"})); err != nil {
		t.Fatal(err)
	}
	for name, list := range map[string][]QuotaStatus{"Quotas": s.Quotas(), "QuotasWithRoot": s.QuotasWithRoot()} {
		m := byName(list)
		if len(list) != 3 {
			t.Errorf("%s lists %d quotas, want 3 (the root once)", name, len(list))
		}
		r := m[koordv1alpha1.RootQuotaName]
		if r.Used.Cpu().MilliValue() != 5000 || r.Max.Cpu().Value() != 100 {
			t.Errorf("%s: root = %+v, want used 5 CPUs and its max", name, r)
		}
	}
	if got := NewScheduler(NoOversell).QuotasWithRoot(); len(got) != 0 {
		t.Errorf("no quotas, yet QuotasWithRoot = %+v", got)
	}
}
