// Package report writes a simulation's result as one self-contained HTML page:
// inline SVG charts drawn here with html/template, inline CSS, no JavaScript
// library and nothing fetched from the network, so the page opens the same on an
// air-gapped laptop as in a CI artifact.
package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/output"
)

//go:embed report.html.tmpl
var pageTemplate string

// Limits that keep a report of a week with 100,000 jobs readable and small; the
// JSON output has everything.
const (
	maxTimelineRows = 2000
	maxPendingRows  = 200
)

// Options configure the page.
type Options struct {
	Title string
}

// page is the template's data.
type page struct {
	Title                 string
	End                   string
	Workloads, EventCount int
	QueueCount            int
	UsageCharts           []UsageChart
	UsageNote             string
	QueueChart            LineChart
	WaitChart             Histogram
	Summary               []summaryRow
	ResourceHours         []resourceRow
	Pending               []simulator.WorkloadResult
	PendingCount          int
	PendingMore           int
	Timeline              []timelineRow
	TimelineOpen          bool
}

type summaryRow struct {
	Name                                   string
	Admitted, Preempted, Finished, Pending int
	AvgWait, P95Wait, Reasons              string
}

type resourceRow struct {
	Queue, Flavor, Resource, Unit string
	Used, Borrowed                string
}

type timelineRow struct {
	Time, Type, Workload, ClusterQueue, Flavors, Reason string
}

// WriteDir writes index.html into dir (created if needed) and returns its path.
func WriteDir(dir string, r *simulator.Result, opts Options) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating report directory: %w", err)
	}
	path := filepath.Join(dir, "index.html")
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("creating report: %w", err)
	}
	if err := Render(f, r, opts); err != nil {
		f.Close()
		return "", fmt.Errorf("writing report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("writing report %s: %w", path, err)
	}
	return path, nil
}

// Render writes the page. The result must have been recorded with
// simulator.Options.Series for the charts to show usage over time.
func Render(w io.Writer, r *simulator.Result, opts Options) error {
	funcs := template.FuncMap{
		"add": func(a, b float64) float64 { return a + b },
		"sub": func(a, b float64) float64 { return a - b },
	}
	tmpl, err := template.New("report").Funcs(funcs).Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("parsing the report template: %w", err)
	}
	return tmpl.Execute(w, newPage(r, opts))
}

func newPage(r *simulator.Result, opts Options) page {
	title := opts.Title
	if title == "" {
		title = "Quokka simulation"
	}
	p := page{
		Title: title, End: simulator.FormatDuration(r.End), Workloads: len(r.Workloads), EventCount: len(r.Events),
		QueueCount: len(r.Queues), UsageCharts: usageCharts(r), QueueChart: queueChart(r), WaitChart: waitHistogram(r),
	}
	if n := chartableCount(r); n > len(p.UsageCharts) {
		p.UsageNote = fmt.Sprintf("Showing the %d busiest of %d queue, flavor and resource combinations; the tables below list all of them.", len(p.UsageCharts), n)
	}
	for _, s := range simulator.Summarize(r) {
		reasons := make([]string, 0, len(s.PendingReasons))
		for _, rc := range s.PendingReasons {
			reasons = append(reasons, fmt.Sprintf("%s: %d", rc.Reason, rc.Count))
		}
		p.Summary = append(p.Summary, summaryRow{Name: s.Name, Admitted: s.Admitted, Preempted: s.Preempted + s.Evicted,
			Finished: s.Finished, Pending: s.Pending, AvgWait: simulator.FormatDuration(s.AvgWait.Round(1e9)),
			P95Wait: simulator.FormatDuration(s.P95Wait.Round(1e9)), Reasons: strings.Join(reasons, ", ")})
		for _, rh := range s.Resources {
			p.ResourceHours = append(p.ResourceHours, resourceRow{Queue: s.Name, Flavor: rh.Flavor, Resource: string(rh.Resource),
				Unit: rh.Unit, Used: fmt.Sprintf("%.2f", rh.Used), Borrowed: fmt.Sprintf("%.2f", rh.Borrowed)})
		}
	}
	for _, wl := range r.Workloads {
		if wl.State != simulator.StatePending {
			continue
		}
		p.PendingCount++
		if len(p.Pending) < maxPendingRows {
			p.Pending = append(p.Pending, wl)
		}
	}
	p.PendingMore = p.PendingCount - len(p.Pending)
	for i, e := range r.Events {
		if i == maxTimelineRows {
			break
		}
		reason := e.Reason
		if e.Preemptor != "" {
			reason = strings.TrimSpace(reason + " by " + e.Preemptor)
		}
		row := timelineRow{Time: simulator.FormatDuration(e.Time), Type: string(e.Type), Workload: e.Workload, ClusterQueue: e.ClusterQueue, Reason: reason}
		if e.Type == simulator.Admitted {
			row.Flavors = output.FlavorsText(e.Flavors)
		}
		p.Timeline = append(p.Timeline, row)
	}
	p.TimelineOpen = len(r.Events) <= 100
	return p
}

// chartableCount counts the queue, flavor and resource combinations that could be
// drawn, to tell the reader when some were left out.
func chartableCount(r *simulator.Result) int {
	n := 0
	for _, q := range r.Queues {
		n += len(chartedCells(q))
	}
	return n
}

// comparisonPage shows two reports side by side, each under its heading; each
// report is a page of its own next to it, so it also opens alone.
var comparisonPage = template.Must(template.New("comparison").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1rem; }
.runs { display: flex; gap: 1rem; }
.runs section { flex: 1; min-width: 0; }
.runs iframe { width: 100%; height: 90vh; border: 1px solid #ccc; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div class="runs">
<section><h2>Without the changes</h2><p><a href="without.html">open alone</a></p><iframe src="without.html" title="Without the changes"></iframe></section>
<section><h2>With the changes</h2><p><a href="with-changes.html">open alone</a></p><iframe src="with-changes.html" title="With the changes"></iframe></section>
</div>
</body>
</html>
`))

// WriteComparisonDir writes the reports of a run without the changes
// (without.html) and of one with them (with-changes.html) into dir, and
// index.html showing both side by side; it returns the path of index.html.
func WriteComparisonDir(dir string, base, changed *simulator.Result, opts Options) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating report directory: %w", err)
	}
	title := opts.Title
	if title == "" {
		title = "Quokka simulation"
	}
	pages := []struct {
		file, suffix string
		r            *simulator.Result
	}{
		{"without.html", ", without the changes", base},
		{"with-changes.html", ", with the changes", changed},
	}
	for _, p := range pages {
		if err := writeFile(filepath.Join(dir, p.file), func(w io.Writer) error {
			return Render(w, p.r, Options{Title: title + p.suffix})
		}); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, "index.html")
	err := writeFile(path, func(w io.Writer) error {
		return comparisonPage.Execute(w, struct{ Title string }{title + ": without and with the changes"})
	})
	return path, err
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating report: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing report %s: %w", path, err)
	}
	return nil
}
