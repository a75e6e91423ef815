package resources

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// Names the engine reads from different objects must come out as one copy, so
// that the quota cache's key comparisons end at the pointer (intern.go).
func TestInternSharesOneCopy(t *testing.T) {
	fr, names := Canonical(FlavorResource{Flavor: strings.Clone("h100"), Resource: corev1.ResourceName(strings.Clone("nvidia.com/gpu"))})
	a := Intern(strings.Clone("h100"))
	b := InternResource(corev1.ResourceName(strings.Clone("nvidia.com/gpu")))
	if unsafe.StringData(a) != unsafe.StringData(fr.Flavor) {
		t.Fatalf("Intern of another copy of %q did not return the canonical copy", a)
	}
	if unsafe.StringData(string(b)) != unsafe.StringData(string(fr.Resource)) {
		t.Fatalf("InternResource of another copy of %q did not return the canonical copy", b)
	}
	if a != "h100" || b != "nvidia.com/gpu" {
		t.Fatalf("interning changed the names: %q, %q", a, b)
	}
	runtime.KeepAlive(names)
}
