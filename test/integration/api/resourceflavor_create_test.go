//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// rf builds a ResourceFlavor manifest around a spec fragment.
func rf(name, spec string) string {
	return fmt.Sprintf("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: %s\nspec:\n%s", name, indent(spec, 2))
}

// Kueue: test/integration/singlecluster/webhook/core/resourceflavor_test.go
// (v0.17.0): "Should be valid", "invalid number of properties" (3), "Updating
// a ResourceFlavor with invalid taints" and "Validate resourceFlavor on
// creation" (3). Kueue refuses the invalid label name in its webhook (403);
// Quokka's CRD refuses all with its schema (422), naming the field. Not here:
// "Should have a finalizer", which Quokka's controller adds
// (TestKueueResourceFlavor* in test/integration/controller).
func TestKueueResourceFlavorValidation(t *testing.T) {
	ctx := context.Background()
	taints := func(n int) string {
		out := "nodeTaints:\n"
		for i := range n {
			out += fmt.Sprintf("- {key: t%d, effect: NoExecute}\n", i)
		}
		return out
	}
	labels := func(n int) string {
		out := "nodeLabels:\n"
		for i := range n {
			out += fmt.Sprintf("  l%d: \"\"\n", i)
		}
		return out
	}
	cases := []struct {
		name, spec, refused string
	}{
		{"Should be valid", "nodeLabels: {foo: bar}\nnodeTaints:\n- {key: spot, value: \"true\", effect: NoSchedule}\n", ""},
		{"invalid number of taint", taints(9), "nodeTaints"},
		{"invalid number of nodeSelector", labels(9), "nodeLabels"},
		{"valid number of nodeSelector and taint", taints(8) + labels(8), ""},
		{"Should fail to create with invalid taints", "nodeTaints:\n- {key: skdajf}\n- {key: \"@foo\", value: bar, effect: NoSchedule}\n", "nodeTaints"},
		{"Should fail to create with invalid label name", "nodeLabels: {\"@abc\": foo}\n", "nodeLabels"},
		{"Should fail to create with invalid tolerations", "tolerations:\n" +
			"- {key: \"@abc\", operator: Equal, value: v, effect: NoSchedule}\n" +
			"- {key: abc, operator: Exists, value: v, effect: NoSchedule}\n" +
			"- {key: abc, operator: Equal, value: v, effect: not-valid}\n" +
			"- {key: abc, operator: Equal, value: v, effect: NoSchedule}\n", "tolerations"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, rf(fmt.Sprintf("kueue-rf-%d", i), tc.spec))
			checkRefusal(t, createAndRemove(ctx, obj), tc.refused, "ResourceFlavor")
		})
	}

	t.Run("Updating a ResourceFlavor with invalid taints/Should fail to update", func(t *testing.T) {
		obj := mustObject(t, rf("kueue-rf-update", "{}"))
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
		obj.Object["spec"] = map[string]any{"nodeTaints": []any{map[string]any{"key": "foo", "value": "bar", "effect": "Invalid"}}}
		if err := env.Client.Update(ctx, obj); err == nil || !strings.Contains(err.Error(), "nodeTaints") {
			t.Fatalf("an invalid taint effect: err = %v; want a refusal naming nodeTaints", err)
		}
	})
}
