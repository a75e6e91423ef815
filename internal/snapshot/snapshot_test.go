package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/adapter"
	"quokka.dev/quokka/simulator/manifest"
)

const gpu = corev1.ResourceName("nvidia.com/gpu")

// liveCluster is one ClusterQueue with 8 GPUs, held by "running"; "first" and
// "second" wait behind it (created in that order, listed in the other), and
// "done" has finished.
func liveCluster(t *testing.T) *Objects {
	t.Helper()
	first := enginetest.MakeWorkload("team", "first").Queue("lq").PodSet("main", 1).Request(gpu, "8").Created(time.Minute).Obj()
	first.Annotations = map[string]string{manifest.AnnotationRuntime: "30m", manifest.AnnotationAt: "5m"}
	objs := []client.Object{
		enginetest.MakeFlavor("h100").Obj(),
		enginetest.MakeClusterQueue("gpu").Quota("h100", gpu, "8").Obj(),
		enginetest.MakeLocalQueue("team", "lq", "gpu").Obj(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"tenant": "team"}}},
		enginetest.MakeWorkload("team", "second").Queue("lq").PodSet("main", 1).Request(gpu, "8").Created(2 * time.Minute).Obj(),
		first,
		enginetest.MakeWorkload("team", "running").Queue("lq").PodSet("main", 1).Request(gpu, "8").
			ReserveQuota("gpu", "h100").QuotaReservedAt(0).Obj(),
		enginetest.MakeWorkload("team", "done").Queue("lq").PodSet("main", 1).Request(gpu, "8").Finished().Obj(),
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	o, err := List(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Issue 16: "admitted ones with their status.admission, pending ones in queue
// order", read by `quokka simulate -f DIR` unchanged.
func TestSnapshotReplaysAdmittedThenPendingInCreationOrder(t *testing.T) {
	t.Parallel()
	snap, err := Build(liveCluster(t), Options{AssumedRuntime: time.Hour}, scheme.New())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Admitted != 1 || snap.Pending != 2 {
		t.Errorf("admitted %d, pending %d; want 1 and 2", snap.Admitted, snap.Pending)
	}
	if want := []string{"team/done: finished"}; !slices.Equal(snap.Skipped, want) {
		t.Errorf("skipped %v, want %v", snap.Skipped, want)
	}
	if want := []string{"team/running", "team/second"}; !slices.Equal(snap.Assumed, want) {
		t.Errorf("assumed %v, want %v", snap.Assumed, want)
	}
	for _, f := range snap.Files {
		for _, server := range []string{"resourceVersion", "uid:", "managedFields", manifest.AnnotationAt} {
			if strings.Contains(string(f.Data), server) {
				t.Errorf("%s holds %q:\n%s", f.Name, server, f.Data)
			}
		}
	}
	docs, err := snap.Documents("snap")
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(docs, simulator.Options{NewEngine: adapter.New})
	if err != nil {
		t.Fatal(err)
	}
	admittedAt := map[string]time.Duration{}
	for _, e := range res.Events {
		if e.Type == simulator.Admitted {
			admittedAt[e.Workload] = e.Time
		}
	}
	want := map[string]time.Duration{"team/running": 0, "team/first": time.Hour, "team/second": time.Hour + 30*time.Minute}
	for name, at := range want {
		if got, ok := admittedAt[name]; !ok || got != at {
			t.Errorf("%s admitted at %v (%v), want %v", name, got, ok, at)
		}
	}
	var assumed []string
	for _, w := range res.Workloads {
		if w.RuntimeAssumed {
			assumed = append(assumed, w.Name)
		}
	}
	if want := []string{"team/running", "team/second"}; !slices.Equal(assumed, want) {
		t.Errorf("result marks %v as assumed, want %v", assumed, want)
	}
}

// Clean keeps what the simulator reads and drops what the server sets.
func TestCleanKeepsWorkloadCreationTimeAndAdmission(t *testing.T) {
	t.Parallel()
	wl := enginetest.MakeWorkload("team", "w").Queue("lq").PodSet("main", 1).Request(gpu, "1").
		ReserveQuota("gpu", "h100").QuotaReservedAt(0).Obj()
	wl.ResourceVersion, wl.Finalizers = "42", []string{"kueue.x-k8s.io/resource-in-use"}
	wl.OwnerReferences = []metav1.OwnerReference{{Name: "job"}}
	Clean(wl)
	if wl.UID != "" || wl.ResourceVersion != "" || wl.Finalizers != nil || wl.OwnerReferences != nil {
		t.Errorf("server-set metadata left: %+v", wl.ObjectMeta)
	}
	if wl.CreationTimestamp.IsZero() || wl.Status.Admission == nil {
		t.Errorf("creation time or admission lost: %+v", wl)
	}
	cq := enginetest.MakeClusterQueue("gpu").Obj()
	cq.CreationTimestamp = metav1.Now()
	cq.Status.PendingWorkloads = 3
	Clean(cq)
	if !cq.CreationTimestamp.IsZero() || cq.Status.PendingWorkloads != 0 {
		t.Errorf("ClusterQueue keeps creation time or status: %+v", cq)
	}
}

// A LocalQueue's admission fair sharing usage is history the manager orders
// by: the snapshot keeps it (and nothing else of the LocalQueue's status), so
// that the simulator, seeding from it as a restarted manager does, orders as
// the cluster would.
func TestCleanKeepsALocalQueuesAdmissionFairSharingUsage(t *testing.T) {
	t.Parallel()
	lq := enginetest.MakeLocalQueue("team", "lq", "gpu").
		ConsumedResources(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC), map[corev1.ResourceName]string{gpu: "6828427124n"}).Obj()
	lq.Status.PendingWorkloads = 3
	Clean(lq)
	if lq.Status.PendingWorkloads != 0 {
		t.Errorf("pending count kept: %+v", lq.Status)
	}
	afs := lq.Status.FairSharing
	if afs == nil || afs.AdmissionFairSharingStatus == nil {
		t.Fatalf("admission fair sharing usage dropped: %+v", lq.Status)
	}
	if q := afs.AdmissionFairSharingStatus.ConsumedResources[gpu]; q.Cmp(resource.MustParse("6828427124n")) != 0 {
		t.Errorf("consumed %s, want 6828427124n", q.String())
	}
	plain := enginetest.MakeLocalQueue("team", "plain", "gpu").Obj()
	plain.Status.PendingWorkloads = 1
	Clean(plain)
	if plain.Status.FairSharing != nil {
		t.Errorf("a LocalQueue without usage got %+v", plain.Status.FairSharing)
	}
}

