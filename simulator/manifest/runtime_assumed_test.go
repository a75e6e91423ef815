package manifest

import (
	"strings"
	"testing"
)

// A guessed runtime must say what it guesses: runtime-assumed needs a runtime.
func TestRuntimeAssumedNeedsARuntime(t *testing.T) {
	t.Parallel()
	const wl = `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: team
  annotations: {%s}
spec:
  queueName: lq
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}]
`
	docs, err := Parse("ok.yaml", []byte(strings.Replace(wl, "%s", `simulation.quokka.dev/runtime: 1h, simulation.quokka.dev/runtime-assumed: "true"`, 1)))
	if err != nil || len(docs) != 1 || !docs[0].RuntimeAssumed || !docs[0].HasRuntime {
		t.Fatalf("assumed runtime not read: %v %+v", err, docs)
	}
	_, err = Parse("bad.yaml", []byte(strings.Replace(wl, "%s", `simulation.quokka.dev/runtime-assumed: "true"`, 1)))
	if err == nil || !strings.Contains(err.Error(), "metadata.annotations[simulation.quokka.dev/runtime]: Required value") {
		t.Errorf("got %v, want a Required error for the runtime", err)
	}
}
