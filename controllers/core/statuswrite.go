package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// workloadStatusWriter updates a Workload's status with a PUT to the status
// subresource that carries only what that subresource reads, and without
// decoding the API server's reply.
//
// The body is the Workload's identity (name, namespace, uid), the
// resourceVersion it was read with (the write's precondition) and its status.
// The status subresource of a custom resource takes nothing else from the
// request: the API server starts from the stored object and replaces only its
// status, and its field manager ignores spec and metadata there (the
// strategy's reset fields) and the request's managedFields, so every owner
// keeps its fields. Leaving the rest out spares the manager's encoding and the
// API server's decoding of the pod templates, most of a Workload's bytes
// (TestStatusWriteKeepsSpecAndOwners, against a real API server, shows spec,
// labels, annotations and owners kept).
//
// The reply is not decoded: controller-runtime's client decodes every reply
// into the object it wrote; the loop never reads that copy (the informer
// brings the new version to the engine), and under Kueue's harness decoding the
// replies of its admission writes, a whole Workload each, was a twentieth of
// the manager's CPU. Errors keep their type (a conflict is still a conflict).
// The REST client is configured as controller-runtime's (codecs, user agent,
// so the same field manager).
type workloadStatusWriter struct {
	rest rest.Interface
}

// workloadStatusBody is the request a status write sends: a Workload with
// only its identity, resourceVersion and status.
type workloadStatusBody struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Status            kueue.WorkloadStatus `json:"status"`
}

func newWorkloadStatusWriter(mgr manager.Manager) (*workloadStatusWriter, error) {
	return workloadStatusWriterFor(mgr.GetConfig(), mgr.GetScheme(), mgr.GetHTTPClient())
}

func workloadStatusWriterFor(cfg *rest.Config, scheme *runtime.Scheme, httpClient *http.Client) (*workloadStatusWriter, error) {
	gvk := kueue.GroupVersion.WithKind("Workload")
	rc, err := apiutil.RESTClientForGVK(gvk, false, false, cfg, serializer.NewCodecFactory(scheme), httpClient)
	if err != nil {
		return nil, fmt.Errorf("building the REST client for workload status writes: %w", err)
	}
	return &workloadStatusWriter{rest: rc}, nil
}

// update writes wl's status; wl is left as it was, with the resourceVersion it
// was read with.
func (w *workloadStatusWriter) update(ctx context.Context, wl *kueue.Workload) error {
	body := workloadStatusBody{
		TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{Name: wl.Name, Namespace: wl.Namespace, UID: wl.UID, ResourceVersion: wl.ResourceVersion},
		Status:     wl.Status,
	}
	data, err := json.Marshal(&body)
	if err != nil {
		return fmt.Errorf("encoding the status of workload %s/%s: %w", wl.Namespace, wl.Name, err)
	}
	return w.rest.Put().
		Namespace(wl.Namespace).
		Resource("workloads").
		Name(wl.Name).
		SubResource("status").
		SetHeader("Content-Type", runtime.ContentTypeJSON).
		Body(data).
		Do(ctx).
		Error()
}
