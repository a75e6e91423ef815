package main

import (
	"fmt"
	"io"
	"time"
)

// printJobsTable prints the Jobs load's results side by side.
func printJobsTable(w io.Writer, results []*jobsResult) {
	t := newSideTable(results, func(r *jobsResult) string { return r.name })
	row := t.row
	seconds := func(d time.Duration) string {
		if d <= 0 {
			return "-"
		}
		return d.Round(100 * time.Millisecond).String()
	}
	row("Jobs", func(r *jobsResult) string { return fmt.Sprint(r.jobs) })
	row("wall (first Job created to last complete)", func(r *jobsResult) string { return seconds(r.wall) })
	row("manager CPU", func(r *jobsResult) string { return seconds(r.cpu) })
	row("kube-apiserver CPU", func(r *jobsResult) string { return seconds(r.apiServerCPU) })
	row("etcd CPU", func(r *jobsResult) string { return seconds(r.etcdCPU) })
	for _, name := range []string{"kube-controller-manager", "kube-scheduler", "kwok"} {
		row(name+" CPU (whole run)", func(r *jobsResult) string { return seconds(r.clusterCPU[name]) })
	}
	row("other processes' CPU (the cluster's components among them)", func(r *jobsResult) string {
		if !r.otherMeasured {
			return "-"
		}
		return seconds(r.otherCPU)
	})
	classes := unionKeys(results, func(r *jobsResult) []string { return mapKeys(r.classes) })
	for _, class := range classes {
		row("avg time to admission (Job unsuspended), "+class, func(r *jobsResult) string { return seconds(r.classes[class].toAdmission) })
	}
	for _, class := range classes {
		row("avg time to running (every pod started), "+class, func(r *jobsResult) string { return seconds(r.classes[class].toRunning) })
	}
	for _, class := range classes {
		row("  of which after admission, "+class, func(r *jobsResult) string { return seconds(r.classes[class].runningAfterAdmission) })
	}
	for _, class := range classes {
		row("Jobs suspended again (preempted), "+class, func(r *jobsResult) string { return fmt.Sprint(r.classes[class].suspendedAgain) })
	}
	perJob := func(r *jobsResult, n int) string { return fmt.Sprintf("%.2f", float64(n)/float64(r.jobs)) }
	row("manager API writes per Job", func(r *jobsResult) string { return perJob(r, r.writes.total) })
	for _, k := range unionKeys(results, func(r *jobsResult) []string { return r.writes.keys() }) {
		row("  "+k, func(r *jobsResult) string { return perJob(r, r.writes.byKey[k]) })
	}
	row("  of which refused with a conflict", func(r *jobsResult) string { return perJob(r, r.writes.conflicts) })
	row("manager events per Job", func(r *jobsResult) string { return perJob(r, r.writes.events) })
	t.write(w)
}
