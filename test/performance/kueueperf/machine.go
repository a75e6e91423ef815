package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// machineBusy is the CPU time every process on the machine has used since
// boot, from the first line of /proc/stat: user, nice, system, irq, softirq
// and steal, in clock ticks of 10 ms. A side's run measures it at both ends so
// that the table can show the CPU that processes other than the four it
// measures took from the same cores: a build or a test run beside the harness
// slows both sides, unevenly, and a comparison made so is not a measurement.
func machineBusy() (time.Duration, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseMachineBusy(string(data))
}

func parseMachineBusy(stat string) (time.Duration, error) {
	line, _, _ := strings.Cut(stat, "\n")
	var (
		label                                                 string
		user, nice, system, idle, iowait, irq, softirq, steal int64
	)
	if _, err := fmt.Sscan(line, &label, &user, &nice, &system, &idle, &iowait, &irq, &softirq, &steal); err != nil || label != "cpu" {
		return 0, fmt.Errorf("unexpected first line of /proc/stat %q", line)
	}
	return time.Duration(user+nice+system+irq+softirq+steal) * 10 * time.Millisecond, nil
}

// otherCPU is the machine's busy time over a run less what the measured
// processes used, never below zero (the counters are read a few milliseconds
// apart).
func otherCPU(machine time.Duration, measured ...time.Duration) time.Duration {
	for _, d := range measured {
		machine -= d
	}
	return max(0, machine)
}
