package workload_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/workload"
)

// rl is a resource list from name, quantity pairs.
func rl(kv ...string) corev1.ResourceList {
	if len(kv) == 0 {
		return nil
	}
	return outputList(kv...)
}

// limitRange is a LimitRange with one item of type t, its fields from
// field, name, quantity triples ("Max", "cpu", "5").
func limitRange(t corev1.LimitType, values ...string) corev1.LimitRange {
	item := corev1.LimitRangeItem{Type: t}
	for i := 0; i+2 < len(values)+1; i += 3 {
		q := corev1.ResourceList{corev1.ResourceName(values[i+1]): resource.MustParse(values[i+2])}
		switch values[i] {
		case "Max":
			item.Max = mergeInto(item.Max, q)
		case "Min":
			item.Min = mergeInto(item.Min, q)
		case "Default":
			item.Default = mergeInto(item.Default, q)
		case "DefaultRequest":
			item.DefaultRequest = mergeInto(item.DefaultRequest, q)
		case "MaxLimitRequestRatio":
			item.MaxLimitRequestRatio = mergeInto(item.MaxLimitRequestRatio, q)
		}
	}
	return corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{item}}}
}

func mergeInto(dst, src corev1.ResourceList) corev1.ResourceList {
	if dst == nil {
		dst = corev1.ResourceList{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// Kueue: pkg/util/limitrange/limitrange_test.go, TestSummarize: the lowest
// maximum and ratio, the highest minimum, the first default of each
// resource.
func TestKueueSummarizeLimitRanges(t *testing.T) {
	cases := []struct {
		name   string
		ranges []corev1.LimitRange
		want   workload.LimitRangeSummary
	}{
		{name: "empty"},
		{
			name: "podDefaults",
			ranges: []corev1.LimitRange{
				limitRange(corev1.LimitTypePod, "Default", "cpu", "2", "DefaultRequest", "cpu", "500m", "DefaultRequest", "memory", "1Gi"),
				limitRange(corev1.LimitTypePod, "Default", "memory", "2Gi", "DefaultRequest", "cpu", "1"),
			},
			want: workload.LimitRangeSummary{corev1.LimitTypePod: {Type: corev1.LimitTypePod,
				Default:        rl("cpu", "2", "memory", "2Gi"),
				DefaultRequest: rl("cpu", "500m", "memory", "1Gi"),
			}},
		},
		{
			name: "limits",
			ranges: []corev1.LimitRange{
				limitRange(corev1.LimitTypePod, "Max", "cpu", "2", "Min", "cpu", "500m", "Min", "memory", "1Gi", "MaxLimitRequestRatio", "cpu", "2"),
				limitRange(corev1.LimitTypePod, "Max", "memory", "2Gi", "Min", "cpu", "1", "MaxLimitRequestRatio", "cpu", "500m"),
			},
			want: workload.LimitRangeSummary{corev1.LimitTypePod: {Type: corev1.LimitTypePod,
				Max:                  rl("cpu", "2", "memory", "2Gi"),
				Min:                  rl("cpu", "1", "memory", "1Gi"),
				MaxLimitRequestRatio: rl("cpu", "500m"),
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := workload.SummarizeLimitRanges(tc.ranges...)
			if len(got) != len(tc.want) {
				t.Fatalf("summary %v, want %v", got, tc.want)
			}
			for typ, want := range tc.want {
				g := got[typ]
				for _, pair := range []struct {
					field     string
					got, want corev1.ResourceList
				}{{"max", g.Max, want.Max}, {"min", g.Min, want.Min}, {"default", g.Default, want.Default},
					{"defaultRequest", g.DefaultRequest, want.DefaultRequest}, {"maxLimitRequestRatio", g.MaxLimitRequestRatio, want.MaxLimitRequestRatio}} {
					if !sameList(pair.got, pair.want) {
						t.Errorf("%s %s = %v, want %v", typ, pair.field, pair.got, pair.want)
					}
				}
			}
		})
	}
}

func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

func container(requests corev1.ResourceList, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func oneWorkload(podSets ...kueue.PodSet) *kueue.Workload {
	return &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "ns"}, Spec: kueue.WorkloadSpec{PodSets: podSets}}
}

func podSet(name string, spec corev1.PodSpec) kueue.PodSet {
	return kueue.PodSet{Name: kueue.PodSetReference(name), Count: 1, Template: corev1.PodTemplateSpec{Spec: spec}}
}

// Kueue: pkg/util/limitrange/limitrange_test.go, TestValidatePodSpec, read
// through the workload (Kueue's ValidateLimitRange, whose error makes the
// scheduler leave the workload pending with this message): each container
// against the container range, the whole pod (its init containers' peak,
// overhead included: 5 cpu) against the pod range.
func TestKueueLimitRangeValidation(t *testing.T) {
	path := field.NewPath("spec").Child("podSets").Index(0).Child("template").Child("spec")
	spec := corev1.PodSpec{
		Containers: []corev1.Container{
			container(rl("cpu", "1", "memory", "2Gi", "example.com/mainContainerGpu", "2"), nil),
			container(rl("cpu", "1.5", "example.com/gpu", "2"), nil),
		},
		InitContainers: []corev1.Container{
			container(rl("cpu", "4", "memory", "2Gi"), nil),
			container(rl("cpu", "1.5", "example.com/gpu", "2", "example.com/initContainerGpu", "2"), nil),
		},
		Overhead: rl("cpu", "1", "memory", "1Gi", "example.com/gpu", "1"),
	}
	initOver := field.Invalid(path.Child("initContainers").Index(1), []corev1.ResourceName{"example.com/initContainerGpu"}, "requests must not be above the limitRange max")
	mainUnder := field.Invalid(path.Child("containers").Index(0), []corev1.ResourceName{"example.com/mainContainerGpu"}, "requests must not be below the limitRange min")
	podOver := field.Invalid(path, []corev1.ResourceName{"cpu"}, "requests must not be above the limitRange max")
	cases := []struct {
		name   string
		ranges []corev1.LimitRange
		want   field.ErrorList
	}{
		{name: "empty"},
		{name: "init container over", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, "Max", "example.com/initContainerGpu", "1")},
			want: field.ErrorList{initOver}},
		{name: "init container under", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, "Min", "example.com/initContainerGpu", "3")},
			want: field.ErrorList{field.Invalid(path.Child("initContainers").Index(1), []corev1.ResourceName{"example.com/initContainerGpu"}, "requests must not be below the limitRange min")}},
		{name: "container over", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, "Max", "example.com/mainContainerGpu", "1")},
			want: field.ErrorList{field.Invalid(path.Child("containers").Index(0), []corev1.ResourceName{"example.com/mainContainerGpu"}, "requests must not be above the limitRange max")}},
		{name: "container under", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypeContainer, "Min", "example.com/mainContainerGpu", "3")},
			want: field.ErrorList{mainUnder}},
		{name: "pod over", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, "Max", "cpu", "4")},
			want: field.ErrorList{podOver}},
		{name: "pod under", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, "Min", "cpu", "6")},
			want: field.ErrorList{field.Invalid(path, []corev1.ResourceName{"cpu"}, "requests must not be below the limitRange min")}},
		{name: "multiple", ranges: []corev1.LimitRange{
			limitRange(corev1.LimitTypePod, "Max", "cpu", "4"),
			limitRange(corev1.LimitTypeContainer, "Min", "example.com/mainContainerGpu", "3"),
			limitRange(corev1.LimitTypeContainer, "Max", "example.com/initContainerGpu", "1"),
		}, want: field.ErrorList{initOver, mainUnder, podOver}},
		{name: "multiple valid", ranges: []corev1.LimitRange{
			limitRange(corev1.LimitTypePod, "Max", "cpu", "5"),
			limitRange(corev1.LimitTypeContainer, "Min", "example.com/mainContainerGpu", "1"),
			limitRange(corev1.LimitTypeContainer, "Max", "example.com/initContainerGpu", "2"),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkLimitRangeViolation(t, oneWorkload(podSet("main", *spec.DeepCopy())), tc.ranges, tc.want)
		})
	}
}

