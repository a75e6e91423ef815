package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// printTable prints one Markdown table, a column per side.
func printTable(w io.Writer, results []*sideResult) {
	t := newSideTable(results, func(r *sideResult) string { return r.name })
	row := t.row
	row("workloads", func(r *sideResult) string { return fmt.Sprint(r.summary.workloads()) })
	row("wall", func(r *sideResult) string { return r.wall.Round(time.Second).String() })
	row("manager CPU", func(r *sideResult) string { return r.cpu.Round(time.Second).String() })
	measured := func(d time.Duration) string {
		if d <= 0 {
			return "-"
		}
		return d.Round(time.Second).String()
	}
	row("kube-apiserver CPU", func(r *sideResult) string { return measured(r.apiServerCPU) })
	row("kube-apiserver garbage collections; allocated per workload", func(r *sideResult) string {
		if !r.gcMeasured || r.summary.workloads() == 0 {
			return "-"
		}
		return fmt.Sprintf("%d; %.1f MB", r.apiServerGC.collections, r.apiServerGC.allocated/float64(r.summary.workloads())/1e6)
	})
	row("etcd CPU", func(r *sideResult) string { return measured(r.etcdCPU) })
	row("runner CPU", func(r *sideResult) string { return measured(r.runnerCPU) })
	// Anything else that ran on the machine meanwhile took the same cores.
	row("other processes' CPU", func(r *sideResult) string {
		if !r.otherMeasured {
			return "-"
		}
		return r.otherCPU.Round(time.Second).String()
	})
	for _, class := range unionKeys(results, func(r *sideResult) []string { return mapKeys(r.summary.WorkloadClasses) }) {
		row("avg time to admission, "+class, func(r *sideResult) string {
			c, ok := r.summary.WorkloadClasses[class]
			if !ok {
				return "-"
			}
			return (time.Duration(c.AverageTimeToAdmissionMs) * time.Millisecond).Round(10 * time.Millisecond).String()
		})
	}
	for _, pr := range phaseRows() {
		for _, class := range phaseClasses(results) {
			row(pr.label(class), func(r *sideResult) string { return pr.cell(r, class) })
		}
	}
	floorRows(t, results)
	for _, class := range unionKeys(results, func(r *sideResult) []string { return mapKeys(r.summary.WorkloadClasses) }) {
		row("evictions, "+class, func(r *sideResult) string { return fmt.Sprint(r.summary.WorkloadClasses[class].TotalEvictions) })
	}
	for _, class := range unionKeys(results, func(r *sideResult) []string { return mapKeys(r.summary.ClusterQueueClasses) }) {
		row("ClusterQueue average cpu usage / nominal, "+class, func(r *sideResult) string {
			c, ok := r.summary.ClusterQueueClasses[class]
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%d / %d", c.CPUAverageUsage, c.NominalQuota)
		})
	}
	perWorkload := func(r *sideResult, n int) string {
		wl := r.summary.workloads()
		if wl == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", float64(n)/float64(wl))
	}
	row("manager API writes per workload", func(r *sideResult) string { return perWorkload(r, r.writes.total) })
	for _, k := range unionKeys(results, func(r *sideResult) []string { return r.writes.keys() }) {
		row("  "+k, func(r *sideResult) string { return perWorkload(r, r.writes.byKey[k]) })
	}
	row("  of which refused with a conflict", func(r *sideResult) string { return perWorkload(r, r.writes.conflicts) })
	row("manager events per workload", func(r *sideResult) string { return perWorkload(r, r.writes.events) })
	row("avg API latency of a workload status write, manager / runner", func(r *sideResult) string {
		return r.writes.avgStatusLatency().Round(100*time.Microsecond).String() + " / " +
			r.runnerWrites.avgStatusLatency().Round(100*time.Microsecond).String()
	})
	if hasChaos(results) {
		row("chaos: leader kills survived", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return fmt.Sprint(c.kills) })
		})
		row("chaos: longest time from a leader kill to a new leader", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return c.maxRecover.Round(100 * time.Millisecond).String() })
		})
		row("chaos: longest takeover after the killed leader's lease expired (lease "+chaosLease.String()+")", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return c.maxAfterExpiry.Round(100 * time.Millisecond).String() })
		})
		row("chaos: API server restarts survived", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return fmt.Sprint(c.apiRestarts) })
		})
		row("chaos: API server down / lease renewed again after", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string {
				return c.apiDown.Round(100*time.Millisecond).String() + " / " + c.apiRecover.Round(100*time.Millisecond).String()
			})
		})
		row("chaos: replicas that exited on their own, restarted", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return fmt.Sprint(c.exits) })
		})
		row("chaos: runner's timeline without a finish / events its recorder dropped", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return fmt.Sprintf("%d / %d", c.timelineGaps, c.dropped) })
		})
		row("chaos: workloads lost (not Finished in the API server at the end)", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return fmt.Sprint(c.lost) })
		})
		row("chaos: over-admissions", func(r *sideResult) string {
			return r.chaos.cell(func(c *chaosReport) string { return fmt.Sprint(c.overAdmissions) })
		})
	}
	t.write(w)
}

