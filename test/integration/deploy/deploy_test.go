//go:build integration

// Package deploy installs Quokka as `kubectl apply -k config/default` would and
// runs `quokka manager` with exactly the rights that install grants: the
// kustomization is rendered with kustomize's own library, every object is
// applied to a real API server (RBAC authorization on, as in a cluster), and the
// manager talks to it as the Deployment's ServiceAccount. A missing RBAC rule,
// a Deployment that mounts its Configuration where the command does not read it,
// or a manifest the API server refuses fails here rather than on a user's
// cluster. It has its own API server, since it installs the CRDs itself.
package deploy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuealpha "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/webhooks/certs"
	"quokka.dev/quokka/controllers/koord"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

// render builds config/default as `kubectl apply -k` does.
func render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(framework.RepoRoot(), "config", "default"))
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range resMap.Resources() {
		// Through JSON, so that numbers are int64 as in any decoded object.
		data, err := r.MarshalJSON()
		if err != nil {
			t.Fatalf("rendered %s: %v", r.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			t.Fatalf("rendered %s: %v", r.CurId(), err)
		}
		objs = append(objs, u)
	}
	return objs
}

// find returns the one rendered object of kind whose name starts with prefix
// (a generated ConfigMap's name ends in a hash).
func find(t *testing.T, objs []*unstructured.Unstructured, kind, prefix string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && strings.HasPrefix(o.GetName(), prefix) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("config/default renders %d %s objects named %s*, want 1", len(found), kind, prefix)
	}
	return found[0]
}

