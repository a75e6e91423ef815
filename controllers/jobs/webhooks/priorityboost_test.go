package webhooks

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Port of Kueue's pkg/webhooks/workload_webhook_test.go, TestValidateWorkload,
// its priority-boost cases: with the PriorityBoost gate on, the
// kueue.x-k8s.io/priority-boost annotation must be a signed integer (zero and
// negative ones included; the empty string is not, with Kueue's hint); with
// the gate off it is not read, so not checked. Creates and updates alike.
func TestKueueValidateWorkloadPriorityBoost(t *testing.T) {
	cases := []struct {
		name    string
		gate    bool
		value   *string // nil: no annotation
		wantErr string  // "" accepts
	}{
		{name: "valid priority-boost", gate: true, value: ptrTo("10")},
		{name: "valid priority-boost zero", gate: true, value: ptrTo("0")},
		{name: "valid priority-boost negative", gate: true, value: ptrTo("-5")},
		{name: "invalid priority-boost", gate: true, value: ptrTo("invalid"),
			wantErr: `metadata.annotations[kueue.x-k8s.io/priority-boost]: Invalid value: "invalid": must be a valid signed integer`},
		{name: "empty string priority-boost", gate: true, value: ptrTo(""),
			wantErr: `metadata.annotations[kueue.x-k8s.io/priority-boost]: Invalid value: "": must be a valid signed integer; use "0" explicitly, empty string is not allowed`},
		{name: "missing priority-boost annotation", gate: true},
		{name: "invalid priority-boost when feature off", value: ptrTo("invalid")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "wl", Namespace: "ns"}}
			if tc.value != nil {
				wl.Annotations = map[string]string{kueue.PriorityBoostAnnotation: *tc.value}
			}
			w := &WorkloadWebhook{Client: reader(), PriorityBoost: tc.gate}
			_, createErr := w.ValidateCreate(context.Background(), wl)
			_, updateErr := w.ValidateUpdate(context.Background(), wl.DeepCopy(), wl)
			for what, err := range map[string]error{"create": createErr, "update": updateErr} {
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("%s refused: %v", what, err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("%s: error %v, want one containing %q", what, err, tc.wantErr)
				}
			}
		})
	}
}

func ptrTo(s string) *string { return &s }
