package v1beta2_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

// TestGeneratedCRDsPassTheAPIServersValidation validates every generated CRD
// as the API server does when it is applied, its estimate of each CEL rule's
// cost included: a rule the estimate finds too dear (an optional read the
// rule then walks or compares, whose size the estimate does not know) is
// refused there, and would otherwise show only when an integration test
// installs the CRDs.
func TestGeneratedCRDsPassTheAPIServersValidation(t *testing.T) {
	files, err := filepath.Glob("../../../config/crd/bases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated CRDs found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(raw, &crd); err != nil {
				t.Fatal(err)
			}
			// A CRD the API server stores has its storage version recorded.
			for _, v := range crd.Spec.Versions {
				if v.Storage {
					crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
				}
			}
			var internal apiextensions.CustomResourceDefinition
			if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&crd, &internal, nil); err != nil {
				t.Fatal(err)
			}
			for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &internal) {
				t.Error(e)
			}
		})
	}
}
