//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Kueue: test/integration/singlecluster/webhook/core/cohort_test.go (v0.17.0),
// "Validate Cohort on creation" (38 of its 40 entries): what the API server
// accepts and refuses when a Cohort is created. Kueue refuses some in its
// webhook (403) and some with its CRD (422); Quokka's CRD refuses these, naming
// the field. The two entries on an unqualified resource name ("@cpu"), which a
// schema cannot decide, are the Cohort webhook's (TestKueueCohortWebhookNames,
// TestKueueCohortUnqualifiedResourceName). Quokka
// refused before one that Kueue allows: a lendingLimit above the nominal quota,
// which on a Cohort bounds what its whole subtree lends.
func TestKueueCohortCreateValidation(t *testing.T) {
	ctx := context.Background()
	cpu := []string{"cpu"}
	lend := func(nominal, lending string) string {
		return fmt.Sprintf("resourceGroups:\n- coveredResources: [cpu]\n  flavors:\n  - name: x86\n    resources:\n    - {name: cpu, nominalQuota: %q, lendingLimit: %q}\n", nominal, lending)
	}
	cases := []struct {
		name, cohortName, spec string
		refused                string
	}{
		{"Should disallow empty name", "", "{}", "metadata.name"},
		{"Should allow default Cohort", "cohort", "{}", ""},
		{"Should allow valid parent name", "cohort", "parentName: prod\n", ""},
		{"Should reject invalid parent name", "cohort", "parentName: \"@prod\"\n", "parentName"},
		{"ResourceGroup should have at least one flavor", "cohort", "resourceGroups:\n- coveredResources: [cpu]\n  flavors: []\n", "flavors"},
		{"FlavorQuota should have at least one resource", "cohort", "resourceGroups:\n- coveredResources: [cpu]\n  flavors:\n  - name: foo\n    resources: []\n", "resources"},
		{"Should reject invalid flavor name", "cohort", "resourceGroups:\n" + rg("cpu", []string{"@x86"}, cpu, "5", ""), "flavors[0].name"},
		{"Should reject too many flavors in resource group", "cohort", "resourceGroups:\n" + rg("cpu", numbered("f", 65), cpu, "0", ""), "flavors"},
		{"Should reject too many resources in resource group", "cohort", "resourceGroups:\n" + rg(strings.Join(numbered("cpu", 65), ","), []string{"flavor"}, numbered("cpu", 65), "0", ""), "resourceGroups[0]"},
		{"Should allow resource with valid name", "cohort", "resourceGroups:\n" + rg("cpu", []string{"default"}, cpu, "0", ""), ""},
		{"Should allow extended resources with valid name", "cohort", "resourceGroups:\n" + rg("example.com/gpu", []string{"default"}, []string{"example.com/gpu"}, "0", ""), ""},
		{"Should allow flavor with valid name", "cohort", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "0", ""), ""},
		{"Should reject flavor with invalid name", "cohort", "resourceGroups:\n" + rg("cpu", []string{"x_86"}, cpu, "0", ""), "flavors[0].name"},
		{"Should reject negative nominal quota", "cohort", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "-1", ""), "nominalQuota"},
		{"Should reject negative borrowing limit", "cohort", "parentName: parent\nresourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "-1"), "borrowingLimit"},
		{"Should reject negative lending limit", "cohort", "parentName: parent\n" + lend("1", "-1"), "lendingLimit"},
		{"Should reject borrowingLimit when no parent", "cohort", "resourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "1"), "borrowingLimit"},
		{"Should allow borrowingLimit 0 when parent exists", "cohort", "parentName: parent\nresourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "0"), ""},
		{"Should allow borrowingLimit when parent exists", "cohort", "parentName: parent\nresourceGroups:\n" + rg("cpu", []string{"x86"}, cpu, "1", "1"), ""},
		{"Should reject lendingLimit when no parent", "cohort", lend("1", "1"), "lendingLimit"},
		{"Should allow lendingLimit when parent exists", "cohort", "parentName: parent\n" + lend("1", "1"), ""},
		{"Should allow lendingLimit 0 when parent exists", "cohort", "parentName: parent\n" + lend("0", "0"), ""},
		{"Should allow lending limit to exceed nominal quota", "cohort", "parentName: parent\n" + lend("3", "5"), ""},
		{"Should allow multiple resource groups", "cohort", "resourceGroups:\n" +
			rg("cpu, memory", []string{"alpha", "beta"}, []string{"cpu", "memory"}, "0", "") +
			rg("example.com/gpu", []string{"gamma", "omega"}, []string{"example.com/gpu"}, "0", ""), ""},
		{"Should reject resources in a flavor in different order", "cohort", "resourceGroups:\n" +
			rg("cpu, memory", []string{"alpha"}, []string{"cpu", "memory"}, "0", "") +
			"  - name: beta\n    resources:\n    - {name: memory, nominalQuota: \"0\"}\n    - {name: cpu, nominalQuota: \"0\"}\n", "resourceGroups[0]"},
		{"Should reject missing resources in a flavor", "cohort", "resourceGroups:\n" + rg("cpu, memory", []string{"alpha"}, cpu, "0", ""), "resourceGroups[0]"},
		{"Should reject resource not defined in resource group", "cohort", "resourceGroups:\n" + rg("cpu", []string{"alpha"}, []string{"cpu", "memory"}, "0", ""), "resourceGroups[0]"},
		{"Should reject resource in more than one resource group", "cohort", "resourceGroups:\n" +
			rg("cpu, memory", []string{"alpha"}, []string{"cpu", "memory"}, "0", "") + rg("memory", []string{"beta"}, []string{"memory"}, "0", ""), "resourceGroups"},
		{"Should reject flavor in more than one resource group", "cohort", "resourceGroups:\n" +
			rg("cpu", []string{"alpha", "beta"}, cpu, "0", "") + rg("memory", []string{"beta"}, []string{"memory"}, "0", ""), "resourceGroups"},
		{"Should allow FairSharing weight", "cohort", "fairSharing: {weight: \"1\"}\n", ""},
		{"Should allow zero FairSharing weight", "cohort", "fairSharing: {weight: \"0\"}\n", ""},
		{"Should forbid negative FairSharing weight", "cohort", "fairSharing: {weight: \"-1\"}\n", "fairSharing.weight"},
		{"Should allow fractional FairSharing weight", "cohort", "fairSharing: {weight: \"0.5\"}\n", ""},
		{"Should allow small FairSharing weight", "cohort", "fairSharing: {weight: 1m}\n", ""},
		{"Should allow even smaller FairSharing weight", "cohort", "fairSharing: {weight: 1u}\n", ""},
		{"Should allow smallest FairSharing weight", "cohort", "fairSharing: {weight: 2n}\n", ""},
		{"Should forbid threshold FairSharing weight", "cohort", "fairSharing: {weight: 1n}\n", "fairSharing.weight"},
		{"Should forbid collapsed FairSharing weight", "cohort", "fairSharing: {weight: \"0.0000000001\"}\n", "fairSharing.weight"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.cohortName
			if name != "" {
				name = fmt.Sprintf("kueue-cohort-%d", i)
			}
			obj := mustObject(t, cohort(name, tc.spec))
			if name == "" {
				delete(obj.Object["metadata"].(map[string]any), "name")
			}
			checkRefusal(t, createAndRemove(ctx, obj), tc.refused, "Cohort")
		})
	}
}
