package output

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/simulator"
)

// WriteCompareText writes what differs between a run without the changes and a
// run with them (`quokka simulate --compare`).
func WriteCompareText(w io.Writer, c simulator.Comparison) error {
	tw := &trimWriter{w: bufio.NewWriter(w)}
	writeCompare(tw, c)
	return tw.flush()
}

func writeCompare(w io.Writer, c simulator.Comparison) {
	fmt.Fprintf(w, "ADMITTED NOW (pending without the changes, admitted at 0s with them): %d\n", len(c.AdmittedNow))
	if len(c.AdmittedNow) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "WORKLOAD\tCLUSTERQUEUE")
		for _, wl := range c.AdmittedNow {
			fmt.Fprintf(tw, "%s\t%s\n", wl.Name, queueText(wl.ClusterQueue, wl.ElasticQuota))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "PREEMPTED (running now, preempted with the changes): %d\n", len(c.Preempted))
	if len(c.Preempted) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "WORKLOAD\tCLUSTERQUEUE\tAT\tBY\tREASON")
		for _, p := range c.Preempted {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, queueText(p.ClusterQueue, p.ElasticQuota),
				simulator.FormatDuration(p.Time), dash(p.Preemptor), dash(p.Reason))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "AVERAGE WAIT (admission time − arrival, over the admissions each run made)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTERQUEUE\tWITHOUT\tWITH CHANGES\tDIFF")
	for _, q := range c.Queues {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", q.Name, waitText(q.BaseAvgWait, q.BaseWaits), waitText(q.ChangedAvg, q.ChangedWaits),
			signedDuration(q.ChangedAvg.Round(time.Second)-q.BaseAvgWait.Round(time.Second)))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "RESOURCE-HOURS (quota held × time, summed over flavors)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTERQUEUE\tRESOURCE\tWITHOUT\tWITH CHANGES\tDIFF\tUNIT")
	for _, q := range c.Queues {
		for _, r := range q.Resources {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%+.2f\t%s-hours\n", q.Name, r.Resource, r.Base, r.Changed, r.Changed-r.Base, r.Unit)
		}
	}
	tw.Flush()
}

// waitText is an average wait, or "-" when the run admitted nothing there.
func waitText(d time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return simulator.FormatDuration(d.Round(time.Second))
}

// signedDuration is a difference of durations with its sign: +10m, -1h, 0s.
func signedDuration(d time.Duration) string {
	if d > 0 {
		return "+" + simulator.FormatDuration(d)
	}
	return simulator.FormatDuration(d)
}

// CompareDocument is the JSON form of a comparison: the differences, then both
// runs' documents. Times and waits are in seconds.
type CompareDocument struct {
	AdmittedNow   []ComparedWorkload   `json:"admittedNow"`
	Preempted     []ComparedPreemption `json:"preempted"`
	ClusterQueues []QueueComparison    `json:"clusterQueues"`
	Without       Document             `json:"without"`
	WithChanges   Document             `json:"withChanges"`
}

// ComparedWorkload is a workload named in a comparison.
type ComparedWorkload struct {
	Name         string `json:"name"`
	ClusterQueue string `json:"clusterQueue,omitempty"`
	ElasticQuota string `json:"elasticQuota,omitempty"`
}

// ComparedPreemption is a running workload the changes preempt.
type ComparedPreemption struct {
	ComparedWorkload
	Time      float64 `json:"time"`
	Preemptor string  `json:"preemptor,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// QueueComparison is a ClusterQueue's average wait (null when the run admitted
// nothing there) and resource-hours in both runs.
type QueueComparison struct {
	Name               string               `json:"name"`
	AvgWaitWithout     *float64             `json:"avgWaitWithout"`
	AvgWaitWithChanges *float64             `json:"avgWaitWithChanges"`
	ResourceHours      []ResourceComparison `json:"resourceHours"`
}

// ResourceComparison is a resource's hours of quota held, summed over flavors,
// in unit-hours.
type ResourceComparison struct {
	Resource    corev1.ResourceName `json:"resource"`
	Unit        string              `json:"unit"`
	Without     float64             `json:"without"`
	WithChanges float64             `json:"withChanges"`
}

// NewCompareDocument converts a comparison and its two runs into JSON form.
func NewCompareDocument(base, changed *simulator.Result, c simulator.Comparison) CompareDocument {
	doc := CompareDocument{
		AdmittedNow: []ComparedWorkload{}, Preempted: []ComparedPreemption{}, ClusterQueues: []QueueComparison{},
		Without: NewDocument(base), WithChanges: NewDocument(changed),
	}
	for _, w := range c.AdmittedNow {
		doc.AdmittedNow = append(doc.AdmittedNow, ComparedWorkload(w))
	}
	for _, p := range c.Preempted {
		doc.Preempted = append(doc.Preempted, ComparedPreemption{
			ComparedWorkload: ComparedWorkload(p.ComparedWorkload), Time: p.Time.Seconds(), Preemptor: p.Preemptor, Reason: p.Reason,
		})
	}
	for _, q := range c.Queues {
		row := QueueComparison{Name: q.Name, ResourceHours: []ResourceComparison{},
			AvgWaitWithout: seconds(q.BaseAvgWait, q.BaseWaits), AvgWaitWithChanges: seconds(q.ChangedAvg, q.ChangedWaits)}
		for _, r := range q.Resources {
			row.ResourceHours = append(row.ResourceHours, ResourceComparison{Resource: r.Resource, Unit: r.Unit, Without: r.Base, WithChanges: r.Changed})
		}
		doc.ClusterQueues = append(doc.ClusterQueues, row)
	}
	return doc
}

func seconds(d time.Duration, n int) *float64 {
	if n == 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}

// WriteCompareJSON writes the comparison document.
func WriteCompareJSON(w io.Writer, base, changed *simulator.Result, c simulator.Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewCompareDocument(base, changed, c))
}
