package core

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
)

// The loop's status writer PUTs the Workload to the status subresource, with
// its apiVersion, kind, name, namespace, resourceVersion and status, but
// neither its spec nor the rest of its metadata, which the subresource ignores
// (the integration test TestStatusWriteKeepsSpecAndOwners shows the API server
// keeps them); it leaves the written object as it was instead of
// decoding the reply into it, and reports a refused write with its type: a
// conflict stays a conflict, which updateWorkloadStatus retries.
func TestWorkloadStatusWriter(t *testing.T) {
	var calls int
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.Method != http.MethodPut || r.URL.Path != "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads/wl/status" {
			t.Errorf("request %s %s, want PUT of the workload's status", r.Method, r.URL.Path)
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &got); err != nil {
			t.Errorf("body is not JSON: %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		if calls == 1 {
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonConflict, Code: http.StatusConflict, Message: "the object has been modified"})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
			"metadata": map[string]any{"name": "wl", "namespace": "ns", "resourceVersion": "99"}})
	}))
	defer srv.Close()
	w, err := workloadStatusWriterFor(&rest.Config{Host: srv.URL}, scheme.New(), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "wl", Namespace: "ns", ResourceVersion: "7",
		Labels:        map[string]string{"team": "a"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "creator", Operation: metav1.ManagedFieldsOperationUpdate}}}}
	wl.Spec.QueueName = "lq"
	wl.Spec.PodSets = []kueue.PodSet{{Name: "main", Count: 1}}
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq"}

	if err := w.update(context.Background(), wl); !apierrors.IsConflict(err) {
		t.Fatalf("first write: %v, want a conflict", err)
	}
	if got["apiVersion"] != "kueue.x-k8s.io/v1beta2" || got["kind"] != "Workload" {
		t.Errorf("body's apiVersion %v and kind %v, want kueue.x-k8s.io/v1beta2 Workload", got["apiVersion"], got["kind"])
	}
	if st, _ := got["status"].(map[string]any); st == nil || st["admission"] == nil {
		t.Errorf("body carries no status.admission: %v", got)
	}
	if _, ok := got["spec"]; ok {
		t.Errorf("body carries the spec, which the status subresource ignores: %v", got["spec"])
	}
	md, _ := got["metadata"].(map[string]any)
	if _, ok := md["managedFields"]; ok {
		t.Errorf("body carries metadata.managedFields, which a subresource ignores")
	}
	if md["resourceVersion"] != "7" || md["name"] != "wl" || md["namespace"] != "ns" {
		t.Errorf("body's metadata %v, want the workload's name, namespace and resourceVersion 7", md)
	}
	if _, ok := md["labels"]; ok {
		t.Errorf("body carries metadata.labels, which the status subresource ignores")
	}
	if err := w.update(context.Background(), wl); err != nil {
		t.Fatalf("second write: %v", err)
	}
	if wl.ResourceVersion != "7" || wl.Status.Admission == nil || len(wl.ManagedFields) != 1 || wl.Spec.QueueName != "lq" {
		t.Errorf("the written workload changed (resourceVersion %q, admission %v, managedFields %v, queue %q): the write must leave it as it was",
			wl.ResourceVersion, wl.Status.Admission, wl.ManagedFields, wl.Spec.QueueName)
	}
}