// Kueue: pkg/workload/resources_test.go, TestAdjustResources, read as the
// per-pod requests the engine counts (Kueue's test compares the adjusted
// Workload; what it adjusts is what quota is charged for). RuntimeClasses
// give their overhead to pod sets that name them and have none; a
// namespace's container LimitRange gives its default limits and requests
// to containers without them, before limits stand in for missing
// requests; a pod LimitRange, or an empty one, adds nothing.
func TestKueueAdjustResources(t *testing.T) {
	runtimeA := map[string]corev1.ResourceList{"runtime-a": rl("cpu", "1", "memory", "1Ki")}
	withClass := func(name, class string, overhead corev1.ResourceList) kueue.PodSet {
		ps := podSet(name, corev1.PodSpec{Containers: []corev1.Container{container(nil, nil)}, Overhead: overhead})
		if class != "" {
			ps.Template.Spec.RuntimeClassName = ptr.To(class)
		}
		return ps
	}
	withInit := func(name string, main corev1.Container, init ...corev1.Container) kueue.PodSet {
		return podSet(name, corev1.PodSpec{Containers: []corev1.Container{main}, InitContainers: init})
	}
	containerRange := []corev1.LimitRange{limitRange(corev1.LimitTypeContainer,
		"Default", "cpu", "4", "DefaultRequest", "cpu", "3", "Max", "cpu", "5", "Min", "cpu", "2")}
	podRange := []corev1.LimitRange{limitRange(corev1.LimitTypePod,
		"Default", "cpu", "4", "DefaultRequest", "cpu", "3", "Max", "cpu", "5", "Min", "cpu", "2")}
	cases := []struct {
		name    string
		env     *workload.Environment
		podSets []kueue.PodSet
		want    map[string]corev1.ResourceList // per pod
	}{
		{
			name: "Handle runtimeClass with podOverHead",
			env:  &workload.Environment{RuntimeClassOverhead: runtimeA},
			podSets: []kueue.PodSet{withClass("a", "runtime-a", nil), withClass("b", "", nil),
				withClass("c", "runtime-a", rl("cpu", "2", "memory", "2Ki")), withClass("d", "runtime-d", nil),
				withClass("e", "runtime-e", rl("cpu", "2", "memory", "2Ki"))},
			want: map[string]corev1.ResourceList{"a": rl("cpu", "1", "memory", "1Ki"), "b": nil,
				"c": rl("cpu", "2", "memory", "2Ki"), "d": nil, "e": rl("cpu", "2", "memory", "2Ki")},
		},
		{
			name: "Handle runtimeClass without podOverHead",
			env:  &workload.Environment{RuntimeClassOverhead: map[string]corev1.ResourceList{"runtime-a": nil}},
			podSets: []kueue.PodSet{withClass("a", "runtime-a", nil), withClass("b", "", nil),
				withClass("c", "runtime-a", rl("cpu", "1", "memory", "1Ki")), withClass("d", "runtime-d", nil),
				withClass("e", "runtime-e", rl("cpu", "1", "memory", "1Ki"))},
			want: map[string]corev1.ResourceList{"a": nil, "b": nil,
				"c": rl("cpu", "1", "memory", "1Ki"), "d": nil, "e": rl("cpu", "1", "memory", "1Ki")},
		},
		{
			// b's limit of 6 keeps the default request of 3, not 6 (Kueue
			// applies the LimitRange before limits stand in for requests).
			name: "Handle container limit range",
			env:  &workload.Environment{LimitRanges: workload.SummarizeLimitRanges(containerRange...)},
			podSets: []kueue.PodSet{
				withInit("a", container(nil, nil), corev1.Container{}),
				withInit("b", container(nil, rl("cpu", "6")), corev1.Container{}),
				withInit("c", container(rl("cpu", "1"), nil), corev1.Container{}),
			},
			want: map[string]corev1.ResourceList{"a": rl("cpu", "3"), "b": rl("cpu", "3"), "c": rl("cpu", "3")},
		},
		{
			name: "Handle pod limit range",
			env:  &workload.Environment{LimitRanges: workload.SummarizeLimitRanges(podRange...)},
			podSets: []kueue.PodSet{
				withInit("a", container(nil, nil)),
				withInit("b", container(rl("cpu", "1"), rl("cpu", "6"))),
			},
			want: map[string]corev1.ResourceList{"a": nil, "b": rl("cpu", "1")},
		},
		{
			name: "Handle empty container limit range",
			env:  &workload.Environment{LimitRanges: workload.SummarizeLimitRanges(limitRange(corev1.LimitTypeContainer))},
			podSets: []kueue.PodSet{
				withInit("a", container(nil, nil)),
				withInit("b", container(rl("cpu", "1"), rl("cpu", "6"))),
			},
			want: map[string]corev1.ResourceList{"a": nil, "b": rl("cpu", "1")},
		},
		{
			name: "Apply limits to requests",
			podSets: []kueue.PodSet{
				withInit("a", container(nil, rl("cpu", "1", "memory", "1Gi")), container(nil, rl("cpu", "1", "memory", "1"))),
				withInit("b", container(rl("cpu", "2"), rl("cpu", "3", "memory", "1Gi")), container(rl("cpu", "2"), rl("cpu", "3", "memory", "1"))),
				withInit("c", container(rl("memory", "1Gi"), rl("cpu", "1", "memory", "3Gi")), container(rl("memory", "1"), rl("cpu", "1", "memory", "3"))),
				withInit("d", container(nil, rl("cpu", "1")), container(nil, rl("cpu", "1"))),
				withInit("e", container(rl("memory", "1Gi"), nil), container(rl("memory", "1"), nil)),
			},
			want: map[string]corev1.ResourceList{"a": rl("cpu", "1", "memory", "1Gi"), "b": rl("cpu", "2", "memory", "1Gi"),
				"c": rl("cpu", "1", "memory", "1Gi"), "d": rl("cpu", "1"), "e": rl("memory", "1Gi")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := workload.FromAPIIn(oneWorkload(tc.podSets...), nil, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			for _, ps := range info.PodSets {
				want := map[corev1.ResourceName]int64{}
				for name, q := range tc.want[ps.Name] {
					want[name] = q.MilliValue()
					if name != corev1.ResourceCPU {
						want[name] = q.Value()
					}
				}
				got := map[corev1.ResourceName]int64(ps.PerPod)
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("pod set %s counts %v per pod, want %v", ps.Name, got, want)
				}
			}
		})
	}
}

