package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// maxReportedErrors bounds how many problems one load reports: enough to fix a
// batch of typos at once, not so many that the first one scrolls away.
const maxReportedErrors = 20

// Load reads every path (a file, or a directory of manifests read recursively in
// sorted order) and returns its documents in the order read. Every problem names
// the file, the document and, when known, the object; Load reports up to 20
// problems at once.
func Load(paths []string) ([]Document, error) {
	files, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	results := parseFiles(files)
	var docs []Document
	var errs []error
	for _, r := range results {
		docs = append(docs, r.docs...)
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	if len(errs) > 0 {
		return nil, limitErrors(flatten(errs))
	}
	if err := checkAcrossDocuments(docs); err != nil {
		return nil, err
	}
	return docs, nil
}

// fileResult is what parsing one file gave.
type fileResult struct {
	docs []Document
	err  error
}

// parseFiles reads and parses files on all cores, since a generated week is a
// hundred thousand documents in a dozen files, and returns the results in the
// order of files, so that the outcome does not depend on scheduling.
func parseFiles(files []string) []fileResult {
	results := make([]fileResult, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				data, err := os.ReadFile(files[i])
				if err != nil {
					results[i].err = fmt.Errorf("reading %s: %w", files[i], err)
					continue
				}
				results[i].docs, results[i].err = Parse(files[i], data)
			}
		}()
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

// Parse decodes the documents of one file. It returns the documents it could read
// and, when some could not, an error listing why.
func Parse(file string, data []byte) ([]Document, error) {
	raws, err := splitDocuments(data)
	if err != nil {
		return nil, &Error{Source: Source{File: file}, Err: fmt.Errorf("splitting YAML documents: %w", err)}
	}
	docs := make([]Document, 0, len(raws))
	var errs []error
	for i, raw := range raws {
		src := Source{File: file, Document: i + 1}
		doc, err := parseDocument(src, raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, *doc)
	}
	return docs, errors.Join(errs...)
}

// header is the part of any document that says what it is.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

func (h header) describe() string {
	switch {
	case h.Kind == "":
		return ""
	case h.Metadata.Name == "":
		return h.Kind
	case h.Metadata.Namespace != "":
		return h.Kind + " " + h.Metadata.Namespace + "/" + h.Metadata.Name
	default:
		return h.Kind + " " + h.Metadata.Name
	}
}

// parseDocument decodes, defaults and validates one document.
func parseDocument(src Source, raw []byte) (*Document, error) {
	data, err := toJSON(raw)
	if err != nil {
		return nil, &Error{Source: src, Err: err}
	}
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, &Error{Source: src, Err: explainDecodeError(data, &h, err)}
	}
	fail := func(err error) (*Document, error) {
		return nil, &Error{Source: src, Object: h.describe(), Err: err}
	}
	if h.APIVersion == "" || h.Kind == "" {
		var errs field.ErrorList
		if h.APIVersion == "" {
			errs = append(errs, field.Required(field.NewPath("apiVersion"), ""))
		}
		if h.Kind == "" {
			errs = append(errs, field.Required(field.NewPath("kind"), ""))
		}
		return fail(fieldErrors(errs))
	}
	info, ok := kinds()[h.APIVersion+"/"+h.Kind]
	if !ok {
		return fail(unknownKindError(h.APIVersion, h.Kind))
	}
	t, terrs := parseTiming(h.Metadata.Annotations, isJobKind(Kind(h.Kind)))
	if len(terrs) > 0 {
		return fail(fieldErrors(terrs))
	}
	doc := &Document{Source: src, At: t.at, Runtime: t.runtime, HasRuntime: t.hasRuntime, RuntimeAssumed: t.assumed,
		PodsReadyAfter: t.podsReadyAfter}
	if Kind(h.Kind) == KindConfiguration {
		cfg, err := decodeConfiguration(data)
		if err != nil {
			return fail(err)
		}
		doc.Key = Key{Kind: KindConfiguration}
		doc.Object = cfg
		return doc, nil
	}
	obj := info.newObject()
	if err := decodeStrict(data, obj); err != nil {
		return fail(err)
	}
	if errs := prepare(obj, info.namespaced, doc); len(errs) > 0 {
		return fail(fieldErrors(errs))
	}
	return doc, nil
}

