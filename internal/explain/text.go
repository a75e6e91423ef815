package explain

import (
	"fmt"
	"io"
	"strings"

	"quokka.dev/quokka/engine/workload"
)

// WriteText prints a workload report for people.
func (r *WorkloadReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Workload %s: %s\n", r.Workload, r.State)
	fmt.Fprintf(&b, "  LocalQueue:   %s\n", r.LocalQueue)
	if r.ClusterQueue != "" {
		fmt.Fprintf(&b, "  ClusterQueue: %s", r.ClusterQueue)
		var attrs []string
		if r.QueueingStrategy != "" {
			attrs = append(attrs, r.QueueingStrategy)
		}
		if r.Cohort != "" {
			attrs = append(attrs, "cohort "+r.Cohort)
		}
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(attrs, ", "))
		}
		b.WriteString("\n")
	}
	if r.Admission != nil {
		fmt.Fprintf(&b, "  Admitted in ClusterQueue %s, flavors %v", r.Admission.ClusterQueue, r.Admission.Flavors)
		if r.Admission.Borrowing {
			b.WriteString(", borrowing")
		}
		b.WriteString(podCountsText(r.PodCounts))
		b.WriteString("\n")
		return write(w, b.String())
	}
	if r.State != "Pending" {
		return write(w, b.String())
	}
	if r.Position > 0 {
		fmt.Fprintf(&b, "  Position:     %d of %d pending (%d ahead)\n", r.Position, r.Pending, r.Ahead)
	}
	if r.LocalQueueUsage != "" {
		fmt.Fprintf(&b, "  LQ usage:     %s (admission fair sharing: the LocalQueue that used less goes first)\n", r.LocalQueueUsage)
	}
	if r.Fits {
		b.WriteString("  Fits now:     yes" + podCountsText(r.PodCounts) + "\n")
	} else if r.Reason != "" {
		fmt.Fprintf(&b, "  Reason:       %s", r.Reason)
		if r.ConditionReason != "" && r.ConditionReason != r.Reason {
			fmt.Fprintf(&b, " (QuotaReserved condition: %s)", r.ConditionReason)
		}
		b.WriteString("\n")
	}
	for _, bl := range r.Blocked {
		fmt.Fprintf(&b, "  Blocked:      %s\n", bl)
	}
	if len(r.Flavors) > 0 {
		b.WriteString("\nFlavors tried:\n")
		for _, f := range r.Flavors {
			mark := ""
			if f.Best {
				mark = "  (best)"
			}
			borrow := ""
			if f.Borrow {
				borrow = " by borrowing"
			}
			fmt.Fprintf(&b, "  pod set %s, flavor %s: %s%s%s\n", f.PodSet, f.Flavor, f.Outcome, borrow, mark)
			if f.Skipped != "" {
				fmt.Fprintf(&b, "      %s\n", f.Skipped)
			}
			for _, res := range f.Resources {
				fmt.Fprintf(&b, "      %-16s requested %s, available %s, at most %s: %s", res.Resource, res.Requested,
					res.Available, res.Potential, res.Outcome)
				if res.LimitedBy != "" {
					fmt.Fprintf(&b, " (limited by the borrowingLimit of %s)", res.LimitedBy)
				}
				b.WriteString("\n")
			}
		}
	}
	if r.Message != "" {
		fmt.Fprintf(&b, "\nThe engine says: %s\n", r.Message)
	}
	if p := r.Preemption; p != nil {
		b.WriteString("\nPreemption:\n")
		if len(p.Victims) > 0 {
			fmt.Fprintf(&b, "  would evict %d workload(s):\n", len(p.Victims))
			for _, v := range p.Victims {
				fmt.Fprintf(&b, "  - %s (ClusterQueue %s, %s)\n", v.Workload, v.ClusterQueue, v.Reason)
			}
		} else {
			fmt.Fprintf(&b, "  none: %s\n", p.Impossible)
		}
	}
	if len(r.Changes) > 0 {
		b.WriteString("\nTo be admitted now without preemption, it needs:\n")
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "  - %s\n", c.Text)
		}
	}
	return write(w, b.String())
}

// WriteText prints a queue report for people.
func (r *QueueReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", r.Kind, r.Name)
	if r.Kind == "LocalQueue" {
		fmt.Fprintf(&b, "  ClusterQueue: %s\n  stopPolicy:   %s\n", r.ClusterQueue, r.StopPolicy)
	}
	active := "yes"
	if !r.Active {
		active = "no"
	}
	if r.ActiveReason != "" {
		active += " (" + r.ActiveReason + ")"
	}
	fmt.Fprintf(&b, "  Active:       %s\n", active)
	if !r.Active && r.ActiveMessage != "" {
		fmt.Fprintf(&b, "                %s\n", r.ActiveMessage)
	}
	if r.Cohort != "" {
		fmt.Fprintf(&b, "  Cohort:       %s\n", r.Cohort)
	}
	if r.QueueingStrategy != "" {
		fmt.Fprintf(&b, "  Strategy:     %s\n", r.QueueingStrategy)
	}
	fmt.Fprintf(&b, "  Admitted:     %d\n", r.Admitted)
	if len(r.Quotas) > 0 && r.Kind == "ClusterQueue" {
		b.WriteString("\nQuota (flavor, resource: used / nominal, borrowed, borrowingLimit, lendingLimit):\n")
		for _, q := range r.Quotas {
			fmt.Fprintf(&b, "  %s, %s: %s / %s, borrowed %s, borrowingLimit %s, lendingLimit %s\n",
				q.Flavor, q.Resource, q.Used, q.Nominal, q.Borrowed, q.BorrowingLimit, q.LendingLimit)
		}
	}
	fmt.Fprintf(&b, "\nPending: %d\n", len(r.Pending))
	for _, p := range r.Pending {
		if p.Fits {
			fmt.Fprintf(&b, "  %d. %s: fits now\n", p.Position, p.Workload)
			continue
		}
		fmt.Fprintf(&b, "  %d. %s: %s: %s\n", p.Position, p.Workload, p.Reason, p.Message)
	}
	return write(w, b.String())
}

func write(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return err
}

// podCountsText is ", with 25 pods" for a partial admission, "" otherwise.
func podCountsText(counts map[string]int32) string {
	if len(counts) == 0 {
		return ""
	}
	return ", with " + workload.CountsText(counts)
}
