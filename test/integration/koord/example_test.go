//go:build integration

package koord

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/adapter"
	"quokka.dev/quokka/simulator/manifest"
	"quokka.dev/quokka/test/integration/framework"
)

// TestExampleDecidesAsTheSimulator plays examples/koord-queue through the
// manager with real Jobs, instant by instant of `quokka simulate`'s timeline on
// the same files: at each instant the Jobs the simulation submits are created
// and those it finishes are completed, and then the set of Jobs the manager has
// admitted must be the set the simulation has admitted — the one engine, driven
// offline and in a cluster, decides the same.
func TestExampleDecidesAsTheSimulator(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(framework.RepoRoot(), "examples", "koord-queue")
	simDocs, err := manifest.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(simDocs, simulator.Options{NewEngine: adapter.New})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := framework.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]framework.Document{}
	for _, d := range docs {
		switch d.Object.GetKind() {
		case "Job":
			jobs[d.Object.GetNamespace()+"/"+d.Object.GetName()] = d
			newNamespace(t, d.Object.GetNamespace())
		default:
			if err := framework.Apply(ctx, env.Client, d.Object); err != nil {
				t.Fatalf("%s: %v", d, err)
			}
			obj := d.Object
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
		}
	}

	admitted := map[string]bool{}
	var instants []int
	byInstant := map[int][]simulator.Event{}
	for _, e := range res.Events {
		at := int(e.Time.Seconds())
		if _, ok := byInstant[at]; !ok {
			instants = append(instants, at)
		}
		byInstant[at] = append(byInstant[at], e)
	}
	sort.Ints(instants)
	for _, at := range instants {
		for _, e := range byInstant[at] {
			ns, name, _ := strings.Cut(e.Workload, "/")
			switch e.Type {
			case simulator.Submitted:
				d, ok := jobs[e.Workload]
				if !ok {
					t.Fatalf("the simulation submits %s, which the example does not hold", e.Workload)
				}
				if err := framework.Apply(ctx, env.Client, d.Object); err != nil {
					t.Fatalf("%s: %v", d, err)
				}
			case simulator.Admitted:
				admitted[e.Workload] = true
			case simulator.Finished:
				delete(admitted, e.Workload)
				finishJob(t, ns, name)
			default:
				t.Fatalf("event %s of %s: the example has no such event in Koord-Queue's path", e.Type, e.Workload)
			}
		}
		want := sortedKeys(admitted)
		eventually(t, fmt.Sprintf("at %ds the manager runs %v, as the simulation", at, want), func() (bool, error) {
			got, err := holdingQuota(ctx, jobs)
			return slices.Equal(got, want), fmt.Errorf("manager: %v (%v)", got, err)
		})
		stays(t, fmt.Sprintf("at %ds nothing more is admitted", at), func() error {
			got, err := holdingQuota(ctx, jobs)
			if err != nil {
				return err
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("manager runs %v, the simulation %v", got, want)
			}
			return nil
		})
	}
}

// holdingQuota lists, sorted, the example's Jobs whose unit is Dequeued or
// Running.
func holdingQuota(ctx context.Context, jobs map[string]framework.Document) ([]string, error) {
	var out []string
	for key := range jobs {
		ns, name, _ := strings.Cut(key, "/")
		var u queuev1alpha1.QueueUnit
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &u); err != nil {
			continue // not created yet
		}
		if u.Status.Phase == queuev1alpha1.Dequeued || u.Status.Phase == queuev1alpha1.Running {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
