package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

const clusterQueueDoc = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: research
spec:
  cohortName: ml-platform
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: cpu
        nominalQuota: 384
      - name: nvidia.com/gpu
        nominalQuota: 24
        lendingLimit: 12
`

// TestEveryKindLoads feeds one document of every accepted kind and checks what the
// loader makes of it.
func TestEveryKindLoads(t *testing.T) {
	t.Parallel()
	input := strings.Join([]string{
		`apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}`,
		clusterQueueDoc,
		`apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: ml-platform}`,
		`apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: research-gpu, namespace: research}
spec: {clusterQueue: research}`,
		`apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: production}
value: 1000`,
		`apiVersion: v1
kind: Namespace
metadata: {name: research, labels: {tenant: research}}`,
		`apiVersion: kueue.x-k8s.io/v1alpha1
kind: CapacityProvider
metadata: {name: nodes}
spec:
  controllerName: example.com/nodes
  orchestratedFlavors: [{name: h100}]
status:
  capacity:
    flavors: [{name: h100, resources: {nvidia.com/gpu: "64"}}]`,
		`apiVersion: kueue.x-k8s.io/v1alpha1
kind: DynamicQuotaOrchestrator
metadata: {name: dqo}
spec:
  capacityDiscovery:
    providers: [{name: nodes, effectiveCapacityMultiplier: "0.5"}]
  capacityDistribution:
    subtreeRootQuotaRef: {kind: Cohort, name: ml-platform}`,
		`apiVersion: kueue.x-k8s.io/v1alpha1
kind: PreemptionConfig
metadata: {name: pc}
spec:
  rules:
  - name: r1
    activationPolicy: {trigger: Always}`,
		`apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata: {name: team-a, namespace: koord}
spec: {min: {cpu: "1"}, max: {cpu: "2"}}`,
		`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
metadata:
  annotations: {simulation.quokka.dev/at: 1h}
fairSharing:
  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
featureGates: {DynamicQuotaOrchestration: true}`,
		`apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: warm
  namespace: research
  annotations: {simulation.quokka.dev/runtime: 2h}
spec:
  queueName: research-gpu
  podSets:
  - count: 2
    template:
      spec:
        containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: "3"}}`,
		`apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: research
  labels: {kueue.x-k8s.io/queue-name: research-gpu, kueue.x-k8s.io/priority-class: production}
  annotations: {simulation.quokka.dev/at: 90s}
