package scheduler

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Ports of Kueue's admission fair sharing tables (kubernetes-sigs/kueue at
// ff69552): pkg/scheduler/scheduler_afs_test.go and
// pkg/controller/core/localqueue_controller_test.go. Kueue sets a
// LocalQueue's usage in its ledger; the ports give it as the LocalQueue's
// status.fairSharing.admissionFairSharingStatus, which the engine seeds from.

// kueueAFSConfig is TestScheduleForAFS's: a half-life of 10 s, sampled every
// second.
func kueueAFSConfig() *config.AdmissionFairSharing {
	return &config.AdmissionFairSharing{UsageHalfLifeTime: metav1.Duration{Duration: 10 * time.Second},
		UsageSamplingInterval: metav1.Duration{Duration: time.Second}}
}

// Kueue: pkg/scheduler/scheduler_afs_test.go, TestScheduleForAFS: cq1 (8
// cpus of default, UsageBasedAdmissionFairSharing) fed by lq-a, lq-b, lq-c
// (weight 1) and lq-zero (weight 0). Kueue runs one scheduling cycle per
// workload; so do the ports, all at the same instant.
func TestKueueScheduleForAFS(t *testing.T) {
	type wl struct {
		name, lq, cpu string
		created       time.Duration
	}
	cases := []struct {
		name string
		// gateOff turns Kueue's AdmissionFairSharing gate off.
		gateOff      bool
		initialUsage map[string]string // cpus by LocalQueue
		deleteQueue  string
		workloads    []wl
		want         []string // admitted, in any order
	}{
		{name: "admits workload from less active localqueue",
			initialUsage: map[string]string{"lq-a": "8", "lq-b": "2"},
			workloads:    []wl{{"wl-a1", "lq-a", "8", 0}, {"wl-b1", "lq-b", "8", time.Second}},
			want:         []string{"wl-b1"}},
		// "A LocalQueue with weight 0 must be the most disadvantaged, so its
		// workload loses admission to a normal-weight queue even though it was
		// submitted first."
		{name: "does not prioritize a zero-weight localqueue",
			initialUsage: map[string]string{"lq-a": "0", "lq-zero": "0"},
			workloads:    []wl{{"wl-z1", "lq-zero", "8", 0}, {"wl-a1", "lq-a", "8", time.Second}},
			want:         []string{"wl-a1"}},
		// "deleting another LQ does not impact scheduling to the existing
		// LQ". Kueue deletes lq-b from the API server only, so its queue
		// manager still holds wl-b1, which it admits too; the engine is told
		// of the deletion, and a workload whose LocalQueue is gone waits for
		// it (as in Kueue once its LocalQueue handler has run).
		{name: "admits workload when another LQ is deleted",
			initialUsage: map[string]string{"lq-a": "0", "lq-b": "0"},
			deleteQueue:  "lq-b",
			workloads:    []wl{{"wl-a1", "lq-a", "4", 0}, {"wl-b1", "lq-b", "4", 0}},
			want:         []string{"wl-a1"}},
		{name: "without AFS: classic admission decision ignores queue usage",
			gateOff:      true,
			initialUsage: map[string]string{"lq-a": "8", "lq-b": "2"},
			workloads:    []wl{{"wl-a1", "lq-a", "8", 0}, {"wl-b1", "lq-b", "8", time.Second}},
			want:         []string{"wl-a1"}},
		// Equal usage: wl-a1 goes first by creation; its entry penalty then
		// puts lq-a behind lq-b.
		{name: "admits one workload from each localqueue when quota is limited",
			initialUsage: map[string]string{"lq-a": "4", "lq-b": "4"},
			workloads: []wl{{"wl-a1", "lq-a", "4", 0}, {"wl-a2", "lq-a", "4", time.Second},
				{"wl-b1", "lq-b", "4", 2 * time.Second}, {"wl-b2", "lq-b", "4", 3 * time.Second}},
			want: []string{"wl-a1", "wl-b1"}},
		{name: "schedules normally when queues have equal usage",
			initialUsage: map[string]string{"lq-a": "2", "lq-b": "2", "lq-c": "2"},
			workloads:    []wl{{"wl-a1", "lq-a", "4", 0}, {"wl-b1", "lq-b", "3", 0}, {"wl-c1", "lq-c", "1", 0}},
			want:         []string{"wl-a1", "wl-b1", "wl-c1"}},
		// lq-b has no usage recorded at all: it is idle.
		{name: "admits workload from lq-b with uninitialized cache",
			initialUsage: map[string]string{"lq-a": "8"},
			workloads:    []wl{{"wl-a1", "lq-a", "8", 0}, {"wl-b1", "lq-b", "8", time.Second}},
			want:         []string{"wl-b1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Configuration{AdmissionFairSharing: kueueAFSConfig(),
				FeatureGates: map[string]bool{string(config.FeatureAdmissionFairSharing): !tc.gateOff}}
			objs := []any{MakeFlavor("default").Obj(),
				MakeClusterQueue("cq1").Quota("default", corev1.ResourceCPU, "8").AdmissionFairSharing().Obj()}
			for _, name := range []string{"lq-a", "lq-b", "lq-c", "lq-zero"} {
				lq := MakeLocalQueue("default", name, "cq1").FairWeight("1")
				if name == "lq-zero" {
					lq.FairWeight("0")
				}
				if u, ok := tc.initialUsage[name]; ok {
					lq.ConsumedResources(now, map[corev1.ResourceName]string{corev1.ResourceCPU: u})
				}
				objs = append(objs, lq.Obj())
			}
			s := world(t, OptionsFromConfiguration(cfg), objs...)
			if tc.deleteQueue != "" {
				s.DeleteLocalQueue("default", tc.deleteQueue)
			}
			for _, w := range tc.workloads {
				apply(t, s, MakeWorkload("default", w.name).Queue(w.lq).Request(corev1.ResourceCPU, w.cpu).Created(w.created).Obj())
			}
			var got []string
			for range tc.workloads {
				got = append(got, admittedNames(s.Cycle(now))...)
			}
			slices.Sort(got)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("admitted %v, want %v", got, tc.want)
			}
		})
	}
}

