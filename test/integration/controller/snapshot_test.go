//go:build integration

package controller

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/cli"
	simcli "quokka.dev/quokka/simulator/cli"
	"quokka.dev/quokka/simulator/manifest"
	"quokka.dev/quokka/simulator/output"
	"quokka.dev/quokka/test/integration/framework"
)

// runQuokkaWithSimulate is runQuokka with `quokka simulate` added, as
// cmd/quokka adds it.
func runQuokkaWithSimulate(t *testing.T, args ...string) string {
	t.Helper()
	return runRoot(t, cli.NewRootCommand(cli.Options{Subcommands: []*cobra.Command{simcli.NewCommand()}}), args...)
}

// admittedAt reads `quokka simulate -o json` and returns when each workload was
// admitted (the first time), in seconds.
func admittedAt(t *testing.T, jsonOut string) map[string]float64 {
	t.Helper()
	var doc output.Document
	if err := json.Unmarshal([]byte(jsonOut), &doc); err != nil {
		t.Fatalf("decoding the simulation: %v\n%s", err, jsonOut)
	}
	out := map[string]float64{}
	for _, e := range doc.Events {
		if _, seen := out[e.Workload]; e.Type == "Admitted" && !seen {
			out[e.Workload] = e.Time
		}
	}
	return out
}

// withOwnAPIServer gives the test an API server of its own for its duration:
// a snapshot takes the whole cluster, and the package's shared server holds
// every earlier test's queues and workloads (the same three-team example
// among them). The package's tests run one at a time, so the shared env is
// swapped out and back.
func withOwnAPIServer(t *testing.T) {
	t.Helper()
	own, err := framework.Start()
	if err != nil {
		t.Fatal(err)
	}
	shared := env
	env = own
	t.Cleanup(func() {
		env = shared
		if err := own.Stop(); err != nil {
			t.Errorf("stopping the test's own API server: %v", err)
		}
	})
}