spec:
  parallelism: 4
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {limits: {nvidia.com/gpu: "8"}}`,
	}, "\n---\n")
	docs, err := Parse("every-kind.yaml", []byte(input))
	if err != nil {
		t.Fatal(err)
	}
	wantKinds := []Kind{KindResourceFlavor, KindClusterQueue, KindCohort, KindLocalQueue, KindWorkloadPriorityClass,
		KindNamespace, KindCapacityProvider, KindDynamicQuotaOrchestrator, KindPreemptionConfig, KindElasticQuota,
		KindConfiguration, KindWorkload, KindJob}
	if len(docs) != len(wantKinds) {
		t.Fatalf("got %d documents, want %d", len(docs), len(wantKinds))
	}
	for i, k := range wantKinds {
		if docs[i].Key.Kind != k {
			t.Errorf("document %d: kind %s, want %s", i+1, docs[i].Key.Kind, k)
		}
		if docs[i].Source.Document != i+1 {
			t.Errorf("document %d: numbered %d", i+1, docs[i].Source.Document)
		}
	}
	cfg := docs[10].Object.(*configv1beta2.Configuration)
	if !cfg.FeatureGate(configv1beta2.FeatureDynamicQuotaOrchestration) || !cfg.FairSharingEnabled() {
		t.Errorf("configuration gates not read: %+v", cfg)
	}
	if docs[10].At != time.Hour {
		t.Errorf("configuration at = %v, want 1h", docs[10].At)
	}

	wl := docs[11]
	if !wl.HasRuntime || wl.Runtime != 2*time.Hour || wl.At != 0 {
		t.Errorf("workload timing: at %v runtime %v (%v)", wl.At, wl.Runtime, wl.HasRuntime)
	}
	// Requests stay as written (the engine fills a missing one as the
	// manager does, from a LimitRange's default request before the limit);
	// a pod's requests count a limit without a request.
	spec := &wl.Workload.Spec.PodSets[0].Template.Spec
	if req := spec.Containers[0].Resources.Requests; len(req) != 0 {
		t.Errorf("requests must be kept as written, got %v", req)
	}
	if q := PodRequests(spec)["nvidia.com/gpu"]; q.Cmp(resource.MustParse("3")) != 0 {
		t.Errorf("a pod's requests must count the limit of a resource it does not request, got %v", PodRequests(spec))
	}
	if wl.Workload.Spec.PodSets[0].Name != kueue.DefaultPodSetName {
		t.Errorf("pod set name defaults to main, got %q", wl.Workload.Spec.PodSets[0].Name)
	}

	job := docs[12]
	if job.At != 90*time.Second || job.HasRuntime {
		t.Errorf("job timing: at %v runtime %v", job.At, job.HasRuntime)
	}
	if _, ok := job.Object.(*batchv1.Job); !ok {
		t.Errorf("job object is %T", job.Object)
	}
	jw := job.Workload
	if jw.Name != "train" || jw.Namespace != "research" || jw.Spec.QueueName != "research-gpu" {
		t.Errorf("job workload identity: %s/%s queue %s", jw.Namespace, jw.Name, jw.Spec.QueueName)
	}
	if ps := jw.Spec.PodSets; len(ps) != 1 || ps[0].Name != "main" || ps[0].Count != 2 {
		t.Errorf("job pod sets = %+v; want one pod set main of min(parallelism 4, completions 2) = 2", ps)
	}
	if ref := jw.Spec.PriorityClassRef; ref == nil || ref.Name != "production" || ref.Kind != "WorkloadPriorityClass" {
		t.Errorf("job priority class ref = %+v", ref)
	}
	if docs[0].Key.Namespace != "" || docs[3].Key.Namespace != "research" {
		t.Errorf("namespaces: %q %q", docs[0].Key.Namespace, docs[3].Key.Namespace)
	}
}

func TestJobDefaults(t *testing.T) {
	t.Parallel()
	docs, err := Parse("job.yaml", []byte(`apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x}]`))
	if err != nil {
		t.Fatal(err)
	}
	wl := docs[0].Workload
	if wl.Namespace != "default" || wl.Spec.PodSets[0].Count != 1 || wl.Spec.PriorityClassRef != nil {
		t.Errorf("defaults: namespace %q count %d priority %+v", wl.Namespace, wl.Spec.PodSets[0].Count, wl.Spec.PriorityClassRef)
	}
}

// TestLoadErrors checks that every kind of mistake stops the load with a message
// that names the file, the document, the object and the field.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	cq := func(spec string) string {
		return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: research}\nspec:\n" + spec
	}
	group := func(resources string) string {
		return cq(`  cohortName: ml
  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
    - name: a100
      resources: [{name: cpu, nominalQuota: 1}, {name: memory, nominalQuota: 1}, {name: nvidia.com/gpu, nominalQuota: 1}]
    - name: h100
      resources:
