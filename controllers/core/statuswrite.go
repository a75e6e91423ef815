package core

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// workloadStatusWriter updates a Workload's status without decoding the API
// server's reply. controller-runtime's client decodes every reply into the
// object it wrote; the loop never reads that copy (the informer brings the new
// version to the engine), and under Kueue's harness decoding the replies of
// its admission writes, a whole Workload each, pod template included, was a
// twentieth of the manager's CPU. The request is the one the client sends:
// the same REST client configuration, codecs and user agent (so the same field
// manager); only the reply is left undecoded, but for errors, which keep their
// type (a conflict is still a conflict).
type workloadStatusWriter struct {
	rest rest.Interface
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

// update writes wl's status; wl keeps the resourceVersion it was read with.
func (w *workloadStatusWriter) update(ctx context.Context, wl *kueue.Workload) error {
	return w.rest.Put().
		Namespace(wl.Namespace).
		Resource("workloads").
		Name(wl.Name).
		SubResource("status").
		Body(wl).
		Do(ctx).
		Error()
}
