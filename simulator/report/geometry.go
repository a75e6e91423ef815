package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"quokka.dev/quokka/simulator"
)

// The charts are drawn in SVG user units inside a fixed box; the page scales them
// with CSS (width: 100%), so the numbers below are proportions, not pixels.
const (
	chartWidth   = 720
	chartHeight  = 220
	marginLeft   = 56
	marginRight  = 16
	marginTop    = 12
	marginBottom = 28
	plotWidth    = chartWidth - marginLeft - marginRight
	plotHeight   = chartHeight - marginTop - marginBottom
)

// axes maps simulated time and a value range onto the plot area.
type axes struct {
	end  time.Duration
	yMax float64
}

func (a axes) x(t time.Duration) float64 {
	if a.end <= 0 {
		return marginLeft
	}
	return marginLeft + float64(t)/float64(a.end)*plotWidth
}

func (a axes) y(v float64) float64 {
	if a.yMax <= 0 {
		return marginTop + plotHeight
	}
	return marginTop + plotHeight - v/a.yMax*plotHeight
}

// Tick is one labelled axis position.
type Tick struct {
	Pos   float64
	Label string
}

// xTicks places about six time ticks on round durations.
func (a axes) xTicks() []Tick {
	if a.end <= 0 {
		return []Tick{{Pos: marginLeft, Label: "0s"}}
	}
	step := niceDuration(a.end / 6)
	var ticks []Tick
	for t := time.Duration(0); t <= a.end; t += step {
		ticks = append(ticks, Tick{Pos: a.x(t), Label: simulator.FormatDuration(t)})
	}
	return ticks
}

// yTicks places about five value ticks on round numbers.
func (a axes) yTicks() []Tick {
	if a.yMax <= 0 {
		return []Tick{{Pos: a.y(0), Label: "0"}}
	}
	step := niceNumber(a.yMax / 5)
	var ticks []Tick
	for v := 0.0; v <= a.yMax*1.0001; v += step {
		ticks = append(ticks, Tick{Pos: a.y(v), Label: formatNumber(v)})
	}
	return ticks
}

// niceDuration rounds a tick interval up to a duration people count in.
func niceDuration(d time.Duration) time.Duration {
	steps := []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour}
	for _, s := range steps {
		if s >= d {
			return s
		}
	}
	return steps[len(steps)-1] * time.Duration(math.Ceil(float64(d)/float64(steps[len(steps)-1])))
}

// niceNumber rounds up to 1, 2 or 5 times a power of ten.
func niceNumber(v float64) float64 {
	if v <= 0 {
		return 1
	}
	exp := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*exp >= v {
			return m * exp
		}
	}
	return 10 * exp
}

func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// point is a value that holds from t on, until the next point.
type point struct {
	t time.Duration
	v float64
}

// stepPath draws a step function from its points up to end.
func stepPath(a axes, pts []point, end time.Duration) string {
	if len(pts) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "M%.1f %.1f", a.x(pts[0].t), a.y(pts[0].v))
	for i := 1; i < len(pts); i++ {
		fmt.Fprintf(&b, "H%.1fV%.1f", a.x(pts[i].t), a.y(pts[i].v))
	}
	fmt.Fprintf(&b, "H%.1f", a.x(end))
	return b.String()
}

// stepArea is stepPath closed down to zero, for a filled area.
func stepArea(a axes, pts []point, end time.Duration) string {
	line := stepPath(a, pts, end)
	if line == "" {
		return ""
	}
	return fmt.Sprintf("%sV%.1fH%.1fZ", line, a.y(0), a.x(pts[0].t))
}

// bandPath fills the area between lower and upper where upper is above lower: the
// borrowed part of the usage, above the nominal quota. Both are step functions
// sampled at the union of their change times.
func bandPath(a axes, upper, lower []point, end time.Duration) string {
	times := mergeTimes(upper, lower)
	var b strings.Builder
	for i, t := range times {
		next := end
		if i+1 < len(times) {
			next = times[i+1]
		}
		u, l := valueAt(upper, t), valueAt(lower, t)
		if u <= l || next <= t {
			continue
		}
		fmt.Fprintf(&b, "M%.1f %.1fH%.1fV%.1fH%.1fZ", a.x(t), a.y(u), a.x(next), a.y(l), a.x(t))
	}
	return b.String()
}

func mergeTimes(a, b []point) []time.Duration {
	var out []time.Duration
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var t time.Duration
		switch {
		case j >= len(b) || (i < len(a) && a[i].t <= b[j].t):
			t = a[i].t
			i++
		default:
			t = b[j].t
			j++
		}
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out
}

// valueAt is the value of a step function at t (0 before its first point).
func valueAt(pts []point, t time.Duration) float64 {
	lo, hi := 0, len(pts)
	for lo < hi {
		mid := (lo + hi) / 2
		if pts[mid].t <= t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0
	}
	return pts[lo-1].v
}

// downsample keeps a step function drawable: with more points than the plot has
// columns, each column shows the largest value it had, so that no peak disappears,
// and the value it ended with carries on into the columns without changes.
func downsample(pts []point, end time.Duration, columns int) []point {
	if len(pts) <= 2*columns || end <= 0 {
		return pts
	}
	bucketOf := func(t time.Duration) int { return int(float64(t) / float64(end) * float64(columns)) }
	startOf := func(b int) time.Duration { return time.Duration(float64(b) / float64(columns) * float64(end)) }
	out := make([]point, 0, 2*columns)
	cur, maxV, lastV := -1, 0.0, 0.0
	flush := func(next int) {
		if cur < 0 {
			return
		}
		out = append(out, point{t: startOf(cur), v: maxV})
		if lastV != maxV && next > cur+1 {
			out = append(out, point{t: startOf(cur + 1), v: lastV})
		}
	}
	for _, p := range pts {
		b := bucketOf(p.t)
		if b != cur {
			flush(b)
			cur, maxV = b, p.v
		} else if p.v > maxV {
			maxV = p.v
		}
		lastV = p.v
	}
	flush(columns + 1)
	return out
}
