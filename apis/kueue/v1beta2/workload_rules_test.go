package v1beta2_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// kueueOrderRules are the Workload's root rules as they were first written,
// in the order of Kueue's CRD (v0.17.0) and of its webhook: "is quota
// reserved?" first, then "did the field change?". TestKueueWorkloadUpdateValidation
// ported Kueue's cases against them. The CRD asks the same questions in the
// other order and with optional reads, one of them on the status node, which
// the API server answers at a fraction of the cost; the verdicts must be the
// same.
var kueueOrderRules = map[string]string{
	"maximumExecutionTimeSeconds is immutable while workload quota reserved":                                `((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')))?((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  (has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)):true`,
	"podSets are immutable while workload quota reserved":                                                   `(has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? oldSelf.spec.podSets == self.spec.podSets : true`,
	"queueName is immutable while workload quota reserved":                                                  `((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && has(oldSelf.spec.queueName) && has(self.spec.queueName)) ? oldSelf.spec.queueName == self.spec.queueName : true`,
	"podSetAssignments must have the same number of podSets as the spec":                                    `(has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && has(self.status.admission) ? size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true`,
	"priorityClassRef is immutable while workload quota reserved":                                           `(has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) ? has(oldSelf.spec.priorityClassRef) == has(self.spec.priorityClassRef) : true`,
	"priorityClassRef.group and priorityClassRef.kind are immutable while workload quota reserved":          `((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)) ? oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group && oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true`,
	"priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while workload quota reserved":  `((has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef) && self.spec.priorityClassRef.group == 'scheduling.k8s.io') ? oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true`,
	"each of status.reclaimablePods must name a pod set of spec.podSets and count no more pods than it has": `!has(self.status) || !has(self.status.reclaimablePods) || self.status.reclaimablePods.all(r, self.spec.podSets.exists(ps, ps.name == r.name && r.count <= ps.count))`,
	"status.reclaimablePods may not decrease or lose an entry while the workload holds quota":               `(has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(self.status) && has(self.status.conditions) && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True') && has(oldSelf.status.reclaimablePods)) ? oldSelf.status.reclaimablePods.all(o, has(self.status.reclaimablePods) && self.status.reclaimablePods.exists(n, n.name == o.name && n.count >= o.count)) : true`,
}

