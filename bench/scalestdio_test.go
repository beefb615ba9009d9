package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// BenchmarkScaleStdio is BenchmarkScaleH2 over stdio: MCPCHAOS_SCALE_CALLS
// (default 10,000) slow_task calls open at once on one `mcpchaos serve
// --stdio` process that the run starts, every request and every answer on
// its one pair of pipes, the answers told apart by id and the progress by
// token. The server serves its metrics on a loopback port of its own
// choosing (--metrics-listen 127.0.0.1:0) and says where on its stderr,
// which goes to a file the benchmark reads: its in-flight gauge finds the
// plateau as over HTTP/2. The client's CPU seconds include the server's
// (it is the client's child).
//
//	MCPCHAOS_SCALE_CALLS=10000 go test -run '^$' -bench 'ScaleStdio$' -benchtime=1x -timeout 20m ./bench/
func BenchmarkScaleStdio(b *testing.B) {
	setup(b)
	sc := newOpenScale(b)
	errFile := filepath.Join(b.TempDir(), "server.stderr")
	// sh execs the server (its pid stays the one the run started) with its
	// stderr in errFile.
	scenario := fmt.Sprintf(`name: scale-stdio
seed: 1
protocol: 2026-07-28
target:
  stdio: {command: [sh, -c, 'exec "$0" serve --stdio --metrics-listen 127.0.0.1:0 2>"$1"', %q, %q]}
%s
orphans:
  grace: 1s
  sample_every: 5m
  probes: [{process: {}}]
`, bin, errFile, sc.load())
	for range b.N {
		before := machineNow()
		r, samples, gauge := runOpenSampled(b, scenario, sc, "scale-stdio", func(stop <-chan struct{}) string {
			return waitMetricsURL(errFile, stop)
		})
		logRun(b, r)
		reportOthers(b, before, r.CPU())
		b.ReportMetric(r.CPU().Seconds(), "client+server-cpu-s")
		sc.report(b, "scale-stdio", r, samples, gauge)
	}
}

var stdioMetrics = regexp.MustCompile(`metrics on (http://\S+/metrics)`)

// waitMetricsURL waits for the stdio server's line saying where its
// metrics are (polling its stderr file), until stop is closed; "" then.
func waitMetricsURL(errFile string, stop <-chan struct{}) string {
	for {
		if raw, err := os.ReadFile(errFile); err == nil {
			if m := stdioMetrics.FindSubmatch(raw); m != nil {
				return string(m[1])
			}
		}
		select {
		case <-stop:
			return ""
		case <-time.After(20 * time.Millisecond):
		}
	}
}