` + resources)
	}
	cases := []struct {
		name string
		doc  string
		want string
	}{
		{"unknown kind", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}",
			`x.yaml document 1 (Pod p): kind: Unsupported value: "Pod" (apiVersion v1): the simulator accepts`},
		{"wrong api version", "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: c}",
			`(ClusterQueue c): apiVersion: Unsupported value: "kueue.x-k8s.io/v1beta1": ClusterQueue is read as kueue.x-k8s.io/v1beta2`},
		{"missing kind", "apiVersion: v1\nmetadata: {name: p}", "x.yaml document 1: kind: Required value"},
		{"bad field", cq("  cohortName: ml\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: h100\n      resources: [{name: cpu, nominalQuota: 1, lendingLimt: 2}]"),
			`x.yaml document 1 (ClusterQueue research): spec.resourceGroups[0].flavors[0].resources[0].lendingLimt: unknown field`},
		{"case of a field", cq("  CohortName: ml"), `spec.CohortName: unknown field`},
		{"duplicate key", cq("  cohortName: a\n  cohortName: b"), `invalid YAML`},
		{"bad quantity", cq("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: h100\n      resources: [{name: cpu, nominalQuota: lots}]"),
			`spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: "lots": quantities must match`},
		{"wrong shape", cq("  resourceGroups: {}"), `spec.resourceGroups: Invalid value: {}: must be a list`},
		{"bad duration", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f, annotations: {simulation.quokka.dev/at: \"90\"}}",
			`x.yaml document 1 (ResourceFlavor f): metadata.annotations[simulation.quokka.dev/at]: Invalid value: "90": must be a Go duration`},
		{"negative duration", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f, annotations: {simulation.quokka.dev/at: -1m}}",
			`metadata.annotations[simulation.quokka.dev/at]: Invalid value: "-1m": must not be negative`},
		{"unknown annotation", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f, annotations: {simulation.quokka.dev/runtme: 1h}}",
			`metadata.annotations[simulation.quokka.dev/runtme]: Unsupported value: "simulation.quokka.dev/runtme"`},
		{"runtime on a queue", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f, annotations: {simulation.quokka.dev/runtime: 1h}}",
			`metadata.annotations[simulation.quokka.dev/runtime]: Forbidden: only Workloads and Jobs run`},
		{"lendingLimit above nominal", group(`      - name: cpu
        nominalQuota: 1
      - name: memory
        nominalQuota: 1
      - name: nvidia.com/gpu
        nominalQuota: 24
        lendingLimit: 30`),
			`x.yaml document 1 (ClusterQueue research): spec.resourceGroups[0].flavors[1].resources[2].lendingLimit: Invalid value: "30": must be less than or equal to nominalQuota (24)`},
		{"resources out of order", group(`      - name: cpu
        nominalQuota: 1
      - name: nvidia.com/gpu
        nominalQuota: 1
      - name: memory
        nominalQuota: 1`),
			`spec.resourceGroups[0].flavors[1].resources[1].name: Invalid value: "nvidia.com/gpu": must be "memory": every flavor must list every resource of coveredResources, in the same order (cpu, memory, nvidia.com/gpu)`},
		{"resource missing", group(`      - name: cpu
        nominalQuota: 1`),
			`spec.resourceGroups[0].flavors[1].resources: Invalid value: 1: every flavor must list every resource of coveredResources`},
		{"negative quota", group(`      - name: cpu
        nominalQuota: -1
      - name: memory
        nominalQuota: 1
      - name: nvidia.com/gpu
        nominalQuota: 1`),
			`spec.resourceGroups[0].flavors[1].resources[0].nominalQuota: Invalid value: "-1": must be non-negative`},
		{"borrowingLimit without cohort", cq(`  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: h100
      resources: [{name: cpu, nominalQuota: 1, borrowingLimit: 1}]`),
			`spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: Forbidden: must be unset when cohortName is empty`},
		{"duplicate flavor", cq(`  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: h100
      resources: [{name: cpu, nominalQuota: 1}]
  - coveredResources: [memory]
    flavors:
    - name: h100
      resources: [{name: memory, nominalQuota: 1}]`),
			`spec.resourceGroups[1].flavors[0].name: Duplicate value: "h100"`},
		{"enum", cq("  queueingStrategy: FIFO"),
			`spec.queueingStrategy: Unsupported value: "FIFO": supported values: "StrictFIFO", "BestEffortFIFO"`},
		{"preemption enum", cq("  preemption: {reclaimWithinCohort: LowerOrNewerEqualPriority}"),
			`spec.preemption.reclaimWithinCohort: Unsupported value: "LowerOrNewerEqualPriority"`},
		{"borrowWithinCohort without reclaim", cq("  preemption: {borrowWithinCohort: {policy: LowerPriority}}"),
			`spec.preemption.borrowWithinCohort.policy: Invalid value: "LowerPriority": must be Never when reclaimWithinCohort is Never`},
		{"namespace selector", cq("  namespaceSelector: {matchExpressions: [{key: a, operator: Sometimes}]}"),
			`spec.namespaceSelector.matchExpressions[0].operator: Invalid value: "Sometimes"`},
		{"root cohort limits", `apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: root}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: h100
      resources: [{name: cpu, nominalQuota: 4, lendingLimit: 2}]`,
			`x.yaml document 1 (Cohort root): spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Forbidden: must be unset on a root Cohort`},
		// Kueue's Cohort and ClusterQueue webhooks refuse a resource name
		// that is not a qualified name (cohort_test.go, clusterqueue_test.go).
		{"unqualified resource name in a Cohort", `apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: root}
