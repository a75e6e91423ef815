package simulator

import (
	"fmt"
	"time"
)

// formatDuration renders a simulated time compactly for people: 0s, 90s, 10m,
// 2h30m, 3d4h. Go's Duration.String prints 2h30m0s, which is noisier in a
// timeline of thousands of lines.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	neg := d < 0
	if neg {
		d = -d
	}
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	d -= m * time.Minute
	sec := d / time.Second
	d -= sec * time.Second
	out := ""
	if days > 0 {
		out += fmt.Sprintf("%dd", days)
	}
	if h > 0 {
		out += fmt.Sprintf("%dh", h)
	}
	if m > 0 {
		out += fmt.Sprintf("%dm", m)
	}
	if sec > 0 || d > 0 {
		if d > 0 {
			out += fmt.Sprintf("%gs", float64(sec)+d.Seconds())
		} else {
			out += fmt.Sprintf("%ds", sec)
		}
	}
	if neg {
		out = "-" + out
	}
	return out
}

// FormatDuration is formatDuration for the output packages.
func FormatDuration(d time.Duration) string { return formatDuration(d) }
