package output

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/workload"
	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/manifest"
)

// maxPendingListed bounds the "still pending" list; the summary table counts all.
const maxPendingListed = 50

// WriteText writes the timeline and the summary tables for a person.
func WriteText(w io.Writer, r *simulator.Result) error {
	tw := &trimWriter{w: bufio.NewWriter(w)}
	writeTimeline(tw, r)
	fmt.Fprintln(tw)
	writeSummary(tw, r)
	return tw.flush()
}

// trimWriter drops the spaces tabwriter leaves at the end of lines whose last
// columns are empty, so that the text diffs and copies cleanly.
type trimWriter struct {
	w       *bufio.Writer
	pending []byte
	err     error
}

func (t *trimWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		switch b {
		case ' ':
			t.pending = append(t.pending, b)
		case '\n':
			t.pending = t.pending[:0]
			t.write([]byte{b})
		default:
			t.write(t.pending)
			t.pending = t.pending[:0]
			t.write([]byte{b})
		}
	}
	return len(p), t.err
}

func (t *trimWriter) write(b []byte) {
	if t.err == nil && len(b) > 0 {
		_, t.err = t.w.Write(b)
	}
}

func (t *trimWriter) flush() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

// writeTimeline lists events and quota updates in causal order.
func writeTimeline(w io.Writer, r *simulator.Result) {
	var table bytes.Buffer
	defer func() { alignUsageLines(w, table.Bytes()) }()
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tEVENT\tWORKLOAD\tCLUSTERQUEUE\tFLAVORS\tREASON")
	u := 0
	flushUpdates := func(upTo int) {
		for ; u < len(r.QuotaUpdates) && r.QuotaUpdates[u].Seq <= upTo; u++ {
			q := r.QuotaUpdates[u]
			fmt.Fprintf(tw, "%s\tQuotaUpdated\t%s\t\t%s\t%s\n", simulator.FormatDuration(q.Time), q.Object, nominalText(q.Nominal), conditionText(q))
		}
	}
	usage := usageChanges(r)
	for i, e := range r.Events {
		flushUpdates(i)
		if i > 0 && r.Events[i-1].Time != e.Time {
			writeUsage(tw, usage, r.Events[i-1].Time)
		}
		reason := e.Reason
		switch {
		case e.Type == simulator.Preempted && e.Preemptor != "":
			reason = strings.TrimSpace(e.Reason + " by " + e.Preemptor)
		case e.Type == simulator.Admitted && e.Preset:
			reason = "already admitted when the simulation starts (status.admission)"
		case e.Type == simulator.Admitted && e.Borrowing:
			reason = "borrowing"
		case e.Type == simulator.Unqueued:
			reason = e.Reason + ": " + e.Message
		case e.Type == simulator.Reclaimed:
			reason = workload.CountsText(e.PodCounts) + " reclaimable: the last wave needs fewer"
		}
		if e.Type == simulator.Admitted && e.PodCounts != nil {
			reason = strings.TrimSpace(reason + " with " + workload.CountsText(e.PodCounts))
		}
		flavors := ""
		if e.Type == simulator.Admitted {
			flavors = FlavorsText(e.Flavors)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", simulator.FormatDuration(e.Time), e.Type, e.Workload, queueText(e.ClusterQueue, e.ElasticQuota), flavors, reason)
	}
	flushUpdates(len(r.Events))
	if n := len(r.Events); n > 0 {
		writeUsage(tw, usage, r.Events[n-1].Time)
	}
	tw.Flush()
}

// writeSummary writes the per-ClusterQueue tables.
func writeSummary(w io.Writer, r *simulator.Result) {
	rows := simulator.Summarize(r)
	fmt.Fprintf(w, "SUMMARY at %s\n", simulator.FormatDuration(r.End))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTERQUEUE\tADMITTED\tPREEMPTED\tFINISHED\tPENDING\tAVG WAIT\tP95 WAIT\tPENDING REASONS")
	for _, s := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", s.Name, s.Admitted, s.Preempted+s.Evicted, s.Finished, s.Pending,
			simulator.FormatDuration(s.AvgWait.Round(1e9)), simulator.FormatDuration(s.P95Wait.Round(1e9)), reasonsText(s.PendingReasons))
	}
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintln(w, "RESOURCE-HOURS (quota held × time; borrowed: the part above the nominal quota)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTERQUEUE\tFLAVOR\tRESOURCE\tUSED\tBORROWED\tUNIT")
	for _, s := range rows {
		for _, rh := range s.Resources {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%s-hours\n", s.Name, rh.Flavor, rh.Resource, rh.Used, rh.Borrowed, rh.Unit)
		}
	}
	tw.Flush()
	writeElasticQuotas(w, r)
	writeLocalQueueUsage(w, r)
	writeAssumedRuntimes(w, r)

	var pending []simulator.WorkloadResult
	for _, wl := range r.Workloads {
		if wl.State == simulator.StatePending {
			pending = append(pending, wl)
		}
	}
	if len(pending) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "STILL PENDING (%d)\n", len(pending))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tCLUSTERQUEUE\tREASON\tMESSAGE")
	for i, wl := range pending {
		if i == maxPendingListed {
			fmt.Fprintf(tw, "... and %d more\t\t\t\n", len(pending)-maxPendingListed)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", wl.Name, queueText(wl.ClusterQueue, wl.ElasticQuota), dash(wl.Reason), wl.Message)
	}
	tw.Flush()
}

