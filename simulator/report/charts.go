package report

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/simulator"
)

// maxUsageCharts bounds the usage charts: a thousand queues would make a page no
// one reads. The busiest queues (by resource-hours) are drawn; the tables list all.
const maxUsageCharts = 24

// maxQueueLines bounds the lines of the queue-length chart.
const maxQueueLines = 8

// lineColor returns distinguishable colours for lines (Tableau 10).
func lineColor(i int) string {
	palette := [...]string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}
	return palette[i%len(palette)]
}

// UsageChart is one ClusterQueue's usage of one flavor and resource over time,
// against its nominal quota and its ceiling (nominal + borrowingLimit).
type UsageChart struct {
	ID, Title, Unit   string
	Resource          string
	Usage, Borrowed   string // filled areas
	Nominal, Ceiling  string // step lines; Ceiling is "" when borrowing is unlimited
	XTicks, YTicks    []Tick
	Width, Height     int
	PlotLeft, PlotTop float64
	PlotRight         float64
	PlotBottom        float64
}

// Line is one series of a multi-line chart.
type Line struct {
	Label, Color, Path string
}

// LineChart is the queue-length chart.
type LineChart struct {
	ID, Title      string
	Lines          []Line
	XTicks, YTicks []Tick
	Width, Height  int
	PlotLeft       float64
	PlotRight      float64
	PlotBottom     float64
}

// Bar is one bucket of the wait-time histogram.
type Bar struct {
	Label              string
	Count              int
	X, Y, W, H, LabelX float64
	CountY             float64
}

// Histogram is the wait-time distribution.
type Histogram struct {
	ID, Title     string
	Bars          []Bar
	YTicks        []Tick
	Width, Height int
	PlotLeft      float64
	PlotRight     float64
	PlotBottom    float64
}

// usageCharts builds the usage charts of the busiest queues.
func usageCharts(r *simulator.Result) []UsageChart {
	type candidate struct {
		q     *simulator.QueueAccount
		fr    resources.FlavorResource
		hours float64
	}
	var cands []candidate
	for _, q := range r.Queues {
		for _, fr := range chartedCells(q) {
			cands = append(cands, candidate{q: q, fr: fr, hours: q.UsedSeconds[fr]})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].hours > cands[j].hours })
	if len(cands) > maxUsageCharts {
		cands = cands[:maxUsageCharts]
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].q.Name != cands[j].q.Name {
			return cands[i].q.Name < cands[j].q.Name
		}
		return false
	})
	charts := make([]UsageChart, 0, len(cands))
	for i, c := range cands {
		charts = append(charts, usageChart(fmt.Sprintf("usage-%d", i), chartEnd(r), c.q, c.fr))
	}
	return charts
}

// chartedCells picks what to draw for a queue: the accelerators and other
// extended resources when it has any (that is what a GPU cluster is about), else
// CPU, in the queue's own order.
func chartedCells(q *simulator.QueueAccount) []resources.FlavorResource {
	order := append([]resources.FlavorResource(nil), q.Quotas.Order...)
	seen := map[resources.FlavorResource]bool{}
	for _, fr := range order {
		seen[fr] = true
	}
	for _, fr := range sortedKeys(q.UsedSeconds) {
		if !seen[fr] {
			order = append(order, fr)
		}
	}
	relevant := func(fr resources.FlavorResource) bool {
		return q.Quotas.Cells[fr].Nominal > 0 || q.UsedSeconds[fr] > 0
	}
	var extended, cpu []resources.FlavorResource
	for _, fr := range order {
		if !relevant(fr) {
			continue
		}
		switch fr.Resource {
		case corev1.ResourceCPU:
			cpu = append(cpu, fr)
		case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
		default:
			extended = append(extended, fr)
		}
	}
	if len(extended) > 0 {
		return extended
	}
	return cpu
}

func usageChart(id string, end time.Duration, q *simulator.QueueAccount, fr resources.FlavorResource) UsageChart {
	unit, scale := simulator.DisplayUnit(fr.Resource)
	usage := make([]point, 0, len(q.Series)+1)
	usage = append(usage, point{t: 0, v: 0})
	for _, s := range q.Series {
		usage = append(usage, point{t: s.Time, v: float64(s.Usage[fr]) / scale})
	}
	var nominal, ceiling []point
	unlimited := true
	for _, qs := range q.QuotaSeries {
		cell := qs.Quotas.Cells[fr]
		nominal = append(nominal, point{t: qs.Time, v: float64(cell.Nominal) / scale})
		if cell.BorrowingLimit != resources.Unlimited {
			unlimited = false
			ceiling = append(ceiling, point{t: qs.Time, v: float64(cell.Nominal+cell.BorrowingLimit) / scale})
		} else {
			ceiling = append(ceiling, point{t: qs.Time, v: -1})
		}
	}
	yMax := 0.0
	for _, set := range [][]point{usage, nominal, ceiling} {
		for _, p := range set {
			if p.v > yMax {
				yMax = p.v
			}
		}
	}
	if yMax == 0 {
		yMax = 1
	}
	a := axes{end: end, yMax: niceCeil(yMax * 1.05)}
	drawn := downsample(usage, end, plotWidth)
	c := UsageChart{
		ID: id, Title: fmt.Sprintf("%s — %s %s", q.Name, fr.Flavor, fr.Resource), Unit: unit, Resource: string(fr.Resource),
		Usage: stepArea(a, drawn, end), Borrowed: bandPath(a, drawn, nominal, end),
		Nominal: stepPath(a, nominal, end), XTicks: a.xTicks(), YTicks: a.yTicks(),
		Width: chartWidth, Height: chartHeight, PlotLeft: marginLeft, PlotTop: marginTop,
		PlotRight: marginLeft + plotWidth, PlotBottom: marginTop + plotHeight,
	}
	if !unlimited {
		c.Ceiling = stepPath(a, clampNegative(ceiling, a.yMax), end)
	}
	return c
}