// Kueue: pkg/scheduler/scheduler_afs_test.go, TestShouldApplyEntryPenalty: an
// admission charges its LocalQueue an entry penalty (4 cpus × (1 − 0.5^(1 s /
// 10 s))) only when admission fair sharing is configured and the
// ClusterQueue is in UsageBasedAdmissionFairSharing mode. Its fourth case ("skips a
// second-pass workload that already holds a quota reservation") needs a
// second scheduling pass (topology or admission checks), which Quokka does
// not have.
func TestKueueShouldApplyEntryPenalty(t *testing.T) {
	penalty := 4 * (1 - 0.9330329915368074) // 1 − 0.5^0.1
	for _, tc := range []struct {
		name      string
		noConfig  bool
		usageMode bool
		want      float64 // -1: no usage tracked
	}{
		{name: "pushes for a first-pass workload on a usage-based ClusterQueue", usageMode: true, want: penalty},
		{name: "skips when no AdmissionFairSharing config is set", noConfig: true, usageMode: true, want: -1},
		{name: "skips for a ClusterQueue without usage-based admission mode", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts Options
			if !tc.noConfig {
				opts.AdmissionFairSharing = kueueAFSConfig()
			}
			cq := MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "8")
			if tc.usageMode {
				cq.AdmissionFairSharing()
			}
			s := world(t, opts, MakeFlavor("default").Obj(), cq.Obj(), MakeLocalQueue("ns", "lq", "cq").Obj(),
				MakeWorkload("ns", "wl").Queue("lq").Request(corev1.ResourceCPU, "4").Obj())
			if got := admittedNames(s.Cycle(now)); len(got) != 1 {
				t.Fatalf("admitted %v, want wl", got)
			}
			v, _ := s.LocalQueueSnapshot("ns", "lq")
			got := -1.0
			if v.ConsumedResources != nil {
				q := v.ConsumedResources[corev1.ResourceCPU]
				got = q.AsApproximateFloat64()
			}
			if d := got - tc.want; d > 1e-8 || d < -1e-8 {
				t.Fatalf("LocalQueue's usage right after the admission: %v cpu, want %v", got, tc.want)
			}
		})
	}
}

