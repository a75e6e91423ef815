//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// mustObject parses a YAML manifest into an unstructured object.
func mustObject(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatalf("bad test manifest: %v\n%s", err, manifest)
	}
	return obj
}

// cq builds a ClusterQueue manifest around a spec fragment.
func cq(name, spec string) string {
	return fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: %s\nspec:\n%s", name, indent(spec, 2))
}

func cohort(name, spec string) string {
	return fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: %s\nspec:\n%s", name, indent(spec, 2))
}

func dqo(name, spec string) string {
	return fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: DynamicQuotaOrchestrator\nmetadata:\n  name: %s\nspec:\n%s", name, indent(spec, 2))
}

func preemptionConfig(name, spec string) string {
	return fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: PreemptionConfig\nmetadata:\n  name: %s\nspec:\n%s", name, indent(spec, 2))
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n") + "\n"
}

const gpuGroup = `resourceGroups:
- coveredResources: ["nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 8
`

// Issue 2, section 3: every documented constraint is in the schema, and the error
// names the offending field. Each case is one constraint.
func TestInvalidObjectsAreRejectedNamingTheField(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		manifest  string
		wantField string // must appear in the API server's error
	}{
		{
			name: "ClusterQueue lendingLimit above nominalQuota",
			manifest: cq("lend-too-much", `cohortName: c
resourceGroups:
- coveredResources: ["nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 24
      lendingLimit: 30
`),
			wantField: "lendingLimit",
		},
		{
			name: "ClusterQueue borrowingLimit without cohortName",
			manifest: cq("borrow-no-cohort", `resourceGroups:
- coveredResources: ["nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 8
      borrowingLimit: 4
`),
			wantField: "borrowingLimit",
		},
		{
			name: "ClusterQueue flavor misses a covered resource",
			manifest: cq("missing-resource", `resourceGroups:
- coveredResources: ["cpu", "nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 8
`),
			wantField: "coveredResources",
		},
		{
			name: "ClusterQueue flavor lists covered resources out of order",
			manifest: cq("out-of-order", `resourceGroups:
- coveredResources: ["cpu", "nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 8
    - name: cpu
      nominalQuota: 96
`),
			wantField: "coveredResources",
		},
		{
			name:      "ClusterQueue queueingStrategy not an enum value",
			manifest:  cq("bad-strategy", "queueingStrategy: LIFO\n"+gpuGroup),
			wantField: "queueingStrategy",
		},
		{
			name:      "ClusterQueue reclaimWithinCohort not an enum value",
			manifest:  cq("bad-reclaim", "cohortName: c\npreemption:\n  reclaimWithinCohort: Always\n"+gpuGroup),
			wantField: "reclaimWithinCohort",
		},
		{
			name:      "ClusterQueue withinClusterQueue not an enum value",
			manifest:  cq("bad-within", "preemption:\n  withinClusterQueue: Any\n"+gpuGroup),
			wantField: "withinClusterQueue",
		},
		{
			name:      "ClusterQueue borrowWithinCohort.policy not an enum value",
			manifest:  cq("bad-bwc", "cohortName: c\npreemption:\n  reclaimWithinCohort: Any\n  borrowWithinCohort:\n    policy: Any\n"+gpuGroup),
			wantField: "policy",
		},
		{
			name:      "ClusterQueue borrowWithinCohort while reclaimWithinCohort is Never",
			manifest:  cq("bwc-without-reclaim", "cohortName: c\npreemption:\n  reclaimWithinCohort: Never\n  borrowWithinCohort:\n    policy: LowerPriority\n"+gpuGroup),
			wantField: "borrowWithinCohort",
		},
		{
			name:      "ClusterQueue whenCanBorrow not an enum value",
			manifest:  cq("bad-borrow-fungibility", "flavorFungibility:\n  whenCanBorrow: Borrow\n"+gpuGroup),
			wantField: "whenCanBorrow",
		},
		{
			name:      "ClusterQueue whenCanPreempt not an enum value",
			manifest:  cq("bad-preempt-fungibility", "flavorFungibility:\n  whenCanPreempt: Preempt\n"+gpuGroup),
			wantField: "whenCanPreempt",
		},
		{
			name:      "ClusterQueue stopPolicy not an enum value",
			manifest:  cq("bad-stop", "stopPolicy: Drain\n"+gpuGroup),
			wantField: "stopPolicy",
		},
		{
			name: "ClusterQueue negative nominalQuota",
			manifest: cq("negative-nominal", `resourceGroups:
- coveredResources: ["nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: -1
`),
			wantField: "nominalQuota",
		},
		{
			name: "root Cohort with borrowingLimit",
			manifest: cohort("root-borrow", `resourceGroups:
- coveredResources: ["nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 8
      borrowingLimit: 2
`),
			wantField: "borrowingLimit",
		},
		{
			name: "root Cohort with lendingLimit",
			manifest: cohort("root-lend", `resourceGroups:
- coveredResources: ["nvidia.com/gpu"]
  flavors:
  - name: h100
    resources:
    - name: nvidia.com/gpu
      nominalQuota: 8
      lendingLimit: 2
`),
			wantField: "lendingLimit",
		},
		{
			name:      "DynamicQuotaOrchestrator without providers",
			manifest:  dqo("no-providers", "capacityDiscovery:\n  providers: []\n"),
			wantField: "providers",
		},
		{
			name: "DynamicQuotaOrchestrator with nine providers",
			manifest: dqo("nine-providers", "capacityDiscovery:\n  providers:\n"+func() string {
				var b strings.Builder
				for i := 0; i < 9; i++ {
					fmt.Fprintf(&b, "  - name: p%d\n", i)
				}
				return b.String()
			}()),
			wantField: "providers",
		},
		{
			name:      "DynamicQuotaOrchestrator negative multiplier",
			manifest:  dqo("negative-multiplier", "capacityDiscovery:\n  providers:\n  - name: p\n    effectiveCapacityMultiplier: \"-0.5\"\n"),
			wantField: "effectiveCapacityMultiplier",
		},
		{
			name:      "DynamicQuotaOrchestrator capacityDistribution without subtreeRootQuotaRef",
			manifest:  dqo("no-root", "capacityDiscovery:\n  providers:\n  - name: p\ncapacityDistribution: {}\n"),
			wantField: "subtreeRootQuotaRef",
		},
		{
			name:      "DynamicQuotaOrchestrator subtree root of another kind",
			manifest:  dqo("bad-root-kind", "capacityDiscovery:\n  providers:\n  - name: p\ncapacityDistribution:\n  subtreeRootQuotaRef:\n    kind: LocalQueue\n    name: x\n"),
			wantField: "kind",
		},
		{
			name: "CapacityProvider without orchestratedFlavors",
			manifest: `apiVersion: kueue.x-k8s.io/v1alpha1
kind: CapacityProvider
metadata:
  name: no-flavors
spec:
  controllerName: example.com/x
  orchestratedFlavors: []
`,
			wantField: "orchestratedFlavors",
		},
		{
			name:      "PreemptionConfig trigger not an enum value",
			manifest:  preemptionConfig("bad-trigger", "rules:\n- name: r\n  activationPolicy:\n    trigger: Sometimes\n"),
			wantField: "trigger",
		},
		{
			name:      "PreemptionConfig scope not an enum value",
			manifest:  preemptionConfig("bad-scope", "rules:\n- name: r\n  activationPolicy:\n    trigger: Always\n  candidateSelectors:\n  - scope: Everywhere\n"),
			wantField: "scope",
		},
		{
			name:      "PreemptionConfig priority comparison not an enum value",
			manifest:  preemptionConfig("bad-comparison", "rules:\n- name: r\n  activationPolicy:\n    trigger: Always\n  candidateSelectors:\n  - scope: WithinClusterQueue\n    priority:\n      comparison: Lower\n"),
			wantField: "comparison",
		},
		{
			name:      "PreemptionConfig numericLabels minValue above maxValue",
			manifest:  preemptionConfig("bad-range", "rules:\n- name: r\n  activationPolicy:\n    trigger: Always\n  candidateSelectors:\n  - scope: WithinClusterQueue\n    numericLabels:\n    - key: example.com/gpus\n      minValue: 8\n      maxValue: 2\n"),
			wantField: "minValue",
		},
		{
			name: "ElasticQuota min above max",
			manifest: `apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata:
  name: upside-down
  namespace: default
spec:
  min:
    cpu: "16"
  max:
    cpu: "8"
`,
			wantField: "min",
		},
		{
			name: "Workload priorityClassRef without priority",
			manifest: `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: no-priority
  namespace: default
spec:
  queueName: q
  priorityClassRef:
    group: kueue.x-k8s.io
    kind: WorkloadPriorityClass
    name: production
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          image: busybox
`,
			wantField: "priority",
		},
		{
			// Kueue's PodSet rule: "minCount should be positive and less or
			// equal to count".
			name: "Workload minCount above its pod set's count",
			manifest: `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: min-above-count
  namespace: default
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    minCount: 3
    template:
      spec:
        containers:
        - name: c
          image: busybox
`,
			wantField: "minCount should be positive and less or equal to count",
		},
		{
			// Kueue's Workload webhook: "at most one podSet can use minCount".
			name: "Workload with two pod sets using minCount",
			manifest: `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: two-variable
  namespace: default
spec:
  queueName: q
  podSets:
  - name: a
    count: 4
    minCount: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
  - name: b
    count: 4
    minCount: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
`,
			wantField: "at most one podSet can use minCount",
		},
		{
			name: "ResourceFlavor with more than 8 nodeLabels",
			manifest: `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: too-many-labels
spec:
  nodeLabels: {a: "1", b: "1", c: "1", d: "1", e: "1", f: "1", g: "1", h: "1", i: "1"}
`,
			wantField: "nodeLabels",
		},
	}
	if len(cases) < 20 {
		t.Fatalf("issue 2 asks for at least 20 invalid objects, the table has %d", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, tc.manifest)
			err := env.Client.Create(ctx, obj)
			if err == nil {
				_ = env.Client.Delete(ctx, obj)
				t.Fatalf("the API server accepted an invalid %s", obj.GetKind())
			}
			if !strings.Contains(err.Error(), tc.wantField) {
				t.Errorf("error does not name %q:\n%v", tc.wantField, err)
			}
		})
	}
}

