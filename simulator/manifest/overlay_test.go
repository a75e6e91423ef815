package manifest

import (
	"testing"
)

// Issue 16: "an object with the same kind/namespace/name replaces the live one;
// new ones are added".
func TestOverlayReplacesSameKeyInPlaceAndAppendsNew(t *testing.T) {
	t.Parallel()
	live, err := Parse("live.yaml", []byte(`
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team}
spec: {clusterQueue: gpu}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: other, namespace: team}
spec: {clusterQueue: gpu}
`))
	if err != nil {
		t.Fatal(err)
	}
	changes, err := Parse("change.yaml", []byte(`
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team}
spec: {clusterQueue: gpu, stopPolicy: Hold}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: other
  namespace: team
  annotations: {simulation.quokka.dev/at: 1h}
spec: {clusterQueue: gpu, stopPolicy: Hold}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a100}
`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Overlay(live, changes)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"live.yaml document 1",   // h100, untouched
		"change.yaml document 1", // lq replaced where it was
		"live.yaml document 3",   // other stays live until 1h ...
		"change.yaml document 2", // ... when the change replaces it
		"change.yaml document 3", // a100 is new
	}
	if len(out) != len(want) {
		t.Fatalf("got %d documents, want %d", len(out), len(want))
	}
	for i, d := range out {
		if d.Source.String() != want[i] {
			t.Errorf("document %d comes from %s, want %s", i, d.Source, want[i])
		}
	}
	if len(live) != 3 || live[1].Source.File != "live.yaml" {
		t.Errorf("Overlay changed its input: %+v", live[1].Source)
	}
}
