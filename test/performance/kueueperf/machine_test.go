package main

import (
	"testing"
	"time"
)

func TestParseMachineBusyCountsEveryBusyColumn(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	stat := "cpu  100 2 30 5000 40 1 7 3 0 0\ncpu0 50 1 15 2500 20 0 3 1 0 0\n"
	got, err := parseMachineBusy(stat)
	if err != nil {
		t.Fatal(err)
	}
	// idle and iowait are not busy; guest time is already inside user.
	if want := (100 + 2 + 30 + 1 + 7 + 3) * 10 * time.Millisecond; got != want {
		t.Errorf("busy = %v, want %v", got, want)
	}
	if _, err := parseMachineBusy("intr 1 2 3\n"); err == nil {
		t.Error("a /proc/stat without the cpu line parsed")
	}
}

func TestOtherCPUIsTheRestNeverNegative(t *testing.T) {
	if got := otherCPU(10*time.Second, 4*time.Second, 3*time.Second); got != 3*time.Second {
		t.Errorf("other = %v, want 3s", got)
	}
	if got := otherCPU(time.Second, 2*time.Second); got != 0 {
		t.Errorf("other = %v, want 0 when the counters overlap", got)
	}
}