// sideTable is a markdown table with a column per side: each row is a label
// and a cell per side.
type sideTable[R any] struct {
	sides  []R
	header []string
	rows   [][]string
}

func newSideTable[R any](sides []R, name func(R) string) *sideTable[R] {
	t := &sideTable[R]{sides: sides, header: []string{""}}
	for _, r := range sides {
		t.header = append(t.header, name(r))
	}
	return t
}

func (t *sideTable[R]) row(label string, cell func(R) string) {
	line := []string{label}
	for _, r := range t.sides {
		line = append(line, cell(r))
	}
	t.rows = append(t.rows, line)
}

func (t *sideTable[R]) write(w io.Writer) {
	fmt.Fprintln(w, "| "+strings.Join(t.header, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(t.header)))
	for _, r := range t.rows {
		fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
	}
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unionKeys is the union of every side's keys, in the first side's order,
// then the others'.
func unionKeys[R any](results []R, keys func(R) []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range results {
		for _, k := range keys(r) {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

func hasChaos(results []*sideResult) bool {
	for _, r := range results {
		if r.chaos != nil {
			return true
		}
	}
	return false
}

func (c *chaosReport) cell(f func(*chaosReport) string) string {
	if c == nil {
		return "-"
	}
	return f(c)
}

// phaseRow is a row made of each class's phase (see phaseLog), one per class,
// in the side-by-side table and in --analyze's.
type phaseRow struct {
	label func(class string) string
	value func(classPhase) string
}

// cell is the row's value for one side, "-" when the side has no such class.
func (pr phaseRow) cell(r *sideResult, class string) string {
	c, ok := r.phases[class]
	if !ok {
		return "-"
	}
	return pr.value(c)
}

// phaseRows are when and how fast each class was admitted, then the
// runner's lag and the manager's reaction (see classPhase): together with
// the runtime and the two writes' latencies they are how long quota takes to
// turn over.
func phaseRows() []phaseRow {
	return []phaseRow{
		{
			label: func(class string) string {
				return "admitted " + class + ": middle 90% (since the first create), admitted/s, Finished/s (all classes)"
			},
			value: classPhase.String,
		},
		{
			label: func(class string) string {
				return "runner's lag, " + class + ": admission landed to Finished write received, less the runtime, median / p90"
			},
			value: classPhase.lagString,
		},
		{
			label: func(class string) string {
				return "manager's reaction, " + class + " phase: a Finished write landed to the manager's next workload write received in its Cohort, median / mean"
			},
			value: classPhase.reactionString,
		},
	}
}

// floorRows adds each class's order floor (see classFloor), one row per
// class.
func floorRows(t *sideTable[*sideResult], results []*sideResult) {
	for _, class := range unionKeys(results, func(r *sideResult) []string { return mapKeys(r.floors) }) {
		t.row("order floor, "+class+": least avg wait if admitted only after the last higher-priority create; how many were admitted before it", func(r *sideResult) string {
			f, ok := r.floors[class]
			if !ok {
				return "-"
			}
			return f.String()
		})
	}
}

func phaseClasses(results []*sideResult) []string {
	return unionKeys(results, func(r *sideResult) []string { return mapKeys(r.phases) })
}