spec:
  resourceGroups:
  - coveredResources: ["@cpu"]
    flavors:
    - name: h100
      resources: [{name: "@cpu", nominalQuota: 4}]`,
			`x.yaml document 1 (Cohort root): spec.resourceGroups[0].coveredResources[0]: Invalid value: "@cpu": name part must consist of alphanumeric characters`},
		{"unqualified resource name in a ClusterQueue", cq(`  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: h100
      resources: [{name: "cpu!", nominalQuota: 1}]`),
			`spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: "cpu!": name part must consist of alphanumeric characters`},
		{"cohort its own parent", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: a}\nspec: {parentName: a}",
			`spec.parentName: Invalid value: "a": a Cohort cannot be its own parent`},
		{"dqo without providers", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: DynamicQuotaOrchestrator
metadata: {name: d}
spec: {capacityDiscovery: {providers: []}}`,
			`(DynamicQuotaOrchestrator d): spec.capacityDiscovery.providers: Required value: must have at least 1 item(s)`},
		{"dqo with nine providers", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: DynamicQuotaOrchestrator
metadata: {name: d}
spec:
  capacityDiscovery:
    providers: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}]`,
			`spec.capacityDiscovery.providers: Too many: 9: must have at most 8 items`},
		{"negative multiplier", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: DynamicQuotaOrchestrator
metadata: {name: d}
spec: {capacityDiscovery: {providers: [{name: a, effectiveCapacityMultiplier: "-0.5"}]}}`,
			`spec.capacityDiscovery.providers[0].effectiveCapacityMultiplier: Invalid value: "-500m": effectiveCapacityMultiplier must be 0 or more`},
		{"subtree root kind", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: DynamicQuotaOrchestrator
metadata: {name: d}
spec:
  capacityDiscovery: {providers: [{name: a}]}
  capacityDistribution: {subtreeRootQuotaRef: {kind: LocalQueue, name: x}}`,
			`spec.capacityDistribution.subtreeRootQuotaRef.kind: Unsupported value: "LocalQueue"`},
		{"provider without status flavors", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: CapacityProvider
metadata: {name: p}
spec: {controllerName: c, orchestratedFlavors: [{name: h100}]}
status: {capacity: {flavors: []}}`,
			`(CapacityProvider p): status.capacity.flavors: Required value: must have at least 1 item(s)`},
		{"negative capacity", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: CapacityProvider
metadata: {name: p}
spec: {controllerName: c, orchestratedFlavors: [{name: h100}]}
status: {capacity: {flavors: [{name: h100, resources: {nvidia.com/gpu: "-1"}}]}}`,
			`status.capacity.flavors[0].resources[nvidia.com/gpu]: Invalid value: "-1": capacity must be non-negative`},
		{"elastic quota min above max", `apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: ElasticQuota
metadata: {name: e}
spec: {min: {cpu: "4"}, max: {cpu: "2"}}`,
			`spec.min[cpu]: Invalid value: "4": min: every resource must be less than or equal to its max (2)`},
		{"preemption config trigger", `apiVersion: kueue.x-k8s.io/v1alpha1
kind: PreemptionConfig
metadata: {name: p}
spec: {rules: [{name: r, activationPolicy: {trigger: Sometimes}}]}`,
			`spec.rules[0].activationPolicy.trigger: Unsupported value: "Sometimes"`},
		{"local queue without cluster queue", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}",
			`(LocalQueue q): spec.clusterQueue: Required value`},
		{"job with a GPU request and no limit", `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {template: {spec: {containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: "8"}}}]}}}`,
			`(Job ns/j): spec.template.spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources`},
		{"job with a GPU request below its limit", `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {template: {spec: {containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: "4"}, limits: {nvidia.com/gpu: "8"}}}]}}}`,
			`spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "4": must be equal to nvidia.com/gpu limit of 8`},
		{"workload admission without reservation", `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, flavors: {cpu: f}}]`,
			`status.conditions: Required value: a Workload with status.admission must have the condition QuotaReserved=True`},
		{"workload admission of unknown pod set", `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]
