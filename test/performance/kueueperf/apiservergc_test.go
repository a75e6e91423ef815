package main

import "testing"

func TestParseAPIServerGC(t *testing.T) {
	text := `# HELP go_gc_duration_seconds A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 1.2e-05
go_gc_duration_seconds_sum 0.5
go_gc_duration_seconds_count 65
# TYPE go_memstats_alloc_bytes_total counter
go_memstats_alloc_bytes_total 9.60773584e+08
go_memstats_alloc_bytes 1.2e+08
`
	gc, err := parseAPIServerGC(text)
	if err != nil {
		t.Fatal(err)
	}
	if gc.collections != 65 || gc.allocated != 9.60773584e+08 {
		t.Fatalf("got %+v, want 65 collections and 960773584 bytes", gc)
	}
	if d := gc.since(apiServerGC{collections: 15, allocated: 773584}); d.collections != 50 || d.allocated != 9.6e+08 {
		t.Fatalf("since: got %+v", d)
	}
	if _, err := parseAPIServerGC("go_memstats_alloc_bytes_total 1\n"); err == nil {
		t.Fatal("metrics without the collection count were taken")
	}
}