// Kueue: pkg/controller/core/localqueue_controller_test.go,
// TestLocalQueueReconcile, its admission fair sharing cases. Kueue's ledger
// entry last updated five minutes (four, in one case) before the reconcile
// is, here, the usage the LocalQueue's status gives the engine, sampled first
// at t0; running workloads are admitted before the engine starts (so they
// pay no entry penalty, as in Kueue's cache); the reconcile is the cycle at
// t0 + elapsed. Quantities compare exactly: the engine computes Kueue's
// decimals ("6828427124n").
//
// Not ported: "local queue decaying usage resets to 0 when half life is 0"
// (Quokka refuses a half-life of 0, README), "clamps a future LastUpdate
// stamped by a concurrent settlement" and "AFS reconcile skips when cache is
// recent but status lacks AdmissionFairSharingStatus" (races and requeue
// timing of Kueue's concurrent controllers; the engine's time only moves
// forward, TestKueueFutureLastUpdateIsKept), and "local queue seed merges
// persisted status into a settlement-created entry" (the engine knows a
// LocalQueue, and seeds it, before any of its workloads is admitted).
func TestKueueLocalQueueDecayingUsage(t *testing.T) {
	type running struct {
		name, resource, amount, flavor string
	}
	cases := []struct {
		name       string
		halfLife   time.Duration
		status     map[corev1.ResourceName]string // nil: no status
		restatus   map[corev1.ResourceName]string // a later status, once the engine has usage
		running    []running
		elapsed    time.Duration
		want       map[corev1.ResourceName]string
		wantSample bool // the cycle at t0 + elapsed sampled
	}{
		{name: "local queue decaying usage decays if there is no running workloads", halfLife: 5 * time.Minute,
			status: map[corev1.ResourceName]string{"cpu": "8"}, elapsed: 5 * time.Minute,
			want: map[corev1.ResourceName]string{"cpu": "4"}, wantSample: true},
		{name: "local queue decaying usage sums the previous state and running workloads", halfLife: 5 * time.Minute,
			status:  map[corev1.ResourceName]string{"cpu": "8"},
			running: []running{{"wl", "cpu", "4", "rf"}}, elapsed: 5 * time.Minute,
			want: map[corev1.ResourceName]string{"cpu": "6"}, wantSample: true},
		{name: "local queue decaying usage sums the usage from different flavors and resources", halfLife: 5 * time.Minute,
			status:  map[corev1.ResourceName]string{"cpu": "8", "GPU": "16"},
			running: []running{{"wl-1", "cpu", "2", "rf-1"}, {"wl-2", "cpu", "2", "rf-2"}, {"wl-3", "GPU", "4", "rf-3"}},
			elapsed: 5 * time.Minute,
			want:    map[corev1.ResourceName]string{"cpu": "6", "GPU": "10"}, wantSample: true},
		{name: "local queue decaying usage sums the previous state and running workloads half time twice larger than sampling",
			halfLife: 10 * time.Minute, status: map[corev1.ResourceName]string{"cpu": "8"},
			running: []running{{"wl", "cpu", "4", "rf"}}, elapsed: 5 * time.Minute,
			want: map[corev1.ResourceName]string{"cpu": "6828427124n"}, wantSample: true},
		{name: "local queue decaying usage sums the previous state and running workloads with long half time",
			halfLife: 24 * time.Hour, status: map[corev1.ResourceName]string{"cpu": "8"}, elapsed: 5 * time.Minute,
			want: map[corev1.ResourceName]string{"cpu": "7980769063n"}, wantSample: true},
		{name: "local queue decaying usage sums the previous state and running GPU workloads half time twice larger than sampling",
			halfLife: 10 * time.Minute, status: map[corev1.ResourceName]string{"GPU": "8"},
			running: []running{{"wl", "GPU", "4", "rf"}}, elapsed: 5 * time.Minute,
			want: map[corev1.ResourceName]string{"GPU": "6828427124n"}, wantSample: true},
		{name: "local queue decaying usage is not reconciled if not enough time has passed", halfLife: 5 * time.Minute,
			status: map[corev1.ResourceName]string{"cpu": "8"}, elapsed: 4 * time.Minute,
			want: map[corev1.ResourceName]string{"cpu": "8"}},
		{name: "local queue with uninitialized cache initializes status", halfLife: 5 * time.Minute,
			want: map[corev1.ResourceName]string{}},
		// "The admitted workload must not be counted at full weight here."
		{name: "local queue with uninitialized cache and no prior status seeds empty usage", halfLife: 5 * time.Minute,
			running: []running{{"wl", "cpu", "4", "rf"}},
			want:    map[corev1.ResourceName]string{"cpu": "0"}},
		// "the persisted status EMA (8 CPU) is restored verbatim; the first
		// tick after seeding folds no live usage."
		{name: "local queue with uninitialized cache seeds from persisted status usage", halfLife: 5 * time.Minute,
			status: map[corev1.ResourceName]string{"cpu": "8"}, running: []running{{"wl", "cpu", "4", "rf"}},
			want: map[corev1.ResourceName]string{"cpu": "8"}},
		// "the persisted 8 CPU must not be added again; the tick decays the
		// entry (2 CPU) toward live usage (4 CPU): 2*0.5 + 4*0.5 = 3."
		{name: "local queue seed does not re-merge persisted status into an accounted entry", halfLife: 5 * time.Minute,
			status: map[corev1.ResourceName]string{"cpu": "2"}, restatus: map[corev1.ResourceName]string{"cpu": "8"},
			running: []running{{"wl", "cpu", "4", "rf"}}, elapsed: 5 * time.Minute,
			want: map[corev1.ResourceName]string{"cpu": "3"}, wantSample: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{AdmissionFairSharing: &config.AdmissionFairSharing{
				UsageHalfLifeTime:     metav1.Duration{Duration: tc.halfLife},
				UsageSamplingInterval: metav1.Duration{Duration: 5 * time.Minute}}}
			cq := MakeClusterQueue("cq")
			for _, f := range []string{"rf", "rf-1", "rf-2", "rf-3"} {
				cq.Quota(f, corev1.ResourceCPU, "100").Quota(f, "GPU", "100")
			}
			lq := MakeLocalQueue("default", "lq", "cq").FairWeight("1")
			if tc.status != nil {
				lq.ConsumedResources(now.Add(-tc.elapsed), tc.status)
			}
			objs := []any{MakeFlavor("rf").Obj(), MakeFlavor("rf-1").Obj(), MakeFlavor("rf-2").Obj(), MakeFlavor("rf-3").Obj(),
				cq.Obj(), lq.Obj()}
			for _, r := range tc.running {
				objs = append(objs, MakeWorkload("default", r.name).Queue("lq").
					Request(corev1.ResourceName(r.resource), r.amount).ReserveQuota("cq", r.flavor).AdmittedAt(0).Obj())
			}
			s := world(t, opts, objs...)
			s.Cycle(now)
			if tc.restatus != nil {
				apply(t, s, lq.ConsumedResources(now, tc.restatus).Obj())
			}
			s.Cycle(now.Add(tc.elapsed))
			v, _ := s.LocalQueueSnapshot("default", "lq")
			if v.ConsumedResources == nil {
				t.Fatal("no usage tracked")
			}
			if len(v.ConsumedResources) != len(tc.want) {
				t.Fatalf("consumed %v, want %v", v.ConsumedResources, tc.want)
			}
			for r, w := range tc.want {
				got := v.ConsumedResources[r]
				if got.Cmp(resource.MustParse(w)) != 0 {
					t.Errorf("consumed %s: %s, want %s", r, got.String(), w)
				}
			}
			wantAt := now
			if tc.wantSample {
				wantAt = now.Add(tc.elapsed)
			}
			if !v.ConsumedAt.Equal(wantAt) {
				t.Errorf("last update %v, want %v", v.ConsumedAt, wantAt)
			}
		})
	}
}

