package v1beta2

import (
	"strings"
	"testing"
)

// Kueue's stock Configuration sets internalCertManagement; Quokka reads it: enable
// defaults to true, false leaves the certificate to someone else, and names other
// than the ones Quokka's webhook configurations use are refused, naming the field.
func TestInternalCertManagement(t *testing.T) {
	cases := []struct {
		name      string
		yaml      string
		enabled   bool
		wantError string
	}{
		{"absent", "", true, ""},
		{"enabled", "internalCertManagement:\n  enable: true\n", true, ""},
		{"disabled", "internalCertManagement:\n  enable: false\n", false, ""},
		{"Quokka's names", "internalCertManagement:\n  enable: true\n  webhookServiceName: quokka-webhook-service\n  webhookSecretName: quokka-webhook-server-cert\n", true, ""},
		{"another service", "internalCertManagement:\n  webhookServiceName: kueue-webhook-service\n", true, "internalCertManagement.webhookServiceName"},
		{"another secret", "internalCertManagement:\n  webhookSecretName: kueue-webhook-server-cert\n", true, "internalCertManagement.webhookSecretName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + tc.yaml))
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("got %v, want an error naming %s", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.InternalCertManagementEnabled(); got != tc.enabled {
				t.Errorf("InternalCertManagementEnabled() = %v, want %v", got, tc.enabled)
			}
		})
	}
}