// Issue 16: "`quokka snapshot -o DIR` writes the live cluster's ... Workloads
// (admitted ones with their status.admission, pending ones in queue order) as
// manifests that `quokka simulate -f DIR` reads unchanged", and "`quokka simulate
// --from-cluster -f CHANGES`: the same snapshot in memory, then the given files
// applied on top".
func TestSnapshotAndSimulateFromCluster(t *testing.T) {
	withOwnAPIServer(t)
	ctx := context.Background()
	// The cluster part of the spec's three-team example, as a user applies it.
	var files []string
	for _, f := range []string{"00-flavors.yaml", "01-namespaces.yaml", "02-cohort.yaml", "03-clusterqueues.yaml", "04-localqueues.yaml"} {
		files = append(files, filepath.Join("..", "..", "..", "examples", "gpu-cluster", f))
	}
	docs, err := manifest.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	var research *kueue.ClusterQueue
	for _, d := range docs {
		obj := d.Object.(client.Object)
		if cq, ok := obj.(*kueue.ClusterQueue); ok && cq.Name == "research" {
			research = cq.DeepCopy()
		}
		create(t, obj)
	}

	// run holds research's 32 H100s for 2 hours; wait asks for 32 more, which
	// research's borrowingLimit of 16 refuses until run finishes.
	run := gpuWL("research", "snap-run", "research-gpu", 32)
	run.Annotations = map[string]string{manifest.AnnotationRuntime: "2h"}
	create(t, run)
	run.Status.Admission = &kueue.Admission{ClusterQueue: "research", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: kueue.DefaultPodSetName, Count: ptr.To[int32](1),
		Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{gpu: "h100", corev1.ResourceCPU: "h100", corev1.ResourceMemory: "h100"},
		ResourceUsage: corev1.ResourceList{gpu: resource.MustParse("32"), corev1.ResourceCPU: resource.MustParse("384"),
			corev1.ResourceMemory: resource.MustParse("3840Gi")},
	}}}
	run.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue,
		Reason: "QuotaReserved", Message: "Quota reserved in ClusterQueue research", LastTransitionTime: metav1.Now()}}
	if err := env.Client.Status().Update(ctx, run); err != nil {
		t.Fatalf("admitting snap-run: %v", err)
	}
	create(t, gpuWL("research", "snap-wait", "research-gpu", 32))

	kubeconfig := writeKubeconfig(t)
	before := resourceVersions(t)

	dir := filepath.Join(t.TempDir(), "now")
	out := runQuokkaWithSimulate(t, "snapshot", "-o", dir, "--kubeconfig", kubeconfig)
	t.Logf("quokka snapshot: %s", out)
	// The workloads come last, whatever number the kinds before them take.
	workloadFiles, err := filepath.Glob(filepath.Join(dir, "*-workloads.yaml"))
	if err != nil || len(workloadFiles) != 1 {
		t.Fatalf("workload files %v (%v), want one", workloadFiles, err)
	}
	data, err := os.ReadFile(workloadFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, unwanted := range []string{"resourceVersion", "managedFields", "uid:"} {
		if strings.Contains(string(data), unwanted) {
			t.Errorf("the snapshot keeps %s:\n%s", unwanted, data)
		}
	}
	if after := resourceVersions(t); len(after) != len(before) {
		t.Errorf("snapshot changed the cluster: %d objects before, %d after", len(before), len(after))
	} else {
		for k, v := range before {
			if after[k] != v {
				t.Errorf("snapshot wrote %s", k)
			}
		}
	}

	text := runQuokkaWithSimulate(t, "simulate", "-f", dir)
	if !strings.Contains(text, "RUNTIME ASSUMED for") || !strings.Contains(text, "research/snap-wait") {
		t.Errorf("the text output does not name the assumed runtime of research/snap-wait:\n%s", text)
	}
	got := admittedAt(t, runQuokkaWithSimulate(t, "simulate", "-f", dir, "-o", "json"))
	if at, ok := got["research/snap-run"]; !ok || at != 0 {
		t.Errorf("snap-run admitted at %v (%v), want 0: it is running now", at, ok)
	}
	if at, ok := got["research/snap-wait"]; !ok || at != 7200 {
		t.Errorf("snap-wait admitted at %v (%v), want 7200 s, when snap-run finishes", at, ok)
	}

	// A change: research gets 64 H100s of its own. snap-wait is admitted now.
	research.Spec.ResourceGroups[0].Flavors[0].Resources = []kueue.ResourceQuota{
		{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("768")},
		{Name: corev1.ResourceMemory, NominalQuota: resource.MustParse("7680Gi")},
		{Name: gpu, NominalQuota: resource.MustParse("64")},
	}
	research.APIVersion, research.Kind = kueue.GroupVersion.String(), "ClusterQueue"
	change, err := yaml.Marshal(research)
	if err != nil {
		t.Fatal(err)
	}
	changeFile := filepath.Join(t.TempDir(), "change.yaml")
	if err := os.WriteFile(changeFile, change, 0o644); err != nil {
		t.Fatal(err)
	}
	got = admittedAt(t, runQuokkaWithSimulate(t, "simulate", "--from-cluster", "--kubeconfig", kubeconfig, "-f", changeFile, "-o", "json"))
	if at, ok := got["research/snap-wait"]; !ok || at != 0 {
		t.Errorf("with 64 H100s snap-wait admitted at %v (%v), want 0", at, ok)
	}
	if at, ok := got["research/snap-run"]; !ok || at != 0 {
		t.Errorf("with 64 H100s snap-run admitted at %v (%v), want 0", at, ok)
	}
	// Issue 16: "--compare runs the live state with and without the changes and
	// prints what differs": snap-wait is admitted now, nothing is preempted.
	var cmp output.CompareDocument
	cmpOut := runQuokkaWithSimulate(t, "simulate", "--from-cluster", "--kubeconfig", kubeconfig, "-f", changeFile, "--compare", "-o", "json")
	if err := json.Unmarshal([]byte(cmpOut), &cmp); err != nil {
		t.Fatalf("decoding --compare -o json: %v\n%s", err, cmpOut)
	}
	if len(cmp.AdmittedNow) != 1 || cmp.AdmittedNow[0].Name != "research/snap-wait" || len(cmp.Preempted) != 0 {
		t.Errorf("--compare: admitted now %+v, preempted %+v; want research/snap-wait and nothing", cmp.AdmittedNow, cmp.Preempted)
	}
	// Without changes, --from-cluster is the snapshot.
	got = admittedAt(t, runQuokkaWithSimulate(t, "simulate", "--from-cluster", "--kubeconfig", kubeconfig, "-o", "json"))
	if at := got["research/snap-wait"]; at != 7200 {
		t.Errorf("--from-cluster alone: snap-wait admitted at %v, want 7200 s", at)
	}
}
