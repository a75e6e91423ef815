//go:build integration

package controller

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
)

// TestThroughput measures admission against the real API server: 5,000
// Workloads on 50 ClusterQueues (100 each, all fit). It prints admissions per
// second and time-to-admission percentiles and asserts nothing about time.
// It runs only with QUOKKA_BENCH=1, since it takes a minute of two cores:
//
//	QUOKKA_BENCH=1 KUBEBUILDER_ASSETS=$(hack/envtest.sh) go test -tags integration \
//	  -run TestThroughput -v ./test/integration/controller/
func TestThroughput(t *testing.T) {
	if os.Getenv("QUOKKA_BENCH") == "" {
		t.Skip("set QUOKKA_BENCH=1 to run the throughput benchmark")
	}
	// QUOKKA_BENCH_QUEUES and QUOKKA_BENCH_PER_QUEUE shrink the run.
	queues, perQueue := envInt("QUOKKA_BENCH_QUEUES", 50), envInt("QUOKKA_BENCH_PER_QUEUE", 100)
	for q := range queues {
		ns := fmt.Sprintf("bench-%02d", q)
		cpuQueue(t, ns, fmt.Sprint(perQueue))
	}
	startManager(t, nil)

	// An unthrottled client, so that creation measures the API server and not
	// client-go's default rate limiter.
	fast := rest.CopyConfig(env.Config)
	fast.QPS, fast.Burst = -1, 1000
	wc, err := client.NewWithWatch(fast, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var mu sync.Mutex
	created := map[string]time.Time{}
	admitted := map[string]time.Time{}
	total := queues * perQueue
	done := make(chan struct{})
	observe := func(w watch.Interface) bool {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if ev.Type != watch.Modified && ev.Type != watch.Added {
				continue
			}
			wl, ok := ev.Object.(*kueue.Workload)
			if !ok || !isAdmitted(wl) {
				continue
			}
			key := wl.Namespace + "/" + wl.Name
			mu.Lock()
			if _, seen := admitted[key]; !seen && len(wl.Namespace) > 6 && wl.Namespace[:6] == "bench-" {
				admitted[key] = time.Now()
			}
			n := len(admitted)
			mu.Unlock()
			if n == total {
				return true
			}
		}
		return false
	}
	// The API server ends watches after a while; a new one replays the current
	// objects, of which only admissions not seen yet count (their time is then
	// late by at most the gap between the two watches).
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			w, err := wc.Watch(ctx, &kueue.WorkloadList{})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			if observe(w) {
				return
			}
		}
	}()

	start := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range jobs {
				ns := fmt.Sprintf("bench-%02d", i%queues)
				name := fmt.Sprintf("w-%04d", i)
				mu.Lock()
				created[ns+"/"+name] = time.Now()
				mu.Unlock()
				if err := wc.Create(ctx, makeWL(ns, name, "q", "cpu", "1")); err != nil {
					t.Errorf("creating %s/%s: %v", ns, name, err)
				}
			}
		})
	}
	for i := range total {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	createdAll := time.Since(start)

	select {
	case <-done:
	case <-ctx.Done():
	}
	mu.Lock()
	if len(admitted) != total {
		t.Fatalf("only %d of %d workloads admitted before the timeout", len(admitted), total)
	}
	defer mu.Unlock()
	var last time.Time
	waits := make([]time.Duration, 0, total)
	for k, at := range admitted {
		waits = append(waits, at.Sub(created[k]))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(waits)
	pct := func(p float64) time.Duration { return waits[min(len(waits)-1, int(p*float64(len(waits))))] }
	elapsed := last.Sub(start)
	t.Logf("%d workloads on %d ClusterQueues: created in %v, all admitted after %v: %.0f admissions/s",
		total, queues, createdAll.Round(time.Millisecond), elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
	t.Logf("time to admission: p50 %v, p90 %v, p99 %v, max %v",
		pct(0.50).Round(time.Millisecond), pct(0.90).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), waits[len(waits)-1].Round(time.Millisecond))
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