// Issue 16: the snapshot holds "the Configuration the manager runs with when it
// can be read": the file the user names goes first, and the simulator reads it
// as the run's Configuration.
func TestSnapshotCarriesTheManagersConfiguration(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile(filepath.Join("..", "..", "examples", "config", "fair-sharing.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Build(liveCluster(t), Options{AssumedRuntime: time.Hour, Configuration: cfg}, scheme.New())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Files) == 0 || snap.Files[0].Name != "00-configuration.yaml" || !slices.Equal(snap.Files[0].Data, cfg) {
		t.Fatalf("first file = %+v, want 00-configuration.yaml holding the given file", snap.Files[0].Name)
	}
	docs, err := snap.Documents("snap")
	if err != nil {
		t.Fatal(err)
	}
	if docs[0].Key.Kind != manifest.KindConfiguration {
		t.Errorf("the simulator reads the first document as %s, want Configuration", docs[0].Key.Kind)
	}
	without, err := Build(liveCluster(t), Options{AssumedRuntime: time.Hour}, scheme.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range without.Files {
		if f.Name == "00-configuration.yaml" {
			t.Error("a snapshot without --config has a Configuration file")
		}
	}
}

// A cluster's LimitRanges and RuntimeClasses go into the snapshot, so that
// the simulation counts pods as the manager does: with a default request of
// 2 cpu, two of three workloads that request nothing fit in 4 cpu.
func TestSnapshotCarriesLimitRangesAndRuntimeClasses(t *testing.T) {
	t.Parallel()
	objs := []client.Object{
		enginetest.MakeFlavor("default").Obj(),
		enginetest.MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "4").Obj(),
		enginetest.MakeLocalQueue("team", "lq", "cq").Obj(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "defaults"},
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
				DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}},
		&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
			Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}},
	}
	for i, name := range []string{"a", "b", "c"} {
		objs = append(objs, enginetest.MakeWorkload("team", name).Queue("lq").PodSet("main", 1).Created(time.Duration(i)*time.Minute).Obj())
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	o, err := List(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Build(o, Options{AssumedRuntime: time.Hour}, scheme.New())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range snap.Files {
		names = append(names, f.Name)
	}
	if !slices.Contains(names, "02-limitranges.yaml") || !slices.Contains(names, "03-runtimeclasses.yaml") {
		t.Fatalf("files %v, want the LimitRanges and RuntimeClasses", names)
	}
	docs, err := snap.Documents("snap")
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(docs, simulator.Options{NewEngine: adapter.New, Until: 30 * time.Minute, HasUntil: true})
	if err != nil {
		t.Fatal(err)
	}
	var admitted []string
	for _, e := range res.Events {
		if e.Type == simulator.Admitted {
			admitted = append(admitted, e.Workload)
		}
	}
	if want := []string{"team/a", "team/b"}; !slices.Equal(admitted, want) {
		t.Errorf("admitted %v, want %v (2 cpu each by the LimitRange)", admitted, want)
	}
}