// Kueue: pkg/cache/queue/cluster_queue_test.go, TestFsAdmission: which
// workload heads the ClusterQueue. Kueue pops its heap; the ports give cq one
// cpu, room for one of the two 1-cpu workloads, and the head is the one
// admitted.
func TestKueueFsAdmission(t *testing.T) {
	type wl struct {
		name, lq string
		priority int32
	}
	cases := []struct {
		name      string
		usageMode bool
		noConfig  bool
		weights   map[corev1.ResourceName]float64
		lqWeights map[string]string
		usage     map[string]map[corev1.ResourceName]string
		workloads []wl
		want      string
	}{
		{name: "workloads are ordered by LQ usage, instead of priorities", usageMode: true,
			usage:     map[string]map[corev1.ResourceName]string{"lqA": {"cpu": "2"}, "lqB": {"cpu": "1"}},
			workloads: []wl{{"wlA-high", "lqA", 2}, {"wlB-low", "lqB", 1}}, want: "wlB-low"},
		{name: "workloads are ordered by LQ usage with respect to resource weights", usageMode: true,
			weights: map[corev1.ResourceName]float64{"cpu": 0, "example.com/gpu": 1},
			usage: map[string]map[corev1.ResourceName]string{"lqA": {"cpu": "1", "example.com/gpu": "10"},
				"lqB": {"cpu": "1000", "example.com/gpu": "1"}},
			workloads: []wl{{"wlA-high", "lqA", 2}, {"wlB-low", "lqB", 1}}, want: "wlB-low"},
		{name: "workloads are ordered by LQ usage with respect to LQs' fair sharing weights", usageMode: true,
			lqWeights: map[string]string{"lqB": "2"},
			usage:     map[string]map[corev1.ResourceName]string{"lqA": {"cpu": "10"}, "lqB": {"cpu": "6"}},
			workloads: []wl{{"wlA-high", "lqA", 2}, {"wlB-low", "lqB", 1}}, want: "wlB-low"},
		{name: "workloads with the same LQ usage are ordered by priority", usageMode: true,
			usage:     map[string]map[corev1.ResourceName]string{"lqA": {"cpu": "10"}},
			workloads: []wl{{"wlA-low", "lqA", 1}, {"wlA-high", "lqA", 2}}, want: "wlA-high"},
		{name: "workloads with NoFairSharing CQ are ordered by priority",
			workloads: []wl{{"wlA-low", "lqA", 1}, {"wlA-high", "lqA", 2}}, want: "wlA-high"},
		{name: "workloads with no FS config are ordered by priority", noConfig: true,
			workloads: []wl{{"wlA-low", "lqA", 1}, {"wlA-high", "lqA", 2}}, want: "wlA-high"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts Options
			if !tc.noConfig {
				opts.AdmissionFairSharing = kueueAFSConfig()
				opts.AdmissionFairSharing.ResourceWeights = tc.weights
			}
			cq := MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "1")
			if tc.usageMode {
				cq.AdmissionFairSharing()
			}
			objs := []any{MakeFlavor("default").Obj(), cq.Obj()}
			for _, name := range []string{"lqA", "lqB"} {
				lq := MakeLocalQueue("default", name, "cq").FairWeight("1")
				if w, ok := tc.lqWeights[name]; ok {
					lq.FairWeight(w)
				}
				if u, ok := tc.usage[name]; ok {
					lq.ConsumedResources(now, u)
				}
				objs = append(objs, lq.Obj())
			}
			for _, w := range tc.workloads {
				objs = append(objs, MakeWorkload("default", w.name).Queue(w.lq).Priority(w.priority).
					Request(corev1.ResourceCPU, "1").Obj())
			}
			s := world(t, opts, objs...)
			if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("admitted %v, want %s at the head", got, tc.want)
			}
		})
	}
}