// workloadSchema is the served schema of the generated Workload CRD.
func workloadSchema(t testing.TB) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	raw, err := os.ReadFile("../../../config/crd/bases/kueue.x-k8s.io_workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("reading the Workload CRD: %v", err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1beta2" {
			return v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatal("the Workload CRD serves no v1beta2")
	return nil
}

// inKueueOrder is the served schema with its Workload update rules as
// kueueOrderRules words them, matched by message, every one of them at the
// root as in Kueue's CRD: the served schema asks one of them on the status
// node instead (its field path there names the same field). Every rule must
// be found.
func inKueueOrder(t testing.TB, served *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	reference := served.DeepCopy()
	replaced := 0
	for i, r := range reference.XValidations {
		if rule, ok := kueueOrderRules[r.Message]; ok {
			reference.XValidations[i].Rule = rule
			replaced++
		}
	}
	status := reference.Properties["status"]
	kept := status.XValidations[:0]
	for _, r := range status.XValidations {
		rule, ok := kueueOrderRules[r.Message]
		if !ok {
			kept = append(kept, r)
			continue
		}
		r.Rule, r.FieldPath = rule, ".status"+r.FieldPath
		reference.XValidations = append(reference.XValidations, r)
		replaced++
	}
	status.XValidations = kept
	reference.Properties["status"] = status
	if replaced != len(kueueOrderRules) {
		t.Fatalf("the CRD's rules name %d of the %d messages of Kueue's order: a rule was renamed or dropped", replaced, len(kueueOrderRules))
	}
	return reference
}

// rootValidator compiles a schema's CEL rules as the API server does for a
// custom resource.
func rootValidator(t testing.TB, s *apiextensionsv1.JSONSchemaProps) *cel.Validator {
	t.Helper()
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, &internal, nil); err != nil {
		t.Fatal(err)
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	v := cel.NewValidator(structural, true, celconfig.PerCallLimit)
	if v == nil {
		t.Fatal("no CEL rules in the schema")
	}
	return v
}

// TestWorkloadRulesDecideAsKueueOrder plays random updates of a Workload (its
// conditions, admission, queue, priority class, maximum execution time, pod
// sets and reclaimable pods, each kept or changed, by a write of the Workload
// or of its status) through the CRD's rules and through the same rules in
// Kueue's order, and requires the same refusals, naming the same fields, for
// every update. Each root rule must refuse some of them, so that the
// comparison covers it.
func TestWorkloadRulesDecideAsKueueOrder(t *testing.T) {
	served := workloadSchema(t)
	reference := inKueueOrder(t, served)
	refused := map[string]int{}
	for m := range kueueOrderRules {
		refused[m] = 0
	}
	got, want := rootValidator(t, served), rootValidator(t, reference)

	rng := rand.New(rand.NewPCG(15, 2026))
	for i := range 4000 {
		old := randomWorkload(rng)
		updated := mutateWorkload(rng, old)
		g, w := verdicts(t, got, updated, old), verdicts(t, want, updated, old)
		if !slices.Equal(g, w) {
			t.Fatalf("update %d refused with %q by the CRD's rules and %q in Kueue's order\nold: %v\nnew: %v", i, g, w, old, updated)
		}
		for _, e := range g {
			for m := range refused {
				if strings.HasSuffix(e, m) {
					refused[m]++
				}
			}
		}
	}
	for m, n := range refused {
		t.Logf("%5d refused: %s", n, m)
		if n == 0 {
			t.Errorf("no update was refused with %q: the comparison does not cover that rule", m)
		}
	}
}

// verdicts are the errors one validator returns for an update, as
// "field: message", sorted. A rule that fails to evaluate fails the test.
func verdicts(t *testing.T, v *cel.Validator, updated, old map[string]any) []string {
	t.Helper()
	errs, _ := v.Validate(context.Background(), nil, nil, updated, old, celconfig.RuntimeCELCostBudget)
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		if strings.Contains(e.Detail, "evaluating rule") || strings.Contains(e.Detail, "cost") {
			t.Fatalf("a rule did not evaluate: %v", e)
		}
		out = append(out, e.Field+": "+e.Detail)
	}
	slices.Sort(out)
	return out
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

// randomWorkload is a Workload as the API server decodes it, with each field
// that a root rule reads present or absent.
func randomWorkload(rng *rand.Rand) map[string]any {
	spec := map[string]any{"podSets": randomPodSets(rng)}
	if q := pick(rng, "", "q1", "q2"); q != "" {
		spec["queueName"] = q
	}
	if ref := randomPriorityClassRef(rng); ref != nil {
		spec["priorityClassRef"], spec["priority"] = ref, int64(100)
	}
	if m := pick(rng, int64(0), 1, 2); m != 0 {
		spec["maximumExecutionTimeSeconds"] = m
	}
	wl := map[string]any{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": map[string]any{"name": "wl", "namespace": "default"}, "spec": spec}
	if status := randomStatus(rng, spec); len(status) > 0 {
		wl["status"] = status
	}
	return wl
}

func randomPodSets(rng *rand.Rand) []any {
	podSets := []any{}
	for _, name := range []string{"main", "second"}[:1+rng.IntN(2)] {
		podSets = append(podSets, map[string]any{"name": name, "count": int64(1 + rng.IntN(3)),
			"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "c", "image": pick(rng, "a", "b")}}}}})
	}
	return podSets
}

func randomPriorityClassRef(rng *rand.Rand) map[string]any {
	switch rng.IntN(3) {
	case 0:
		return nil
	case 1:
		return map[string]any{"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": pick(rng, "low", "high")}
	default:
		return map[string]any{"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": pick(rng, "low", "high")}
	}
}

func randomStatus(rng *rand.Rand, spec map[string]any) map[string]any {
	status := map[string]any{}
	var conditions []any
	for _, typ := range []string{"QuotaReserved", "Admitted", "Finished"} {
		if s := pick(rng, "", "True", "False"); s != "" {
			conditions = append(conditions, map[string]any{"type": typ, "status": s, "reason": "R", "message": "m",
				"lastTransitionTime": "2026-12-06T00:00:00Z"})
		}
	}
	// In any order: the rules find a condition by its type, wherever it is.
	rng.Shuffle(len(conditions), func(i, j int) { conditions[i], conditions[j] = conditions[j], conditions[i] })
	if len(conditions) > 0 {
		status["conditions"] = conditions
	}
	if rng.IntN(2) == 0 {
		n := len(spec["podSets"].([]any))
		if rng.IntN(4) == 0 {
			n = 3 - n // the wrong number of assignments
		}
		assignments := []any{}
		for _, name := range []string{"main", "second"}[:n] {
			assignments = append(assignments, map[string]any{"name": name})
		}
		status["admission"] = map[string]any{"clusterQueue": "cq", "podSetAssignments": assignments}
	}
	if rng.IntN(2) == 0 {
		rps := []any{}
		for _, name := range []string{"main", "second"}[:1+rng.IntN(2)] {
			if rng.IntN(3) > 0 {
				rps = append(rps, map[string]any{"name": name, "count": int64(rng.IntN(3))})
			}
		}
		status["reclaimablePods"] = rps
	}
	return status
}

// mutateWorkload is an update of old as the API server hands it to the
// rules: a write of the Workload changes its spec and keeps the old status
// (the API server drops any change to it), a write of its status subresource
// changes the status and keeps the old spec. Each part is kept or drawn
// afresh, so that most updates change a little and the rules' "unchanged"
// answers are asked as often as their refusals.
func mutateWorkload(rng *rand.Rand, old map[string]any) map[string]any {
	fresh := randomWorkload(rng)
	out := map[string]any{"apiVersion": old["apiVersion"], "kind": old["kind"], "metadata": old["metadata"], "spec": old["spec"]}
	if status, ok := old["status"]; ok {
		out["status"] = status
	}
	if rng.IntN(2) == 0 {
		// A status write.
		if status, ok := fresh["status"]; ok {
			out["status"] = status
		} else {
			delete(out, "status")
		}
		return out
	}
	spec := map[string]any{}
	oldSpec, freshSpec := old["spec"].(map[string]any), fresh["spec"].(map[string]any)
	for _, k := range []string{"podSets", "queueName", "priorityClassRef", "priority", "maximumExecutionTimeSeconds"} {
		from := oldSpec
		if rng.IntN(4) == 0 {
			from = freshSpec
		}
		if v, ok := from[k]; ok {
			spec[k] = v
		}
	}
	if _, ok := spec["priorityClassRef"]; ok {
		spec["priority"] = int64(100)
	}
	out["spec"] = spec
	return out
}

// BenchmarkWorkloadRootRules is the cost of the Workload's CEL rules in the
// API server for the two writes every workload of Kueue's performance
// harness gets: its admission (a status update of a pending Workload) and
// the runner's Finished (a status write of an admitted one), with the CRD's
// rules and with the same rules in Kueue's order. The API server runs them on
// every write; their allocations feed its garbage collections, which stall
// its writes (docs/kueue-perf.md, thirty-ninth round).
func BenchmarkWorkloadRootRules(b *testing.B) {
	served := workloadSchema(b)
	reference := inKueueOrder(b, served)
	validators := map[string]*cel.Validator{"crd": rootValidator(b, served), "kueue-order": rootValidator(b, reference)}
	condition := func(typ string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "reason": typ, "message": "m", "lastTransitionTime": "2026-12-06T00:00:00Z"}
	}
	workload := func(conditions ...any) map[string]any {
		wl := map[string]any{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
			"metadata": map[string]any{"name": "wl", "namespace": "default"},
			"spec": map[string]any{"queueName": "q", "priority": int64(100), "podSets": []any{map[string]any{"name": "main", "count": int64(1),
				"template": map[string]any{"spec": map[string]any{"restartPolicy": "Never", "containers": []any{
					map[string]any{"name": "c", "image": "pause", "resources": map[string]any{"requests": map[string]any{"cpu": "5"}}}}}}}}}}
		status := map[string]any{"conditions": conditions}
		if len(conditions) > 1 {
			status["admission"] = map[string]any{"clusterQueue": "cq", "podSetAssignments": []any{map[string]any{"name": "main"}}}
		}
		wl["status"] = status
		return wl
	}
	pending := workload(map[string]any{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "m", "lastTransitionTime": "2026-12-06T00:00:00Z"})
	admitted := workload(condition("QuotaReserved"), condition("Admitted"))
	finished := workload(condition("QuotaReserved"), condition("Admitted"), condition("Finished"))
	writes := []struct {
		name     string
		old, new map[string]any
	}{{"admission", pending, admitted}, {"finished", admitted, finished}}
	for _, order := range []string{"crd", "kueue-order"} {
		for _, w := range writes {
			b.Run(order+"/"+w.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if errs, _ := validators[order].Validate(context.Background(), nil, nil, w.new, w.old, celconfig.RuntimeCELCostBudget); len(errs) > 0 {
						b.Fatal(errs)
					}
				}
			})
		}
	}
}