// clampNegative replaces "no ceiling" (-1) by the top of the chart, so that a
// ceiling that comes and goes is drawn as leaving the chart.
func clampNegative(pts []point, top float64) []point {
	out := make([]point, len(pts))
	for i, p := range pts {
		if p.v < 0 {
			p.v = top
		}
		out[i] = p
	}
	return out
}

// niceCeil rounds a maximum up to a round number so the top tick is labelled.
func niceCeil(v float64) float64 {
	step := niceNumber(v / 5)
	n := float64(int(v/step + 0.9999))
	if n < 1 {
		n = 1
	}
	return n * step
}

// queueChart draws the pending workloads of the queues with the longest queues.
func queueChart(r *simulator.Result) LineChart {
	type cand struct {
		q   *simulator.QueueAccount
		max int
	}
	var cands []cand
	for _, q := range r.Queues {
		m := 0
		for _, s := range q.Series {
			if s.Pending > m {
				m = s.Pending
			}
		}
		if m > 0 {
			cands = append(cands, cand{q, m})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].max > cands[j].max })
	if len(cands) > maxQueueLines {
		cands = cands[:maxQueueLines]
	}
	yMax := 1.0
	for _, c := range cands {
		if float64(c.max) > yMax {
			yMax = float64(c.max)
		}
	}
	end := chartEnd(r)
	a := axes{end: end, yMax: niceCeil(yMax * 1.05)}
	ch := LineChart{ID: "queue-lengths", Title: "Pending workloads per ClusterQueue", XTicks: a.xTicks(), YTicks: a.yTicks(),
		Width: chartWidth, Height: chartHeight, PlotLeft: marginLeft, PlotRight: marginLeft + plotWidth, PlotBottom: marginTop + plotHeight}
	for i, c := range cands {
		pts := []point{{t: 0, v: 0}}
		for _, s := range c.q.Series {
			pts = append(pts, point{t: s.Time, v: float64(s.Pending)})
		}
		pts = downsample(pts, end, plotWidth)
		ch.Lines = append(ch.Lines, Line{Label: c.q.Name, Color: lineColor(i), Path: stepPath(a, pts, end)})
	}
	return ch
}

// waitBucket is one bar of the histogram: waits up to upTo (-1: no bound).
type waitBucket struct {
	label string
	upTo  time.Duration
}

// waitBuckets are the histogram's buckets, on the scales people wait on.
func waitBuckets() []waitBucket {
	return []waitBucket{
		{"0", 0}, {"≤1m", time.Minute}, {"≤5m", 5 * time.Minute}, {"≤15m", 15 * time.Minute}, {"≤1h", time.Hour},
		{"≤4h", 4 * time.Hour}, {"≤12h", 12 * time.Hour}, {"≤1d", 24 * time.Hour}, {">1d", -1},
	}
}

// waitHistogram counts the waits of every admission in buckets.
func waitHistogram(r *simulator.Result) Histogram {
	buckets := waitBuckets()
	counts := make([]int, len(buckets))
	for _, q := range r.Queues {
		for _, w := range q.Waits {
			for i, b := range buckets {
				if b.upTo < 0 || w <= b.upTo {
					counts[i]++
					break
				}
			}
		}
	}
	yMax := 1.0
	for _, c := range counts {
		if float64(c) > yMax {
			yMax = float64(c)
		}
	}
	a := axes{end: 1, yMax: niceCeil(yMax * 1.1)}
	h := Histogram{ID: "wait-times", Title: "Wait before admission (all admissions)", YTicks: a.yTicks(),
		Width: chartWidth, Height: chartHeight, PlotLeft: marginLeft, PlotRight: marginLeft + plotWidth, PlotBottom: marginTop + plotHeight}
	slot := float64(plotWidth) / float64(len(counts))
	for i, c := range counts {
		x := marginLeft + float64(i)*slot + slot*0.15
		y := a.y(float64(c))
		h.Bars = append(h.Bars, Bar{Label: buckets[i].label, Count: c, X: x, Y: y, W: slot * 0.7,
			H: marginTop + plotHeight - y, LabelX: x + slot*0.35, CountY: y - 4})
	}
	return h
}

func sortedKeys(m map[resources.FlavorResource]float64) []resources.FlavorResource {
	a := resources.Amounts{}
	for k := range m {
		a[k] = 1
	}
	return a.Keys()
}

// chartEnd is where the time axis of the charts stops: the end of the run, plus a
// margin of 5% when something happened at that very instant (a run without
// --until stops at its last event), so that the state it left is drawn too and
// not a zero-width step at the edge.
func chartEnd(r *simulator.Result) time.Duration {
	if n := len(r.Events); n > 0 && r.Events[n-1].Time >= r.End && r.End > 0 {
		return r.End + r.End/20
	}
	return r.End
}