// writeAssumedRuntimes names the workloads whose runtime was a guess, so that
// their finish times, and the waits of those behind them, are read as estimates.
func writeAssumedRuntimes(w io.Writer, r *simulator.Result) {
	var names []string
	for _, wl := range r.Workloads {
		if wl.RuntimeAssumed {
			names = append(names, wl.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "RUNTIME ASSUMED for %d workloads (no %s annotation; finish times are estimates)\n", len(names), manifest.AnnotationRuntime)
	for i, n := range names {
		if i == maxPendingListed {
			fmt.Fprintf(w, "... and %d more\n", len(names)-maxPendingListed)
			break
		}
		fmt.Fprintln(w, n)
	}
}

// FlavorsText renders an assignment compactly: "h100" when every resource of every
// pod set got the same flavor, else "main: cpu=a, nvidia.com/gpu=b; workers: ...".
func FlavorsText(f simulator.Flavors) string {
	distinct := map[string]bool{}
	for _, m := range f {
		for _, fl := range m {
			distinct[fl] = true
		}
	}
	if len(distinct) == 1 {
		for fl := range distinct {
			return fl
		}
	}
	podSets := make([]string, 0, len(f))
	for ps := range f {
		podSets = append(podSets, ps)
	}
	sort.Strings(podSets)
	parts := make([]string, 0, len(podSets))
	for _, ps := range podSets {
		res := make([]string, 0, len(f[ps]))
		for r, fl := range f[ps] {
			res = append(res, string(r)+"="+fl)
		}
		sort.Strings(res)
		parts = append(parts, ps+": "+strings.Join(res, ", "))
	}
	return strings.Join(parts, "; ")
}

func nominalText(n map[string]map[corev1.ResourceName]string) string {
	flavors := make([]string, 0, len(n))
	for f := range n {
		flavors = append(flavors, f)
	}
	sort.Strings(flavors)
	var parts []string
	for _, f := range flavors {
		res := make([]string, 0, len(n[f]))
		for r, q := range n[f] {
			res = append(res, string(r)+"="+q)
		}
		sort.Strings(res)
		parts = append(parts, f+": "+strings.Join(res, ", "))
	}
	return strings.Join(parts, "; ")
}

func conditionText(q simulator.QuotaUpdate) string {
	if q.Condition == "" {
		if len(q.Nominal) == 0 {
			return "effective quotas: none of its own"
		}
		return "effective nominal quota"
	}
	return fmt.Sprintf("%s=%s %s: %s", q.Condition, q.Status, q.Reason, q.Message)
}

func reasonsText(rs []simulator.ReasonCount) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s: %d", dash(r.Reason), r.Count))
	}
	return strings.Join(parts, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// queueText names where a workload waits or runs: its ClusterQueue, or for a
// Koord-Queue unit its ElasticQuota.
func queueText(cq, eq string) string {
	if cq == "" && eq != "" {
		return "ElasticQuota " + eq
	}
	return dash(cq)
}

// writeElasticQuotas writes the Koord-Queue quotas, when the input has any.
func writeElasticQuotas(w io.Writer, r *simulator.Result) {
	rows := make([][]string, 0, len(r.ElasticQuotas))
	for _, q := range r.ElasticQuotas {
		rows = append(rows, []string{q.Name, dash(q.Parent), dash(resourceListText(q.Min)), dash(resourceListText(q.Max)), dash(resourceListText(q.Used))})
	}
	writeSection(w, "ELASTICQUOTAS (used: what admitted Koord-Queue units charge to the quota and its descendants)",
		[]string{"ELASTICQUOTA", "PARENT", "MIN", "MAX", "USED"}, rows)
}

// writeLocalQueueUsage writes admission fair sharing's usage of every
// LocalQueue, when it is on.
func writeLocalQueueUsage(w io.Writer, r *simulator.Result) {
	rows := make([][]string, 0, len(r.LocalQueues))
	for _, lq := range r.LocalQueues {
		rows = append(rows, []string{lq.Name, dash(lq.ClusterQueue), dash(resourceListText(lq.Consumed)), afsUsageText(lq.Usage)})
	}
	writeSection(w, "LOCALQUEUES (admission fair sharing: decayed usage; in a ClusterQueue ordering by it, the lower usage goes first)",
		[]string{"LOCALQUEUE", "CLUSTERQUEUE", "CONSUMED", "USAGE"}, rows)
}

// writeSection writes a titled table after a blank line; nothing when it
// has no rows.
func writeSection(w io.Writer, title string, header []string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// resourceListText renders "cpu=8, memory=16Gi", sorted by resource.
func resourceListText(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for r, q := range l {
		parts = append(parts, string(r)+"="+q.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