// Kueue: pkg/controller/core/localqueue_controller_test.go,
// TestLocalQueueReconcileReportsAdmissionFairSharingUsageMetric: resource
// weights cpu 2 and GPU 10, LocalQueue weight 2, usage 8 cpus and 4 GPUs one
// half-life ago, decayed to 4 and 2. Kueue's case also has a penalty pending
// (1 cpu, 1 GPU) between an admission and its settlement, and reports
// ((4+1)×2 + (2+1)×10)/2 = 20; the engine settles an admission at once, so
// the port has none pending and the gauge's value is (4×2 + 2×10)/2 = 14,
// the key the LocalQueue is ordered by.
func TestKueueLocalQueueAdmissionFairSharingUsageMetric(t *testing.T) {
	opts := Options{AdmissionFairSharing: &config.AdmissionFairSharing{
		UsageHalfLifeTime:     metav1.Duration{Duration: 5 * time.Minute},
		UsageSamplingInterval: metav1.Duration{Duration: 5 * time.Minute},
		ResourceWeights:       map[corev1.ResourceName]float64{corev1.ResourceCPU: 2, "GPU": 10}}}
	s := world(t, opts, MakeFlavor("default").Obj(),
		MakeClusterQueue("cq-afs-metric").Quota("default", corev1.ResourceCPU, "8").AdmissionFairSharing().Obj(),
		MakeLocalQueue("default", "lq-afs-metric", "cq-afs-metric").FairWeight("2").
			ConsumedResources(now, map[corev1.ResourceName]string{corev1.ResourceCPU: "8", "GPU": "4"}).Obj())
	s.Cycle(now)
	s.Cycle(now.Add(5 * time.Minute))
	v, _ := s.LocalQueueSnapshot("default", "lq-afs-metric")
	if v.WeightedUsage != 14 {
		t.Fatalf("admission fair sharing usage %v, want 14", v.WeightedUsage)
	}
}

