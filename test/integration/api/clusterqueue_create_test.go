//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rg is a resource group covering covered with one flavor per entry of
// flavors, each giving every resource of res a quota (nominal, and a
// borrowing limit when borrow is not "").
func rg(covered string, flavors []string, res []string, nominal, borrow string) string {
	out := fmt.Sprintf("- coveredResources: [%s]\n  flavors:\n", covered)
	for _, f := range flavors {
		out += fmt.Sprintf("  - name: %q\n    resources:\n", f)
		for _, r := range res {
			out += fmt.Sprintf("    - name: %q\n      nominalQuota: %q\n", r, nominal)
			if borrow != "" {
				out += fmt.Sprintf("      borrowingLimit: %q\n", borrow)
			}
		}
	}
	return out
}

// Kueue: test/integration/singlecluster/webhook/core/clusterqueue_test.go
// (v0.17.0), "Validate ClusterQueue on creation": what the API server accepts
// and refuses when a ClusterQueue is created. Kueue refuses some in its
// webhook (403) and some with its CRD (422); Quokka's CRD refuses these, so
// that they hold without a webhook, naming the field. The five its schema
// cannot decide (qualified resource names, label selector syntax) are
// Quokka's webhook's too: TestKueueClusterQueueWebhookNames.
func TestKueueClusterQueueCreateValidation(t *testing.T) {
	ctx := context.Background()
	cpu := []string{"cpu"}
	cases := []struct {
		name, spec string
		// refused names the field the error must name; "" when accepted.
		refused string
	}{
		{"Should have non-negative borrowing limit", "cohortName: cohort\nresourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "2", "-1"), "borrowingLimit"},
		{"Should have non-negative quota value", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "-1", ""), "nominalQuota"},
		{"Should have at least one flavor", "resourceGroups:\n- coveredResources: [cpu]\n  flavors: []\n", "flavors"},
		{"Should have at least one resource", "resourceGroups:\n- coveredResources: [cpu]\n  flavors:\n  - name: foo\n    resources: []\n", "resources"},
		{"Should have qualified flavor name", "resourceGroups:\n" + rg("cpu", []string{"invalid_name"}, cpu, "5", ""), "flavors[0].name"},
		{"Should have valid resources quantity", "resourceGroups:\n" + rg(strings.Join(numbered("r", 65), ","), []string{"flavor"}, numbered("r", 65), "0", ""), "resourceGroups[0]"},
		{"Should have valid flavors quantity", "resourceGroups:\n" + rg("cpu", numbered("f", 65), cpu, "0", ""), "flavors"},
		{"Should forbid to create clusterQueue with unknown clusterQueueingStrategy", "queueingStrategy: unknown\n", "queueingStrategy"},
		// Kueue's builder leaves an empty strategy out of the object
		// (omitempty), which the schema then defaults.
		{"Should allow to create clusterQueue with empty clusterQueueingStrategy", "namespaceSelector: {}\n", ""},
		{"Should allow to create clusterQueue with empty queueing strategy", "namespaceSelector: {}\n", ""},
		{"Should allow to create clusterQueue with empty preemption", "preemption: {}\n", ""},
		{"Should allow to create clusterQueue with preemption policies", "preemption:\n  reclaimWithinCohort: Any\n  withinClusterQueue: LowerPriority\n", ""},
		{"Should forbid to create clusterQueue with unknown preemption.withinCohort", "preemption:\n  reclaimWithinCohort: unknown\n", "reclaimWithinCohort"},
		{"Should forbid to create clusterQueue with unknown preemption.withinClusterQueue", "preemption:\n  withinClusterQueue: unknown\n", "withinClusterQueue"},
		{"Should allow to create clusterQueue with built-in resources with qualified names", "resourceGroups:\n" + rg("cpu", []string{"default"}, cpu, "0", ""), ""},
		{"Should allow to create clusterQueue with valid cohort", "cohortName: prod\n", ""},
		{"Should forbid to create clusterQueue with invalid cohort", "cohortName: \"@prod\"\n", "cohortName"},
		{"Should allow to create clusterQueue with extended resources with qualified names", "resourceGroups:\n" + rg("example.com/gpu", []string{"default"}, []string{"example.com/gpu"}, "0", ""), ""},
		{"Should allow to create clusterQueue with flavor with qualified names", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "0", ""), ""},
		{"Should forbid to create clusterQueue with flavor with unqualified names", "resourceGroups:\n" + rg("cpu", []string{"invalid_name"}, cpu, "0", ""), "flavors[0].name"},
		{"Should forbid to create clusterQueue with flavor quota with negative value", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "-1", ""), "nominalQuota"},
		{"Should allow to create clusterQueue with flavor quota with zero values", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "0", ""), ""},
		{"Should allow to create clusterQueue with flavor quota with borrowingLimit 0", "cohortName: cohort\nresourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "0"), ""},
		{"Should forbid to create clusterQueue with flavor quota with negative borrowingLimit", "cohortName: cohort\nresourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "-1"), "borrowingLimit"},
		{"Should forbid to create clusterQueue with flavor quota with borrowingLimit and empty cohort", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "1"), "borrowingLimit"},
		{"Should allow to create clusterQueue with multiple resource groups", "resourceGroups:\n" +
			rg("cpu, memory", []string{"alpha", "beta"}, []string{"cpu", "memory"}, "0", "") +
			rg("example.com/gpu", []string{"gamma", "omega"}, []string{"example.com/gpu"}, "0", ""), ""},
		{"Should forbid to create clusterQueue with resources in a flavor in different order", "resourceGroups:\n" +
			rg("cpu, memory", []string{"alpha"}, []string{"cpu", "memory"}, "0", "") +
			"  - name: beta\n    resources:\n    - {name: memory, nominalQuota: \"0\"}\n    - {name: cpu, nominalQuota: \"0\"}\n", "resourceGroups[0]"},
		{"Should forbid to create clusterQueue missing resources in a flavor", "resourceGroups:\n" + rg("cpu, memory", []string{"alpha"}, cpu, "0", ""), "resourceGroups[0]"},
		{"Should forbid to create clusterQueue missing resources in a flavor (extra resource)", "resourceGroups:\n" + rg("cpu", []string{"alpha"}, []string{"cpu", "memory"}, "0", ""), "resourceGroups[0]"},
		{"Should forbid to create clusterQueue missing resources in a flavor and mismatch", "resourceGroups:\n" + rg("blah", []string{"alpha"}, []string{"cpu", "memory"}, "0", ""), "resourceGroups[0]"},
		{"Should forbid to create clusterQueue with resource in more than one resource group", "resourceGroups:\n" +
			rg("cpu, memory", []string{"alpha"}, []string{"cpu", "memory"}, "0", "") + rg("memory", []string{"beta"}, []string{"memory"}, "0", ""), "resourceGroups"},
		{"Should forbid to create clusterQueue with flavor in more than one resource group", "resourceGroups:\n" +
			rg("cpu", []string{"alpha", "beta"}, cpu, "0", "") + rg("memory", []string{"beta"}, []string{"memory"}, "0", ""), "resourceGroups"},
		{"Should forbid to create clusterQueue missing with invalid preemption due to reclaimWithinCohort=Never, while borrowWithinCohort!=nil",
			"preemption:\n  reclaimWithinCohort: Never\n  borrowWithinCohort: {policy: LowerPriority}\n", "preemption"},
		{"Should allow to create clusterQueue with valid preemption with borrowWithinCohort",
			"preemption:\n  reclaimWithinCohort: LowerPriority\n  borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 10}\n", ""},
		{"Should allow to create clusterQueue with existing cluster queue created with older Kueue version that has a nil borrowWithinCohort field",
			"preemption:\n  reclaimWithinCohort: Never\n", ""},
		{"Should allow zero FairSharing weight", "fairSharing: {weight: \"0\"}\n", ""},
		{"Should allow fractional FairSharing weight", "fairSharing: {weight: \"0.1\"}\n", ""},
		{"Should allow small FairSharing weight", "fairSharing: {weight: 1m}\n", ""},
		{"Should allow even smaller FairSharing weight", "fairSharing: {weight: 1u}\n", ""},
		{"Should allow smallest FairSharing weight", "fairSharing: {weight: 2n}\n", ""},
		{"Should forbid threshold FairSharing weight", "fairSharing: {weight: 1n}\n", "fairSharing.weight"},
		{"Should forbid collapsed FairSharing weight", "fairSharing: {weight: \"0.0000000001\"}\n", "fairSharing.weight"},
		{"Should forbid negative FairSharing weight", "fairSharing: {weight: \"-1\"}\n", "fairSharing.weight"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, cq(fmt.Sprintf("kueue-create-%d", i), tc.spec))
			err := env.Client.Create(ctx, obj)
			if err == nil {
				_ = env.Client.Delete(ctx, obj)
				// Kueue's table checks that defaults are set on what it accepts.
				if s, _, _ := unstructured.NestedString(obj.Object, "spec", "queueingStrategy"); s == "" {
					t.Errorf("accepted without a default queueingStrategy: %v", obj.Object["spec"])
				}
			}
			checkRefusal(t, err, tc.refused, "ClusterQueue")
		})
	}
}