// The adjusted pod set is also what the rest of the reading sees: a
// container whose default limit (2 cpu) is below its own request (3 cpu)
// asks more than its limit, which Kueue's ValidateResources refuses after
// AdjustResources; and the Workload object is left as it was.
func TestLimitRangeDefaultsAreValidatedAndCopied(t *testing.T) {
	env := &workload.Environment{LimitRanges: workload.SummarizeLimitRanges(limitRange(corev1.LimitTypeContainer, "Default", "cpu", "2"))}
	wl := oneWorkload(podSet("main", corev1.PodSpec{Containers: []corev1.Container{container(rl("cpu", "3"), nil)}}))
	info, err := workload.FromAPIIn(wl, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	want := `resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not exceed its limits`
	if info.Invalid != want {
		t.Errorf("Invalid = %q, want %q", info.Invalid, want)
	}
	if wl.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Limits != nil {
		t.Error("the Workload's own pod template was changed")
	}
}

// Kueue: pkg/workload/resources_test.go, TestValidateLimitRange: two pod sets
// within a pod maximum of 1 cpu; the same without a LimitRange; and a pod
// whose sidecar (an init container that keeps running) adds its 300m to the
// container's, 600m against a maximum of 500m.
func TestKueueValidateLimitRange(t *testing.T) {
	sidecar := container(rl("cpu", "300m"), nil)
	sidecar.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	twoPodSets := oneWorkload(
		podSet("alpha", corev1.PodSpec{Containers: []corev1.Container{container(rl("cpu", "300m"), nil)}}),
		podSet("beta", corev1.PodSpec{Containers: []corev1.Container{container(rl("cpu", "200m"), nil)}}))
	withSidecar := oneWorkload(podSet("alpha", corev1.PodSpec{
		Containers:     []corev1.Container{container(rl("cpu", "300m"), nil)},
		InitContainers: []corev1.Container{sidecar}}))
	path := field.NewPath("spec").Child("podSets").Index(0).Child("template").Child("spec")
	cases := []struct {
		name   string
		ranges []corev1.LimitRange
		wl     *kueue.Workload
		want   field.ErrorList
	}{
		{name: "valid case with LimitRange", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, "Max", "cpu", "1000m")}, wl: twoPodSets},
		{name: "valid case without LimitRange", wl: twoPodSets},
		{name: "pod doesn't satisfy LimitRange constraints", ranges: []corev1.LimitRange{limitRange(corev1.LimitTypePod, "Max", "cpu", "500m")},
			wl: withSidecar, want: field.ErrorList{field.Invalid(path, []corev1.ResourceName{"cpu"}, "requests must not be above the limitRange max")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkLimitRangeViolation(t, tc.wl.DeepCopy(), tc.ranges, tc.want)
		})
	}
}

// checkLimitRangeViolation reads wl in a namespace with ranges and fails
// unless it is Invalid with Kueue's LimitRange message for want (valid when
// want is empty).
func checkLimitRangeViolation(t *testing.T, wl *kueue.Workload, ranges []corev1.LimitRange, want field.ErrorList) {
	t.Helper()
	env := &workload.Environment{LimitRanges: workload.SummarizeLimitRanges(ranges...)}
	info, err := workload.FromAPIIn(wl, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	msg := ""
	if len(want) > 0 {
		msg = "resources didn't satisfy LimitRange constraints: " + want.ToAggregate().Error()
	}
	if info.Invalid != msg {
		t.Errorf("Invalid = %q\nwant      %q", info.Invalid, msg)
	}
}
