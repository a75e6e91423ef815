package cli

import (
	"os"
	"strconv"
	"testing"
	"time"

	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/adapter"
	"quokka.dev/quokka/simulator/generate"
	"quokka.dev/quokka/simulator/manifest"
)

// BenchmarkSimulateWeek generates a week of jobs, loads it from disk and simulates
// it, as `quokka simulate generate` followed by `quokka simulate` would. The default
// size keeps `go test -bench` quick; the full-size run reported in the README is:
//
//	QUOKKA_BENCH_QUEUES=1000 QUOKKA_BENCH_COHORTS=10 QUOKKA_BENCH_JOBS=100000 \
//	  go test ./simulator/cli -run '^$' -bench SimulateWeek -benchtime 1x
//
// QUOKKA_BENCH_RECLAIM (default 0.5, the generator's) is the fraction of teams
// that reclaim by preemption, so that the benchmark measures the preemption
// paths a real cluster takes; set it to 0 to compare with runs measured before
// engine/scheduler handed reclaimed room to its preemptor (simulator/README.md,
// "Scale"). QUOKKA_BENCH_UNTIL (a Go duration) stops the simulated clock there, to
// profile the first hours of a week that takes long to finish.
func BenchmarkSimulateWeek(b *testing.B) {
	opts := generate.Options{
		Queues:  envInt(b, "QUOKKA_BENCH_QUEUES", 100),
		Cohorts: envInt(b, "QUOKKA_BENCH_COHORTS", 5),
		Jobs:    envInt(b, "QUOKKA_BENCH_JOBS", 10000),
		Seed:    1,
		Reclaim: envFloat(b, "QUOKKA_BENCH_RECLAIM", 0.5),
	}
	trace, err := generate.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := trace.WriteDir(dir); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		docs, err := manifest.Load([]string{dir})
		if err != nil {
			b.Fatal(err)
		}
		loaded := time.Since(start)
		simOpts := simulator.Options{NewEngine: adapter.New}
		if v := os.Getenv("QUOKKA_BENCH_UNTIL"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				b.Fatalf("QUOKKA_BENCH_UNTIL: %v", err)
			}
			simOpts.Until, simOpts.HasUntil = d, true
		}
		res, err := simulator.Run(docs, simOpts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(loaded.Seconds(), "load-s")
		b.ReportMetric(time.Since(start).Seconds(), "total-s")
		b.ReportMetric(float64(len(res.Events)), "events")
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

func envFloat(b *testing.B, name string, def float64) float64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return f
}