status:
  conditions: [{type: QuotaReserved, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: workers, flavors: {cpu: f}}]`,
			`status.admission.podSetAssignments[0].name: Not found: "workers"`},
		{"configuration typo", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharin: {}",
			`x.yaml document 1 (Configuration): invalid configuration: fairSharin: Forbidden: unknown field`},
		{"yaml boolean where a string belongs", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: n}",
			`x.yaml document 1: metadata.namespace: Invalid value: false: must be a string`},
		{"missing name", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {}",
			`(ResourceFlavor): metadata.name: Required value`},
		{"topology", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {topologyName: t}",
			`spec.topologyName: Forbidden: topology-aware scheduling is not supported by Quokka`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.doc))
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n  %v\nwant it to contain:\n  %s", err, c.want)
			}
		})
	}
}

func TestLoadPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "b"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "b", "2.yaml"), []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: second}\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "a.yml"), []byte("# only a comment\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: first}\n---\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a manifest"), 0o644))

	docs, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Key.Name != "first" || docs[1].Key.Name != "second" {
		t.Fatalf("directory must be read recursively in sorted order, got %+v", docs)
	}
	if docs[0].Source.Document != 1 {
		t.Errorf("comment-only documents are not counted: got document %d", docs[0].Source.Document)
	}

	_, err = Load([]string{filepath.Join(dir, "missing.yaml")})
	if err == nil || !strings.Contains(err.Error(), "missing.yaml: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	_, err = Load(nil)
	if err == nil || !strings.Contains(err.Error(), "no input") {
		t.Errorf("no paths: %v", err)
	}
	empty := t.TempDir()
	_, err = Load([]string{empty})
	if err == nil || !strings.Contains(err.Error(), "no manifests") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestJobAndWorkloadWithTheSameName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := `apiVersion: batch/v1
kind: Job
metadata: {name: x, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: x, namespace: ns}
spec: {queueName: q, podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]}
`
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{dir})
	if err == nil || !strings.Contains(err.Error(), "a Job and a Workload are both named ns/x") {
		t.Errorf("got %v", err)
	}
}

func TestManyErrorsAreReportedTogether(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 25; i++ {
		b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pods.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{dir})
	if err == nil || !strings.Contains(err.Error(), "document 20 ") || !strings.Contains(err.Error(), "and 5 more problems") {
		t.Errorf("got %v", err)
	}
}

// The repository's example manifests are the loader's acceptance test: they are
// meant to be applied to a real cluster and to the simulator alike.
func TestExamplesLoad(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	docs, err := Load([]string{filepath.Join(root, "examples", "gpu-cluster"), filepath.Join(root, "examples", "api")})
	if err != nil {
		t.Fatal(err)
	}
	count := map[Kind]int{}
	for _, d := range docs {
		count[d.Key.Kind]++
	}
	for _, k := range []Kind{KindResourceFlavor, KindClusterQueue, KindCohort, KindLocalQueue, KindNamespace,
		KindCapacityProvider, KindDynamicQuotaOrchestrator, KindWorkloadPriorityClass} {
		if count[k] == 0 {
			t.Errorf("no %s in the examples", k)
		}
	}
}

func TestPodRequests(t *testing.T) {
	t.Parallel()
	always := corev1.ContainerRestartPolicyAlways
	spec := corev1.PodSpec{
		Containers: []corev1.Container{
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("2"), "nvidia.com/gpu": resource.MustParse("8")}}},
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("1")}}},
		},
		InitContainers: []corev1.Container{
			{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("5")}}},
			{RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"memory": resource.MustParse("1Gi")}}},
		},
		Overhead: corev1.ResourceList{"cpu": resource.MustParse("100m")},
	}
	got := PodRequests(&spec)
	want := map[corev1.ResourceName]string{"cpu": "5100m", "nvidia.com/gpu": "8", "memory": "1Gi"}
	for name, w := range want {
		q := got[name]
		if q.Cmp(resource.MustParse(w)) != 0 {
			t.Errorf("%s = %s, want %s", name, q.String(), w)
		}
	}
}
