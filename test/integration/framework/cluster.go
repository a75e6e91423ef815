//go:build integration

package framework

import (
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"quokka.dev/quokka/test/kubecluster"
)

// Cluster is the rest of a cluster around envtest's API server (see
// kubecluster.Cluster).
type Cluster = kubecluster.Cluster

// FakeNodeAnnotation marks the Nodes KWOK plays.
const FakeNodeAnnotation = kubecluster.FakeNodeAnnotation

// StartCluster starts kube-controller-manager, kube-scheduler and KWOK against
// e's API server, as an administrator. stagesFile holds KWOK's Stages (how
// nodes and pods move through their lifecycle). The binaries come from
// KUBEBUILDER_ASSETS (`hack/envtest.sh --cluster`).
func (e *WebhookEnv) StartCluster(stagesFile string) (*Cluster, error) {
	user, err := e.env.AddUser(envtest.User{Name: "cluster-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding an administrator for the cluster's components: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("writing the administrator's kubeconfig: %w", err)
	}
	return kubecluster.Start(os.Getenv("KUBEBUILDER_ASSETS"), kubeconfig, stagesFile)
}