// 000: "spec.controllerName names the controller that publishes the capacity. It is immutable."
func TestCapacityProviderControllerNameIsImmutable(t *testing.T) {
	ctx := context.Background()
	obj := mustObject(t, `apiVersion: kueue.x-k8s.io/v1alpha1
kind: CapacityProvider
metadata:
  name: immutable-controller
spec:
  controllerName: example.com/a
  orchestratedFlavors:
  - name: h100
`)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(obj.Object, "example.com/b", "spec", "controllerName"); err != nil {
		t.Fatal(err)
	}
	err := env.Client.Update(ctx, obj)
	if err == nil || !strings.Contains(err.Error(), "controllerName") {
		t.Fatalf("changing controllerName: got %v, want an error naming controllerName", err)
	}
}

// 001: status.capacity.flavors "must contain at least one flavor", and quantities
// are non-negative.
func TestCapacityProviderStatusIsValidated(t *testing.T) {
	ctx := context.Background()
	obj := mustObject(t, `apiVersion: kueue.x-k8s.io/v1alpha1
kind: CapacityProvider
metadata:
  name: status-validation
spec:
  controllerName: example.com/a
  orchestratedFlavors:
  - name: h100
`)
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		capacity  map[string]interface{}
		wantField string
	}{
		{"no flavors", map[string]interface{}{"flavors": []interface{}{}}, "flavors"},
		{"negative quantity", map[string]interface{}{"flavors": []interface{}{
			map[string]interface{}{"name": "h100", "resources": map[string]interface{}{"nvidia.com/gpu": "-8"}},
		}}, "resources"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(obj.GroupVersionKind())
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
				t.Fatal(err)
			}
			if err := unstructured.SetNestedField(cur.Object, tc.capacity, "status", "capacity"); err != nil {
				t.Fatal(err)
			}
			err := env.Client.Status().Update(ctx, cur)
			if err == nil || !strings.Contains(err.Error(), tc.wantField) {
				t.Fatalf("got %v, want an error naming %q", err, tc.wantField)
			}
		})
	}
}