// Kueue: pkg/cache/queue/manager_test.go at ff69552,
// TestHeadsRespectLocalQueueWeightForPreexistingWorkloads and the three
// TestUpdateLocalQueueWeight* tests: the order of a ClusterQueue's workloads
// follows its LocalQueues' weights, set before the ClusterQueue exists or
// changed while the workloads wait. Kueue pops its heap; the ports give the
// ClusterQueue room for every workload and read the order the cycle admits
// them in (a half-life of an hour makes each admission's penalty too small
// to reorder them).
func TestKueueLocalQueueWeightOrders(t *testing.T) {
	type wl struct {
		name, lq string
		created  time.Duration
	}
	cases := []struct {
		name string
		// cqLast upserts the ClusterQueue after the LocalQueues and workloads.
		cqLast    bool
		usage     string
		weights   map[string]string // at creation
		reweights map[string]string // changed before the cycle
		workloads []wl
		want      string
	}{
		{name: "TestHeadsRespectLocalQueueWeightForPreexistingWorkloads", cqLast: true, usage: "0",
			weights:   map[string]string{"lq-a": "1", "lq-b": "0"},
			workloads: []wl{{"wl-zero", "lq-b", 0}, {"wl-normal", "lq-a", time.Second}},
			want:      "wl-normal,wl-zero"},
		{name: "TestUpdateLocalQueueWeightReheapifies", usage: "4",
			weights: map[string]string{"lq-a": "1", "lq-b": "1"}, reweights: map[string]string{"lq-b": "2"},
			workloads: []wl{{"wl-a", "lq-a", 0}, {"wl-b", "lq-b", time.Second}},
			want:      "wl-b,wl-a"},
		{name: "TestUpdateLocalQueueWeightReheapifiesMultipleWorkloads", usage: "4",
			weights: map[string]string{"lq-a": "1", "lq-b": "1"}, reweights: map[string]string{"lq-b": "2"},
			workloads: []wl{{"wl-a1", "lq-a", 0}, {"wl-b1", "lq-b", time.Second},
				{"wl-a2", "lq-a", 2 * time.Second}, {"wl-b2", "lq-b", 3 * time.Second}},
			want: "wl-b1,wl-b2,wl-a1,wl-a2"},
		{name: "TestUpdateLocalQueueWeightZeroReheapifies", usage: "4",
			weights: map[string]string{"lq-a": "1", "lq-b": "1"}, reweights: map[string]string{"lq-a": "0"},
			workloads: []wl{{"wl-a", "lq-a", 0}, {"wl-b", "lq-b", time.Second}},
			want:      "wl-b,wl-a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{AdmissionFairSharing: &config.AdmissionFairSharing{
				UsageHalfLifeTime:     metav1.Duration{Duration: time.Hour},
				UsageSamplingInterval: metav1.Duration{Duration: time.Second}}}
			cq := MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "8").AdmissionFairSharing().Obj()
			lqs := map[string]*LocalQueueWrapper{}
			objs := []any{MakeFlavor("default").Obj()}
			if !tc.cqLast {
				objs = append(objs, cq)
			}
			for _, name := range []string{"lq-a", "lq-b"} {
				lqs[name] = MakeLocalQueue("default", name, "cq").FairWeight(tc.weights[name]).
					ConsumedResources(now, map[corev1.ResourceName]string{corev1.ResourceCPU: tc.usage})
				objs = append(objs, lqs[name].Obj())
			}
			for _, w := range tc.workloads {
				objs = append(objs, MakeWorkload("default", w.name).Queue(w.lq).Request(corev1.ResourceCPU, "1").Created(w.created).Obj())
			}
			if tc.cqLast {
				objs = append(objs, cq)
			}
			s := world(t, opts, objs...)
			for name, w := range tc.reweights {
				apply(t, s, lqs[name].FairWeight(w).Obj())
			}
			if got := strings.Join(admittedNames(s.Cycle(now)), ","); got != tc.want {
				t.Fatalf("admitted in the order %s, want %s", got, tc.want)
			}
		})
	}
}

