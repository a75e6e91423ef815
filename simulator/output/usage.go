package output

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/simulator"
)

// usageLine is one ClusterQueue's usage of the shown resources after an instant.
type usageLine struct {
	queue string
	usage resources.Amounts
}

// usageTimeline holds, per instant, the ClusterQueues whose usage of the shown
// resources changed then, and which resources are shown.
type usageTimeline struct {
	shown map[corev1.ResourceName]bool
	at    map[time.Duration][]usageLine
}

// commonResources are left out of the usage lines when a scarcer resource (a GPU,
// any extended resource) is in use: the timeline should read "research 48", not a
// list of cores and bytes. When only these are used, CPU is shown.
var commonResources = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true,
	corev1.ResourceEphemeralStorage: true, corev1.ResourcePods: true,
}

// usageChanges collects, from the usage series, the instants at which a
// ClusterQueue's usage of the shown resources changed, so that the timeline can
// say after each instant how much every affected queue now holds.
func usageChanges(r *simulator.Result) usageTimeline {
	t := usageTimeline{shown: map[corev1.ResourceName]bool{}, at: map[time.Duration][]usageLine{}}
	for _, q := range r.Queues {
		for _, s := range q.Series {
			for fr := range s.Usage {
				if !commonResources[fr.Resource] {
					t.shown[fr.Resource] = true
				}
			}
		}
	}
	if len(t.shown) == 0 {
		t.shown[corev1.ResourceCPU] = true
	}
	for _, q := range r.Queues {
		prev := resources.Amounts{}
		for _, s := range q.Series {
			cur := t.filter(s.Usage)
			if equalAmounts(prev, cur) {
				continue
			}
			t.at[s.Time] = append(t.at[s.Time], usageLine{queue: q.Name, usage: cur})
			prev = cur
		}
	}
	return t
}

func (t usageTimeline) filter(a resources.Amounts) resources.Amounts {
	out := resources.Amounts{}
	for fr, v := range a {
		if t.shown[fr.Resource] && v != 0 {
			out[fr] = v
		}
	}
	return out
}

func equalAmounts(a, b resources.Amounts) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// usageMarker starts the text of a usage line in the table, so that
// alignUsageLines can find it; it never reaches the output.
const usageMarker = "\x00"

// writeUsage prints the usage line of an instant, e.g.
// "nvidia.com/gpu: product-training 22 (h100), research 40 (h100)". The text goes in
// the last cell, which tabwriter leaves out of the column widths, with every other
// cell present and empty so that the columns of the lines around it stay aligned;
// alignUsageLines then moves it left, under WORKLOAD.

func writeUsage(w io.Writer, t usageTimeline, at time.Duration) {
	lines := t.at[at]
	if len(lines) == 0 {
		return
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].queue < lines[j].queue })
	names := make([]string, 0, len(t.shown))
	for r := range t.shown {
		names = append(names, string(r))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		parts = append(parts, l.queue+" "+amountText(l.usage))
	}
	fmt.Fprintf(w, "%s\tUsage\t\t\t\t%s%s: %s\n", simulator.FormatDuration(at), usageMarker, strings.Join(names, ", "), strings.Join(parts, ", "))
}

// amountText renders a queue's usage of the shown resources: "40 (h100)", or
// "0" when it holds none, or "8 (a100) + 32 (h100)" across flavors.
func amountText(a resources.Amounts) string {
	if len(a) == 0 {
		return "0"
	}
	var parts []string
	for _, fr := range a.Keys() {
		q := resources.ToQuantity(fr.Resource, a[fr])
		parts = append(parts, fmt.Sprintf("%s (%s)", q.String(), fr.Flavor))
	}
	return strings.Join(parts, " + ")
}

// alignUsageLines copies the rendered timeline to w, moving the text of each usage
// line from the REASON column to the WORKLOAD column (a usage line has nothing in
// between), so that it reads "10m  Usage  nvidia.com/gpu: research 40 (h100)".
func alignUsageLines(w io.Writer, table []byte) {
	lines := bytes.SplitAfter(table, []byte("\n"))
	column := 0
	if len(lines) > 0 {
		column = bytes.Index(lines[0], []byte("WORKLOAD"))
	}
	for _, line := range lines {
		i := bytes.Index(line, []byte(usageMarker))
		if i < 0 || column < 0 {
			_, _ = w.Write(line)
			continue
		}
		head := bytes.TrimRight(line[:i], " ")
		pad := column - len(head)
		if pad < 2 {
			pad = 2
		}
		_, _ = w.Write(head)
		_, _ = w.Write(bytes.Repeat([]byte(" "), pad))
		_, _ = w.Write(line[i+len(usageMarker):])
	}
}
