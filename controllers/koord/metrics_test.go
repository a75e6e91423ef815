package koord

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
)

// The metrics: used, min and max per quota and resource (the root
// included); admissions and attempts per queue; pending units per queue and
// reason; unresolved units per namespace and reason.
func TestMetricsAfterACycle(t *testing.T) {
	s := newSyncState(elasticquota.NoOversell)
	q := testQuota("team", "4")
	q.Spec.Min = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	if errs := s.syncQuotas([]koordv1alpha1.ElasticQuota{q}, nil); len(errs) > 0 {
		t.Fatal(errs)
	}
	unlabelled := testUnit("nolabel", "", "1", "", "1")
	unlabelled.Labels = nil
	s.syncUnits([]queuev1alpha1.QueueUnit{
		testUnit("fits", "team", "3", queuev1alpha1.Enqueued, "1"),
		testUnit("too-big", "team", "2", queuev1alpha1.Enqueued, "1"),
		testUnit("lost", "nowhere", "1", queuev1alpha1.Enqueued, "1"),
		unlabelled,
	})
	m := newMetrics(prometheus.NewRegistry())
	m.observe(s, s.sched.Cycle(), 0)
	reg := prometheus.NewRegistry()
	for _, c := range m.collectors() {
		reg.MustRegister(c)
	}
	want := `
# HELP quokka_koord_queue_admission_attempts_total Usage checks of QueueUnits, per queue and result (admitted or refused)
# TYPE quokka_koord_queue_admission_attempts_total counter
quokka_koord_queue_admission_attempts_total{queue="team",result="admitted"} 1
quokka_koord_queue_admission_attempts_total{queue="team",result="refused"} 1
# HELP quokka_koord_queue_pending_units QueueUnits waiting in a queue, per queue and reason
# TYPE quokka_koord_queue_pending_units gauge
quokka_koord_queue_pending_units{queue="team",reason="FailedScheduling"} 1
# HELP quokka_koord_queue_unresolved_units QueueUnits that map to no queue (no quota label, or a quota that does not exist), per namespace and reason
# TYPE quokka_koord_queue_unresolved_units gauge
quokka_koord_queue_unresolved_units{namespace="ns",reason="NoQuotaLabel"} 1
quokka_koord_queue_unresolved_units{namespace="ns",reason="QueueNotFound"} 1
# HELP quokka_koord_quota_max An ElasticQuota's spec.max, per resource (canonical units), before the oversell rate
# TYPE quokka_koord_quota_max gauge
quokka_koord_quota_max{quota="team",resource="cpu"} 4000
# HELP quokka_koord_quota_min An ElasticQuota's spec.min, per resource (canonical units)
# TYPE quokka_koord_quota_min gauge
quokka_koord_quota_min{quota="team",resource="cpu"} 2000
# HELP quokka_koord_quota_used What admitted QueueUnits charge to an ElasticQuota and its descendants, per resource (canonical units: cpu in millicores)
# TYPE quokka_koord_quota_used gauge
quokka_koord_quota_used{quota="koordinator-root-quota",resource="cpu"} 3000
quokka_koord_quota_used{quota="team",resource="cpu"} 3000
`
	names := []string{"quokka_koord_queue_admission_attempts_total", "quokka_koord_queue_pending_units",
		"quokka_koord_queue_unresolved_units", "quokka_koord_quota_max", "quokka_koord_quota_min", "quokka_koord_quota_used"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}
