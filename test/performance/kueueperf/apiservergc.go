package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// apiServerGC is what the API server's Go runtime reports of its garbage:
// how many collections it has run and how many bytes it has allocated. The
// runner's Finished writes wait out the API server's collections (its mark
// phase stalls every request for about a second on this load:
// docs/kueue-perf.md, thirty-ninth round), so how often it collects, and how
// much a side makes it allocate, is a figure of each run.
type apiServerGC struct {
	collections int64
	allocated   float64
}

// readAPIServerGC scrapes the API server's /metrics.
func readAPIServerGC(ctx context.Context, cfg *rest.Config) (apiServerGC, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return apiServerGC{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return apiServerGC{}, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return parseAPIServerGC(string(body))
}

// parseAPIServerGC reads the Go collector's go_gc_duration_seconds_count and
// go_memstats_alloc_bytes_total from a Prometheus text exposition.
func parseAPIServerGC(text string) (apiServerGC, error) {
	var gc apiServerGC
	found := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "go_gc_duration_seconds_count":
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return gc, fmt.Errorf("go_gc_duration_seconds_count %q: %w", value, err)
			}
			gc.collections = int64(n)
			found++
		case "go_memstats_alloc_bytes_total":
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return gc, fmt.Errorf("go_memstats_alloc_bytes_total %q: %w", value, err)
			}
			gc.allocated = n
			found++
		}
	}
	if err := sc.Err(); err != nil {
		return gc, err
	}
	if found != 2 {
		return gc, fmt.Errorf("the API server's metrics lack go_gc_duration_seconds_count or go_memstats_alloc_bytes_total")
	}
	return gc, nil
}

// since is what happened between an earlier reading and this one.
func (gc apiServerGC) since(earlier apiServerGC) apiServerGC {
	return apiServerGC{collections: gc.collections - earlier.collections, allocated: gc.allocated - earlier.allocated}
}