func convert[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

// The status table's "Deployment: kustomize (`kubectl apply -k
// config/default`), RBAC from markers": the install is applied as rendered and
// the manager, with only its ServiceAccount's rights, leads, fills its webhook
// certificate, admits a Workload and a Job, dequeues a Koord-Queue Job,
// distributes a provider's capacity (Dynamic Quota Orchestration turned on),
// and serves metrics to a reader bound to quokka-metrics-reader; it never logs
// a refusal.
func TestInstalledManagerRunsWithItsOwnRights(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run with KUBEBUILDER_ASSETS=$(hack/envtest.sh)")
	}
	logs := &framework.LogRecorder{}
	logger := funcr.New(logs.Record, funcr.Options{})
	ctrl.SetLogger(logger)
	// client-go logs through klog: a reflector refused a list or watch says so
	// only there.
	klog.SetLogger(logger)
	defer func() {
		if t.Failed() || os.Getenv("QUOKKA_TEST_LOG") != "" {
			t.Logf("manager log:\n%s", strings.Join(logs.Lines(), "\n"))
		}
	}()

	objs := render(t)

	// What the Deployment runs must meet what the rest of the install provides.
	deploy := convert[appsv1.Deployment](t, find(t, objs, "Deployment", "quokka-controller-manager"))
	pod := deploy.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(pod.Containers))
	}
	container := pod.Containers[0]
	if container.Image != "quokka:latest" {
		t.Errorf("the manager's image is %q, want the images transformer's quokka:latest", container.Image)
	}
	configPath := ""
	for _, a := range container.Args {
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			configPath = v
		}
	}
	if len(container.Args) == 0 || container.Args[0] != "manager" || configPath == "" {
		t.Fatalf("the manager's args are %q, want `manager --config=...`", container.Args)
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range container.VolumeMounts {
		mounts[m.Name] = m
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	configMount, ok := mounts["config"]
	if !ok || volumes["config"].ConfigMap == nil {
		t.Fatal("the Deployment mounts no ConfigMap volume named config")
	}
	configMap := find(t, objs, "ConfigMap", "quokka-manager-config")
	if got := volumes["config"].ConfigMap.Name; got != configMap.GetName() {
		t.Errorf("the Deployment mounts ConfigMap %q, the install renders %q", got, configMap.GetName())
	}
	configKey := strings.TrimPrefix(configPath, path.Clean(configMount.MountPath)+"/")
	configText, ok, _ := unstructured.NestedString(configMap.Object, "data", configKey)
	if !ok || configKey == configPath {
		t.Fatalf("--config=%s is not a key of ConfigMap %s mounted at %s", configPath, configMap.GetName(), configMount.MountPath)
	}
	certMount, ok := mounts["webhook-certs"]
	if !ok || volumes["webhook-certs"].Secret == nil || volumes["webhook-certs"].Secret.SecretName != certs.SecretName {
		t.Errorf("the Deployment does not mount Secret %s as webhook-certs", certs.SecretName)
	}
	var config map[string]any
	if err := yaml.Unmarshal([]byte(configText), &config); err != nil {
		t.Fatalf("the ConfigMap's %s: %v", configKey, err)
	}
	namespace, _, _ := unstructured.NestedString(config, "namespace")
	if namespace != deploy.Namespace {
		t.Errorf("the Configuration's namespace is %q, the Deployment runs in %q", namespace, deploy.Namespace)
	}
	if certDir, ok, _ := unstructured.NestedString(config, "webhook", "certDir"); ok && certDir != certMount.MountPath {
		t.Errorf("the Configuration reads certificates from %s, the Secret is mounted at %s", certDir, certMount.MountPath)
	} else if !ok && certMount.MountPath != "/tmp/k8s-webhook-server/serving-certs" {
		t.Errorf("the Secret is mounted at %s, not at the default webhook certDir", certMount.MountPath)
	}

	env := &envtest.Environment{}
	adminConfig, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	sch := scheme.New()
	if err := apiextensionsv1.AddToScheme(sch); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(adminConfig, client.Options{Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	create := func(objs ...client.Object) {
		t.Helper()
		for _, o := range objs {
			if err := c.Create(ctx, o); err != nil {
				t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
			}
		}
	}

	// Namespaces and CRDs first, so that the rest can be checked against them.
	apply := func(o *unstructured.Unstructured) {
		t.Helper()
		if err := c.Create(ctx, o.DeepCopy(), client.DryRunAll); err != nil {
			t.Fatalf("the API server refuses %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		if err := framework.Apply(ctx, c, o); err != nil {
			t.Fatalf("applying %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	var crds []string
	for _, o := range objs {
		switch o.GetKind() {
		case "Namespace":
			apply(o)
		case "CustomResourceDefinition":
			apply(o)
			crds = append(crds, o.GetName())
		}
	}
	for _, name := range crds {
		framework.Eventually(t, nil, "CRD "+name+" established", func() error {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return err
			}
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
			return fmt.Errorf("not established")
		})
	}
	for _, o := range objs {
		if o.GetKind() == "Namespace" || o.GetKind() == "CustomResourceDefinition" {
			continue
		}
		if o.GetKind() == "MutatingWebhookConfiguration" || o.GetKind() == "ValidatingWebhookConfiguration" {
			// This API server cannot reach the webhook Service (no cluster
			// network), so the webhooks may fail open here; nothing else
			// changes, and the manager still fills in their caBundle.
			o = o.DeepCopy()
			hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			for _, h := range hooks {
				h.(map[string]any)["failurePolicy"] = "Ignore"
			}
			if err := unstructured.SetNestedSlice(o.Object, hooks, "webhooks"); err != nil {
				t.Fatal(err)
			}
		}
		apply(o)
	}

	// The manager, run as the Deployment's ServiceAccount, with the rendered
	// Configuration; only what a pod on this machine cannot have is changed:
	// addresses on 127.0.0.1 and a writable cert dir (no kubelet mounts the
	// Secret, so the manager writes the certificate there itself).
	serviceAccount := fmt.Sprintf("system:serviceaccount:%s:%s", deploy.Namespace, pod.ServiceAccountName)
	waitForBindings(t, c, serviceAccount, deploy.Namespace)
	kubeconfig := impersonatingKubeconfig(t, env.KubeConfig, serviceAccount)
	webhook, _, _ := unstructured.NestedMap(config, "webhook")
	if webhook == nil {
		webhook = map[string]any{}
	}
	webhook["host"] = "127.0.0.1"
	webhook["port"] = int64(framework.FreePort(t))
	webhook["certDir"] = filepath.Join(t.TempDir(), "certs")
	config["webhook"] = webhook
	// Dynamic Quota Orchestration is off in the install's Configuration; a
	// team turns it on there, with the same RBAC.
	gates, _, _ := unstructured.NestedMap(config, "featureGates")
	if gates == nil {
		gates = map[string]any{}
	}
	gates["DynamicQuotaOrchestration"] = true
	config["featureGates"] = gates
	configFile := filepath.Join(t.TempDir(), "config.yaml")
	data, err := yaml.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(configFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	metricsAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(framework.FreePort(t)))
	healthAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(framework.FreePort(t)))
	mgr := framework.StartManagerCommand(t, "--kubeconfig", kubeconfig, "--config", configFile,
		"--metrics-bind-address", metricsAddr, "--health-probe-bind-address", healthAddr)

	// It leads: its Lease, in the install's namespace, names a holder.
	leaseName, _, _ := unstructured.NestedString(config, "leaderElection", "resourceName")
	framework.Eventually(t, mgr.Alive, "the manager's Lease held", func() error {
		lease := &coordinationv1.Lease{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: leaseName}, lease); err != nil {
			return err
		}
		if ptr.Deref(lease.Spec.HolderIdentity, "") == "" {
			return fmt.Errorf("no holder")
		}
		return nil
	})

	// It fills the webhook Secret and both configurations' caBundle.
	framework.Eventually(t, mgr.Alive, "the webhook certificate issued", func() error {
		secret := &corev1.Secret{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: certs.SecretName}, secret); err != nil {
			return err
		}
		if len(secret.Data["ca.crt"]) == 0 || len(secret.Data["tls.crt"]) == 0 {
			return fmt.Errorf("Secret %s not filled", certs.SecretName)
		}
		for _, name := range []string{certs.MutatingConfigurationName, certs.ValidatingConfigurationName} {
			kind := "MutatingWebhookConfiguration"
			if name == certs.ValidatingConfigurationName {
				kind = "ValidatingWebhookConfiguration"
			}
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("admissionregistration.k8s.io/v1")
			u.SetKind(kind)
			if err := c.Get(ctx, client.ObjectKey{Name: name}, u); err != nil {
				return err
			}
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, h := range hooks {
				if ca, _, _ := unstructured.NestedString(h.(map[string]any), "clientConfig", "caBundle"); ca == "" {
					return fmt.Errorf("%s has a webhook without caBundle", name)
				}
			}
		}
		return nil
	})

	// It admits a Workload and a Job (the Job integration's Workload).
	team := "team"
	create(
		&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "default-flavor"}},
		&kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: team}, Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: "default-flavor", Resources: []kueue.ResourceQuota{
					{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("4")},
				}}},
			}},
		}},
		&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: team},
			Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(team)}},
	)
	podSpec := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		}}},
	}
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "plain"},
		Spec: kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(team), PodSets: []kueue.PodSet{{
			Name: kueue.DefaultPodSetName, Count: 1, Template: corev1.PodTemplateSpec{Spec: podSpec},
		}}},
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "job", Labels: map[string]string{kueue.QueueNameLabel: team}},
		Spec:       batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: podSpec}},
	}
	create(wl, job)
	framework.Eventually(t, mgr.Alive, "the Workload admitted", framework.WorkloadAdmitted(ctx, c, client.ObjectKeyFromObject(wl)))
	framework.Eventually(t, mgr.Alive, "the Job admitted and resumed", func() error {
		got := &batchv1.Job{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(job), got); err != nil {
			return err
		}
		if ptr.Deref(got.Spec.Suspend, true) {
			return fmt.Errorf("still suspended")
		}
		return nil
	})
	framework.Eventually(t, mgr.Alive, "an Admitted event recorded", func() error {
		events := &corev1.EventList{}
		if err := c.List(ctx, events, client.InNamespace("default")); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == wl.Name && e.Reason == "Admitted" {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(events.Items))
	})

	// The Koord-Queue path: an ElasticQuota gets its Queue, a Job labelled
	// with it gets a QueueUnit, which is dequeued, and the Job resumed.
	eq := &koordv1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "koord-team",
			Labels: map[string]string{koordv1alpha1.ParentLabel: ""}},
		Spec: koordv1alpha1.ElasticQuotaSpec{
			Min: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
			Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
		},
	}
	koordJob := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "koord-job",
			Labels: map[string]string{koordv1alpha1.QuotaNameLabel: eq.Name}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: podSpec}},
	}
	create(eq, koordJob)
	framework.Eventually(t, mgr.Alive, "the Koord-Queue unit dequeued and its Job resumed", func() error {
		unit := &queuev1alpha1.QueueUnit{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(koordJob), unit); err != nil {
			return err
		}
		if unit.Status.Phase != queuev1alpha1.Dequeued && unit.Status.Phase != queuev1alpha1.Running {
			return fmt.Errorf("QueueUnit in phase %q: %s", unit.Status.Phase, unit.Status.Message)
		}
		got := &batchv1.Job{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(koordJob), got); err != nil {
			return err
		}
		if ptr.Deref(got.Spec.Suspend, true) {
			return fmt.Errorf("Job still suspended")
		}
		q := &queuev1alpha1.Queue{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: queuev1alpha1.DefaultQueueNamespace, Name: eq.Name}, q); err != nil {
			return err
		}
		if q.Annotations[koord.QueueUsedAnnotation] != `{"cpu":1000}` {
			return fmt.Errorf("Queue's usage annotation %q", q.Annotations[koord.QueueUsedAnnotation])
		}
		return nil
	})

	// Dynamic Quota Orchestration: a provider's capacity is distributed over
	// a Cohort's subtree and written to its ClusterQueue and its own status.
	dqoCQ := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "dqo-a"}, Spec: kueue.ClusterQueueSpec{
		CohortName: "dqo-root",
		ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
			Flavors: []kueue.FlavorQuotas{{Name: "dqo-flavor", Resources: []kueue.ResourceQuota{
				{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("10")},
			}}},
		}},
	}}
	provider := &kueuealpha.CapacityProvider{
		ObjectMeta: metav1.ObjectMeta{Name: "by-hand"},
		Spec: kueuealpha.CapacityProviderSpec{ControllerName: "example.com/by-hand",
			OrchestratedFlavors: []kueuealpha.OrchestratedFlavor{{Name: "dqo-flavor"}}},
	}
	orchestrator := &kueuealpha.DynamicQuotaOrchestrator{ObjectMeta: metav1.ObjectMeta{Name: "dqo"},
		Spec: kueuealpha.DynamicQuotaOrchestratorSpec{
			CapacityDiscovery: kueuealpha.CapacityDiscovery{Providers: []kueuealpha.ProviderContribution{{Name: provider.Name}}},
			CapacityDistribution: &kueuealpha.CapacityDistribution{
				SubtreeRootQuotaRef: kueuealpha.SubtreeRootQuotaRef{Kind: kueuealpha.CohortKind, Name: "dqo-root"},
			},
		}}
	create(&kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "dqo-root"}}, dqoCQ, provider, orchestrator)
	provider.Status.Capacity = &kueuealpha.Capacity{Flavors: []kueuealpha.FlavorCapacity{{
		Name: "dqo-flavor", Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("20")},
	}}}
	meta.SetStatusCondition(&provider.Status.Conditions, metav1.Condition{
		Type: kueuealpha.CapacitySynchronized, Status: metav1.ConditionTrue,
		Reason: kueuealpha.CapacityProviderReasonSynchronized, Message: "written by the test",
		ObservedGeneration: provider.Generation,
	})
	if err := c.Status().Update(ctx, provider); err != nil {
		t.Fatalf("publishing the provider's capacity: %v", err)
	}
	framework.Eventually(t, mgr.Alive, "the provider's capacity distributed", func() error {
		got := &kueuealpha.DynamicQuotaOrchestrator{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(orchestrator), got); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, kueuealpha.Distributed) {
			return fmt.Errorf("orchestrator conditions %v", got.Status.Conditions)
		}
		cq := &kueue.ClusterQueue{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(dqoCQ), cq); err != nil {
			return err
		}
		if cq.Status.EffectiveQuotas == nil {
			return fmt.Errorf("ClusterQueue %s has no effectiveQuotas", cq.Name)
		}
		return nil
	})

	// Metrics: a reader bound to the install's quokka-metrics-reader ClusterRole
	// gets them (the manager checks its token with its own rights); no token
	// gets nothing.
	reader := find(t, objs, "ClusterRole", "quokka-metrics-reader")
	readerSA := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "prometheus"}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-reads-quokka"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.GetName()},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "prometheus"}},
	}
	create(readerSA, binding)
	clientset, err := kubernetes.NewForConfig(adminConfig)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := clientset.CoreV1().ServiceAccounts("default").CreateToken(ctx, "prometheus",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for the metrics reader: %v", err)
	}
	scrape := func(token string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+metricsAddr+"/metrics", nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		// The metrics server's certificate is self-signed, as controller-runtime
		// makes it when no certificate is configured.
		httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // see above
		resp, err := httpClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	framework.Eventually(t, mgr.Alive, "metrics served to the reader", func() error {
		code, body, err := scrape(tr.Status.Token)
		if err != nil {
			return err
		}
		if code != http.StatusOK {
			return fmt.Errorf("GET /metrics: %d %s", code, body)
		}
		if !strings.Contains(body, "kueue_admitted_workloads_total") {
			return fmt.Errorf("no kueue_admitted_workloads_total among the metrics")
		}
		return nil
	})
	if code, _, err := scrape(""); err != nil || code == http.StatusOK {
		t.Errorf("GET /metrics without a token: %d (%v), want it refused", code, err)
	}

	// Nothing it tried was refused.
	mgr.Stop(t)
	var refused []string
	for _, l := range logs.Lines() {
		if strings.Contains(strings.ToLower(l), "forbidden") {
			refused = append(refused, l)
		}
	}
	if len(refused) > 0 {
		t.Errorf("the manager was refused %d times with its ServiceAccount's rights:\n%s", len(refused), strings.Join(slices.Compact(refused), "\n"))
	}
}

