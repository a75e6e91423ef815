// Command crdpatch bounds the string length of quantity values in the generated
// CRDs, in place.
//
// Why: the API server estimates the cost of a CEL rule from the largest value a
// field may hold. A resource.Quantity is an int-or-string without maxLength, so a
// rule that parses quantities in a map (ElasticQuota's min <= max, a provider's
// non-negative capacity) is estimated as if every value were megabytes long and is
// refused. controller-gen has no marker for the values of a map, so `make generate`
// runs this after it: every quantity schema gets maxLength 64, far above any real
// quantity ("3840Gi", "1500m").
//
// Usage: go run ./hack/crdpatch config/crd/bases/*.yaml
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

const quantityMaxLength = 64

func main() {
	for _, path := range os.Args[1:] {
		if err := patchFile(path); err != nil {
			fmt.Fprintf(os.Stderr, "crdpatch: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
}

func patchFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]interface{}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("parsing: %w", err)
	}
	walk(doc)
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

// walk visits every map of the document and adds maxLength to quantity schemas,
// which controller-gen marks with x-kubernetes-int-or-string and a pattern.
func walk(v interface{}) {
	switch n := v.(type) {
	case map[string]interface{}:
		if n["x-kubernetes-int-or-string"] == true && n["pattern"] != nil {
			if _, ok := n["maxLength"]; !ok {
				n["maxLength"] = quantityMaxLength
			}
		}
		for _, child := range n {
			walk(child)
		}
	case []interface{}:
		for _, child := range n {
			walk(child)
		}
	}
}