// Kueue's scheduler charges the entry penalty on the entry's total requests
// (pkg/scheduler/scheduler.go, updateEntryPenalty: e.SumTotalRequests), which
// partial admission leaves whole: its flavor assigner scales a copy. A
// workload of 4 one-cpu pods admitted with 2 in a 2-cpu ClusterQueue pays
// 4 cpus × (1 − 0.5^0.1) at once.
func TestKueueEntryPenaltyIsOnTheWorkloadsRequests(t *testing.T) {
	s := world(t, Options{AdmissionFairSharing: kueueAFSConfig()}, MakeFlavor("default").Obj(),
		MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "2").AdmissionFairSharing().Obj(),
		MakeLocalQueue("ns", "lq", "cq").Obj(),
		ksMinCount(MakeWorkload("ns", "wl").Queue("lq").PodSet("main", 4).Request(corev1.ResourceCPU, "1").Obj(),
			map[string]int32{"main": 1}))
	ds := s.Cycle(now)
	if a := admits(ds); len(a) != 1 || a[0].PodSets[0].Count != 2 {
		t.Fatalf("admissions %+v, want wl with 2 pods", a)
	}
	v, _ := s.LocalQueueSnapshot("ns", "lq")
	q := v.ConsumedResources[corev1.ResourceCPU]
	want := 4 * (1 - 0.9330329915368074)
	if got := q.AsApproximateFloat64(); got-want > 1e-8 || want-got > 1e-8 {
		t.Fatalf("usage right after the admission %v cpu, want %v (the penalty on 4 cpus)", got, want)
	}
}