// impersonatingKubeconfig writes a copy of the admin kubeconfig whose user acts
// as user (a ServiceAccount's name gets its groups too, as a pod's token would).
func impersonatingKubeconfig(t *testing.T, admin []byte, user string) string {
	t.Helper()
	cfg, err := clientcmd.Load(admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = user
	}
	file := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, file); err != nil {
		t.Fatal(err)
	}
	return file
}

// waitForBindings waits until the API server's authorizer has seen the
// install's bindings (it learns them from its own informers, a moment after
// they are created), so that a refusal the manager logs is a missing rule,
// not a race: one rule of each bound role is asked for.
func waitForBindings(t *testing.T, c client.Client, user, namespace string) {
	t.Helper()
	checks := []authorizationv1.ResourceAttributes{
		{Group: kueue.GroupVersion.Group, Resource: "workloads", Verb: "list"},                   // quokka-manager-role
		{Namespace: namespace, Resource: "secrets", Verb: "get"},                                 // its namespaced Role
		{Namespace: namespace, Group: "coordination.k8s.io", Resource: "leases", Verb: "create"}, // leader election
		{Group: "authentication.k8s.io", Resource: "tokenreviews", Verb: "create"},               // metrics auth
	}
	for _, attrs := range checks {
		framework.Eventually(t, nil, fmt.Sprintf("%s may %s %s", user, attrs.Verb, attrs.Resource), func() error {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
				ResourceAttributes: &attrs,
			}}
			if err := c.Create(context.Background(), review); err != nil {
				return err
			}
			if !review.Status.Allowed {
				return fmt.Errorf("not allowed yet: %s", review.Status.Reason)
			}
			return nil
		})
	}
}
