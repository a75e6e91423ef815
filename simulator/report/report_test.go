package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/adapter"
	"quokka.dev/quokka/simulator/manifest"
)

// chromiumPath is where Debian's chromium package installs the browser
// (hack/install-chromium.sh).
const chromiumPath = "/usr/bin/chromium"

// simulateExample runs an example with series recorded, as --report does.
func simulateExample(t *testing.T, name string) *simulator.Result {
	t.Helper()
	docs, err := manifest.Load([]string{filepath.Join("..", "..", "examples", name)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulator.Run(docs, simulator.Options{NewEngine: adapter.New, Series: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestReportHasChartsAndTables(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, simulateExample(t, "gpu-cluster"), Options{Title: "gpu-cluster"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`<svg class="chart usage-chart" id="usage-0"`,
		`research — h100 nvidia.com/gpu`,
		`<path class="borrowed"`, // research borrows 16 GPUs at first
		`<path class="ceiling"`,  // research's borrowingLimit of 16
		`<path class="nominal"`,
		`<svg class="chart line-chart" id="queue-lengths"`,
		`<svg class="chart histogram" id="wait-times"`,
		`<td>research/sweep-7</td>`,
		`InCohortReclamation by product-training/ranker-v4`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, banned := range []string{"http://", "https://", "<link", "src="} {
		if strings.Contains(page, banned) {
			t.Errorf("the report must be self-contained, but contains %q", banned)
		}
	}
}

func TestDownsampleKeepsPeaks(t *testing.T) {
	t.Parallel()
	var pts []point
	for i := 0; i < 10000; i++ {
		v := 1.0
		if i == 5000 {
			v = 50
		}
		pts = append(pts, point{t: time.Duration(i) * time.Second, v: v})
	}
	out := downsample(pts, 10000*time.Second, 100)
	if len(out) > 300 {
		t.Errorf("downsampled to %d points, want about 100", len(out))
	}
	peak := 0.0
	for _, p := range out {
		peak = max(peak, p.v)
	}
	if peak != 50 {
		t.Errorf("the one-second peak of 50 was lost: max %g", peak)
	}
	if last := out[len(out)-1].v; last != 1 {
		t.Errorf("the value after the peak must carry on: last %g", last)
	}
}

// TestReportRendersInChromium opens the report in headless Chromium, the way a
// person would, and checks that the charts are in the rendered DOM and that the
// page logged no error. CI installs the browser (hack/install-chromium.sh) and
// sets QUOKKA_REQUIRE_BROWSER, so the test can only be skipped on a machine where
// nobody asked for it.
func TestReportRendersInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("QUOKKA_REQUIRE_BROWSER") != "" {
			t.Fatalf("QUOKKA_REQUIRE_BROWSER is set but %s is missing: run hack/install-chromium.sh", chromiumPath)
		}
		t.Skipf("SKIPPED: %s is not installed; run hack/install-chromium.sh to render the report in a browser (CI sets QUOKKA_REQUIRE_BROWSER)", chromiumPath)
	}
	dir := t.TempDir()
	res := simulateExample(t, "dynamic-quota")
	path, err := WriteDir(dir, res, Options{Title: "dynamic-quota"})
	if err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+profile, "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := stdout.String()
	for _, marker := range []string{"Uncaught", "ERROR:CONSOLE"} {
		if strings.Contains(stderr.String(), marker) {
			t.Errorf("the page logged an error (%s):\n%s", marker, stderr.String())
		}
	}
	m := regexp.MustCompile(`data-rendered="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page's script did not run: no data-rendered marker in the rendered DOM:\n%.2000s", dom)
	}
	charts := strings.Count(dom, `<svg class="chart`)
	if n, _ := strconv.Atoi(m[1]); n != charts || n < 4 {
		t.Errorf("the script counted %s charts, the DOM holds %d; want every chart (at least 4) rendered", m[1], charts)
	}
	for _, want := range []string{`id="usage-0"`, `id="queue-lengths"`, `id="wait-times"`, `<path class="usage" d="M`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
}
