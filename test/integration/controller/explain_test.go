//go:build integration

package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/internal/explain"
)

// writeKubeconfig writes the test API server's address and credentials as a
// kubeconfig file, the way a user points `quokka explain` at a cluster.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	c := env.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData}
	kc.AuthInfos["envtest"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertData, ClientKeyData: c.KeyData, Token: c.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "envtest"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// resourceVersions maps every object explain reads to its resourceVersion.
func resourceVersions(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var cqs kueue.ClusterQueueList
	var lqs kueue.LocalQueueList
	var wls kueue.WorkloadList
	var cohorts kueue.CohortList
	ctx := context.Background()
	if err := env.Client.List(ctx, &cqs); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.List(ctx, &lqs); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.List(ctx, &wls); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.List(ctx, &cohorts); err != nil {
		t.Fatal(err)
	}
	for _, o := range cqs.Items {
		out["cq/"+o.Name] = o.ResourceVersion
	}
	for _, o := range lqs.Items {
		out["lq/"+o.Namespace+"/"+o.Name] = o.ResourceVersion
	}
	for _, o := range wls.Items {
		out["wl/"+o.Namespace+"/"+o.Name] = o.ResourceVersion
	}
	for _, o := range cohorts.Items {
		out["cohort/"+o.Name] = o.ResourceVersion
	}
	return out
}

// runQuokka runs the quokka binary's root command with args and returns stdout.
func runQuokka(t *testing.T, args ...string) string {
	t.Helper()
	return runRoot(t, cli.NewRootCommand(cli.Options{}), args...)
}

// runRoot executes a root command with args and returns stdout, failing the
// test on a non-zero exit.
func runRoot(t *testing.T, root *cobra.Command, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	if code := cli.Execute(t.Context(), root, args, &errOut); code != 0 {
		t.Fatalf("quokka %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

// Issue 16: "`quokka explain workload NAMESPACE/NAME` reads the cluster through
// the kubeconfig ... and prints for a pending workload: its position in its
// queue, every flavor tried and why it does not fit, what preemption would take
// ... and what would have to change for it to be admitted now. `-o json` for
// tools. Read-only: it never writes to the cluster."
func TestExplainCommand(t *testing.T) {
	gpuF := "explain-gpu"
	create(t, makeFlavor(gpuF), &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "explain-pool"}},
		makeNS("explain-a", map[string]string{"tenant": "explain-a"}),
		makeCQ("explain-a").cohort("explain-pool").selector("tenant", "explain-a").reclaimAny().
			flavor(gpuF, quota(gpu, "4", "2", "")).obj(),
		makeCQ("explain-b").cohort("explain-pool").selector("tenant", "explain-b").flavor(gpuF, quota(gpu, "6", "", "")).obj(),
		makeLQ("explain-a", "main", "explain-a"))

	// run holds all of explain-a's 4 GPUs, admitted as the manager would have
	// written it; wait asks for 4 more at a higher priority.
	run := makeWL("explain-a", "run", "main", "nvidia.com/gpu", "4")
	create(t, run)
	run.Status.Admission = &kueue.Admission{ClusterQueue: "explain-a", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: kueue.DefaultPodSetName, Count: ptr.To[int32](1),
		Flavors:       map[corev1.ResourceName]kueue.ResourceFlavorReference{gpu: kueue.ResourceFlavorReference(gpuF)},
		ResourceUsage: map[corev1.ResourceName]resource.Quantity{gpu: resource.MustParse("4")},
	}}}
	run.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue,
		Reason: "QuotaReserved", Message: "Quota reserved in ClusterQueue explain-a", LastTransitionTime: metav1.Now()}}
	if err := env.Client.Status().Update(context.Background(), run); err != nil {
		t.Fatalf("admitting run: %v", err)
	}
	wait := makeWL("explain-a", "wait", "main", "nvidia.com/gpu", "4")
	wait.Spec.Priority = ptr.To[int32](10)
	create(t, wait)

	kubeconfig := writeKubeconfig(t)
	before := resourceVersions(t)

	text := runQuokka(t, "explain", "workload", "explain-a/wait", "--kubeconfig", kubeconfig)
	t.Logf("quokka explain workload explain-a/wait:\n%s", text)
	for _, want := range []string{
		"Workload explain-a/wait: Pending",
		"ClusterQueue: explain-a (BestEffortFIFO, cohort explain-pool)",
		"Position:     1 of 1 pending (0 ahead)",
		"Reason:       BorrowingLimitReached",
		"pod set main, flavor explain-gpu: Preempt",
		"nvidia.com/gpu   requested 4, available 2, at most 6: Preempt (limited by the borrowingLimit of explain-a)",
		"would evict 1 workload(s):\n  - explain-a/run (ClusterQueue explain-a, InClusterQueue)",
		"2 more nvidia.com/gpu of nominal quota in ClusterQueue explain-a (flavor explain-gpu), or explain-a's borrowingLimit raised to 4",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}

	var rep explain.WorkloadReport
	if err := json.Unmarshal([]byte(runQuokka(t, "explain", "workload", "wait", "-n", "explain-a", "-o", "json",
		"--kubeconfig", kubeconfig)), &rep); err != nil {
		t.Fatalf("-o json is not a workload report: %v", err)
	}
	if rep.Position != 1 || rep.Fits || rep.ClusterQueue != "explain-a" || rep.Preemption == nil ||
		len(rep.Preemption.Victims) != 1 || rep.Preemption.Victims[0].Workload != "explain-a/run" ||
		len(rep.Changes) != 1 || rep.Changes[0].MoreNominalQuota != "2" || rep.Changes[0].BorrowingLimit != "4" {
		t.Errorf("json report = %+v", rep)
	}

	cq := runQuokka(t, "explain", "clusterqueue", "explain-a", "--kubeconfig", kubeconfig)
	if !strings.Contains(cq, "explain-gpu, nvidia.com/gpu: 4 / 4, borrowed 0, borrowingLimit 2") ||
		!strings.Contains(cq, "1. explain-a/wait: BorrowingLimitReached") {
		t.Errorf("clusterqueue output:\n%s", cq)
	}
	lq := runQuokka(t, "explain", "localqueue", "explain-a/main", "--kubeconfig", kubeconfig)
	if !strings.Contains(lq, "LocalQueue explain-a/main\n  ClusterQueue: explain-a") || !strings.Contains(lq, "1. explain-a/wait") {
		t.Errorf("localqueue output:\n%s", lq)
	}

	after := resourceVersions(t)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed from resourceVersion %s to %s: explain wrote to the cluster", k, v, after[k])
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d objects before explain, %d after", len(before), len(after))
	}
}
