package v1beta2

import (
	"fmt"
	"strconv"
)

// ParseMaxExecTimeSeconds reads the value of MaxExecTimeSecondsLabel: a
// positive whole number of seconds, as Kueue's job framework requires. The
// error says what is wrong with the value, for a field error on the label.
func ParseMaxExecTimeSeconds(v string) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("must be a whole number of seconds")
	}
	if n <= 0 {
		return 0, fmt.Errorf("should be greater than 0")
	}
	return int32(n), nil
}