// toJSON converts a document to JSON. A document that already is JSON (generated
// traces write one object per line) is used as is: the strict decoder catches its
// duplicate keys, and skipping the YAML parser makes large traces load several
// times faster.
func toJSON(raw []byte) ([]byte, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t, nil
	}
	data, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	return data, nil
}

// unknownKindError explains what is accepted, and says so more precisely when only
// the apiVersion is wrong (a v1beta1 ClusterQueue).
func unknownKindError(apiVersion, kind string) error {
	for key, info := range kinds() {
		if strings.TrimPrefix(key, info.apiVersion+"/") == kind {
			return fmt.Errorf("apiVersion: Unsupported value: %q: %s is read as %s", apiVersion, kind, info.apiVersion)
		}
	}
	return fmt.Errorf("kind: Unsupported value: %q (apiVersion %s): the simulator accepts %s", kind, apiVersion, acceptedKinds())
}

// decodeConfiguration reads the manager's Configuration through the config package,
// so the simulator and the manager accept exactly the same files. A Configuration
// has no metadata; the simulator's annotations are taken out before decoding.
func decodeConfiguration(data []byte) (*configv1beta2.Configuration, error) {
	var generic map[string]any
	if err := json.Unmarshal(data, &generic); err != nil {
		return nil, err
	}
	if md, ok := generic["metadata"]; ok {
		m, _ := md.(map[string]any)
		for k := range m {
			if k != "annotations" {
				return nil, fmt.Errorf("metadata.%s: Forbidden: a Configuration has no metadata; only the simulator's annotations may be set there", k)
			}
		}
		ann, _ := m["annotations"].(map[string]any)
		for k := range ann {
			if !strings.HasPrefix(k, AnnotationPrefix) {
				return nil, fmt.Errorf("metadata.annotations[%s]: Forbidden: a Configuration has no metadata; only the simulator's annotations may be set there", k)
			}
		}
		delete(generic, "metadata")
	}
	stripped, err := json.Marshal(generic)
	if err != nil {
		return nil, err
	}
	return configv1beta2.Decode(stripped)
}

// prepare fills in what the API server would (namespace, generation), validates the
// object and sets the document's key and workload.
func prepare(obj any, namespaced bool, doc *Document) field.ErrorList {
	var errs field.ErrorList
	var kind Kind
	switch o := obj.(type) {
	case *kueue.ResourceFlavor:
		kind, errs = KindResourceFlavor, validateResourceFlavor(o)
	case *kueue.ClusterQueue:
		kind, errs = KindClusterQueue, validateClusterQueue(o)
	case *kueue.Cohort:
		kind, errs = KindCohort, validateCohort(o)
	case *kueue.LocalQueue:
		kind, errs = KindLocalQueue, validateLocalQueue(o)
	case *kueue.WorkloadPriorityClass:
		kind, errs = KindWorkloadPriorityClass, validateWorkloadPriorityClass(o)
	case *kueue.Workload:
		kind, errs = KindWorkload, validateWorkload(o)
	case *kueuev1alpha1.CapacityProvider:
		kind, errs = KindCapacityProvider, validateCapacityProvider(o)
	case *kueuev1alpha1.DynamicQuotaOrchestrator:
		kind, errs = KindDynamicQuotaOrchestrator, validateDynamicQuotaOrchestrator(o)
	case *kueuev1alpha1.PreemptionConfig:
		kind, errs = KindPreemptionConfig, validatePreemptionConfig(o)
	case *koordv1alpha1.ElasticQuota:
		kind, errs = KindElasticQuota, validateElasticQuota(o)
	case *queuev1alpha1.Queue:
		kind, errs = KindQueue, validateQueue(o)
	case *queuev1alpha1.QueueUnit:
		kind, errs = KindQueueUnit, validateQueueUnit(o)
	case *corev1.Namespace:
		kind, errs = KindNamespace, validateNamespace(o)
	case *schedulingv1.PriorityClass:
		kind, errs = KindPriorityClass, validateRequiredName(o.Name, false)
	case *corev1.LimitRange:
		kind, errs = KindLimitRange, validateLimitRange(o)
	case *nodev1.RuntimeClass:
		kind, errs = KindRuntimeClass, validateRuntimeClass(o)
	case *batchv1.Job:
		kind, errs = KindJob, validateJob(o)
	default:
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("no validation for %T", obj))}
	}
	if len(errs) > 0 {
		return errs
	}
	meta := objectMeta(obj)
	if !namespaced {
		// kubectl drops a namespace on a cluster-scoped object; so do we.
		meta.Namespace = ""
	} else if meta.Namespace == "" {
		meta.Namespace = corev1.NamespaceDefault
	}
	if meta.Generation == 0 {
		// The API server starts every object at generation 1; a CapacityProvider's
		// condition is only trusted at its object's generation.
		meta.Generation = 1
	}
	doc.Key = Key{Kind: kind, Namespace: meta.Namespace, Name: meta.Name}
	doc.Object = obj
	switch o := obj.(type) {
	case *kueue.Workload:
		for i := range o.Spec.PodSets {
			if o.Spec.PodSets[i].Name == "" {
				o.Spec.PodSets[i].Name = kueue.DefaultPodSetName
			}
		}
		doc.Workload = o
	case *batchv1.Job:
		// Requests are left as written: the engine counts a missing one as
		// the manager does (the namespace's LimitRange default request
		// first, then the container's limit; Kueue's AdjustResources).
		doc.Workload = workloadForJob(o)
	case *corev1.LimitRange:
		defaultLimitRange(o)
	}
	return nil
}

