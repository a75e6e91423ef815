package admissionfairsharing

import (
	"math/bits"
	"time"
)

// one is 1.0 in the Q30 fixed point used for decay factors.
const one = uint64(1) << 30

// halvingRoots[i] is 2^(-2^-(i+1)) in Q30: the factors for the binary digits
// of the fractional number of half-lives. A table of integers, so that decay
// never depends on floating-point rounding.
var halvingRoots = [30]uint64{
	759250125, 902905651, 984625594, 1028218693, 1050733751, 1062175491, 1067942999, 1070838486,
	1072289173, 1073015252, 1073378477, 1073560135, 1073650976, 1073696399, 1073719111, 1073730468,
	1073736146, 1073738985, 1073740404, 1073741114, 1073741469, 1073741647, 1073741735, 1073741780,
	1073741802, 1073741813, 1073741818, 1073741821, 1073741823, 1073741823,
}

// factor is 0.5^(dt/halfLife) in Q30: whole half-lives shift, the remainder is
// expanded in binary, one digit per table entry.
func factor(dt, halfLife time.Duration) uint64 {
	if dt <= 0 {
		return one
	}
	if halfLife <= 0 {
		return 0
	}
	whole := dt / halfLife
	if whole >= 31 {
		return 0
	}
	rem, h := uint64(dt%halfLife), uint64(halfLife)
	f := one
	for i := range halvingRoots {
		if rem == 0 {
			break
		}
		rem *= 2
		if rem >= h {
			rem -= h
			hi, lo := bits.Mul64(f, halvingRoots[i])
			f = hi<<34 | lo>>30
		}
	}
	return f >> uint(whole)
}

// decay multiplies v ≥ 0 by a Q30 factor, rounding down.
func decay(v int64, f uint64) int64 {
	if v <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(v), f)
	return int64(hi<<34 | lo>>30)
}
