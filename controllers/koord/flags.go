package koord

import (
	"fmt"
	"math"
	"strconv"

	"quokka.dev/quokka/engine/elasticquota"
)

// oversellRateFlag is --oversellrate: Koord-Queue's spelling, Quokka's exact
// arithmetic. A rate of zero or less, or one that is not finite, would admit
// nothing or everything: the flag refuses it, so the manager stops and the
// error names the flag.
type oversellRateFlag struct {
	text string
	rate elasticquota.OversellRate
}

func (f *oversellRateFlag) String() string {
	if f.text == "" {
		return "1"
	}
	return f.text
}

func (f *oversellRateFlag) Type() string { return "rate" }

func (f *oversellRateFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v <= 0 {
		return fmt.Errorf("oversell rate %q must be a positive, finite number", s)
	}
	r, err := elasticquota.ParseOversellRate(s)
	if err != nil {
		return err
	}
	f.text, f.rate = s, r
	return nil
}