// defaultLimitRange is the API server's defaulting of a LimitRange's
// container items, which the manager reads: a resource with a maximum and
// no default limit gets the maximum as its default limit; one with a default
// limit and no default request gets the limit as its default request; one
// with a minimum and still no default request gets the minimum.
func defaultLimitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		if item.Default == nil {
			item.Default = corev1.ResourceList{}
		}
		if item.DefaultRequest == nil {
			item.DefaultRequest = corev1.ResourceList{}
		}
		fill := func(dst, src corev1.ResourceList) {
			for name, v := range src {
				if _, ok := dst[name]; !ok {
					dst[name] = v.DeepCopy()
				}
			}
		}
		fill(item.Default, item.Max)
		fill(item.DefaultRequest, item.Default)
		fill(item.DefaultRequest, item.Min)
	}
}

// checkAcrossDocuments finds conflicts that no single document shows: a Job and a
// Workload with the same namespace and name would be one workload in the
// timeline, and so would a QueueUnit and a Job or Workload (the unit of a Job
// carries the Job's name).
func checkAcrossDocuments(docs []Document) error {
	seen := map[Kind]map[string]Source{KindJob: {}, KindWorkload: {}, KindQueueUnit: {}}
	var errs []error
	for _, d := range docs {
		if !isJobKind(d.Key.Kind) {
			continue
		}
		name := d.Key.Namespace + "/" + d.Key.Name
		seen[d.Key.Kind][name] = d.Source
		for _, other := range []Kind{KindJob, KindWorkload, KindQueueUnit} {
			if other == d.Key.Kind {
				continue
			}
			if src, ok := seen[other][name]; ok {
				errs = append(errs, conflictError(d, other, src))
			}
		}
	}
	return limitErrors(errs)
}

func conflictError(d Document, otherKind Kind, other Source) error {
	if d.Key.Kind == KindQueueUnit || otherKind == KindQueueUnit {
		return &Error{Source: d.Source, Object: d.Key.String(), Err: fmt.Errorf(
			"a %s and a %s are both named %s/%s (the other is %s): the timeline names a job's unit after the job, so rename one",
			d.Key.Kind, otherKind, d.Key.Namespace, d.Key.Name, other)}
	}
	return &Error{Source: d.Source, Object: d.Key.String(), Err: fmt.Errorf(
		"a Job and a Workload are both named %s/%s (the other is %s): the timeline names a Job's workload after the Job, so rename one",
		d.Key.Namespace, d.Key.Name, other)}
}

// flatten unwraps errors.Join results so that limitErrors counts single problems.
func flatten(errs []error) []error {
	var out []error
	for _, e := range errs {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			out = append(out, flatten(j.Unwrap())...)
			continue
		}
		out = append(out, e)
	}
	return out
}

// limitErrors joins at most maxReportedErrors errors and says how many were left
// out.
func limitErrors(errs []error) error {
	if len(errs) <= maxReportedErrors {
		return errors.Join(errs...)
	}
	kept := append([]error{}, errs[:maxReportedErrors]...)
	kept = append(kept, fmt.Errorf("... and %d more problems", len(errs)-maxReportedErrors))
	return errors.Join(kept...)
}
