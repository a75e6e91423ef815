package quota

import (
	"maps"

	"quokka.dev/quokka/engine/resources"
)

// MaxChargedUsage bounds, for each flavor and resource, the usage of all the
// charges the cache holds together. Cells keep usage as plain int64 sums, in
// a queue and in every Cohort above it; no cell holds more than the charges
// below it, so with every total within MaxChargedUsage (half of the int64
// range, as MaxTreeQuota bounds quotas) no cell can wrap around to a negative
// usage, however the tree is reshaped. No admission the engine makes comes
// near: its admissions fit quotas. Only admissions written by hand with
// absurd usage can, and a charge that would take a total past the bound is
// cut to what is left (a cell at the bound already exceeds any quota), so
// that the cache stays consistent instead of wrapping.
const MaxChargedUsage = resources.MaxAmount

// bound is a charge of usage to cq within MaxChargedUsage, counted in the
// totals.
func (c *Cache) bound(cq string, usage resources.Amounts) charge {
	ch := charge{cq: cq, usage: usage}
	for fr, v := range usage {
		if room := MaxChargedUsage - c.charged[fr]; v > room {
			if ch.asked == nil {
				ch.asked, ch.usage = usage, maps.Clone(usage)
			}
			ch.usage[fr] = max(0, room)
		}
	}
	for fr, v := range ch.usage {
		c.charged[fr] += v
	}
	return ch
}

// unbound takes a released charge out of the totals.
func (c *Cache) unbound(ch charge) {
	for fr, v := range ch.usage {
		if left := c.charged[fr] - v; left != 0 {
			c.charged[fr] = left
		} else {
			delete(c.charged, fr)
		}
	}
}

// charged is what the driver charged, before any cut.
func (ch charge) charged() resources.Amounts {
	if ch.asked != nil {
		return ch.asked
	}
	return ch.usage
}
