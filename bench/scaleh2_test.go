package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// BenchmarkScaleH2 holds MCPCHAOS_SCALE_CALLS (default 10,000) slow_task
// calls open at once over HTTP/2 (15 steps of 1 s, progress after each),
// ramped in at 2,500/s, against `mcpchaos serve --tls-self-signed` in its
// own process: every call is a stream of a few TLS connections instead of
// a connection of its own, so the descriptor limit no longer caps a
// process near 10k calls. It reports the client's RSS per call in flight:
// VmRSS at the plateau (the server's in-flight gauge within 10 of its
// most, the reading with the most RSS) minus VmRSS before the load (the
// last reading before the gauge rose), over the gauge at the plateau.
//
//	MCPCHAOS_SCALE_CALLS=10000 go test -run '^$' -bench 'ScaleH2$' -benchtime=1x -timeout 20m ./bench/
func BenchmarkScaleH2(b *testing.B) {
	setup(b)
	calls := 10000
	if v := os.Getenv("MCPCHAOS_SCALE_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 || n > 100000 {
			b.Fatalf("MCPCHAOS_SCALE_CALLS=%q: want 100 to 100000", v)
		}
		calls = n
	}
	const steps, stepMs, ramp = 15, 1000, 2500
	ca := filepath.Join(b.TempDir(), "ca.pem")
	srv, m := startListening(b, serverCPU, regexp.MustCompile(`MCP on (https://\S+), metrics on (https://\S+) `),
		"serve", "--listen", "127.0.0.1:0", "--tls-self-signed", ca)
	srv.URL, srv.MetricsURL = m[0], m[1]
	rampS := max(1, calls/ramp)
	scenario := fmt.Sprintf(`name: scale-h2
seed: 1
protocol: 2026-07-28
target:
  http: {url: %q, tls: {ca_file: %q}}
load: {rate: %d/1s, duration: %ds, max_in_flight: %d, graceful_stop: 120s}
timeouts: {idle: 60s, max: 120s}
calls:
  - {tool: slow_task, arguments: {steps: %d, step_ms: %d}, progress: true}
orphans:
  grace: 1s
  sample_every: 5m
  probes: [{process: {pid: %d}}]
`, srv.URL, ca, calls/rampS, rampS, calls+2000, steps, stepMs, srv.cmd.Process.Pid)
	for range b.N {
		r, samples, gauge, srvCPU := runSampled(b, srv, scenario, 5*time.Minute)
		base, peak, ok := gaugeBaseAndPeak(samples, gauge)
		if !ok {
			b.Fatalf("scale-h2: no usable samples (%d taken, %d gauge readings)", len(samples), len(gauge))
		}
		at := samples[peak]
		inflight := at.server
		perCall := float64((at.rssKiB-samples[base].rssKiB)*1024) / float64(max(inflight, 1))
		s := r.Summary
		b.ReportMetric(perCall, "B/inflight")
		b.ReportMetric(float64(inflight), "peak-inflight")
		b.ReportMetric(float64(samples[base].rssKiB)/1024, "rss-before-MiB")
		b.ReportMetric(float64(at.rssKiB)/1024, "rss-at-peak-MiB")
		b.ReportMetric(float64(at.fds), "fds-at-peak")
		b.ReportMetric(s.num("calls.ok"), "ok")
		b.ReportMetric(s.num("progress.notifications")/(max(s.num("calls.ok"), 1)*steps), "progress-received/expected")
		b.ReportMetric(s.num("latency_ms.call.p50")/1000, "p50-call-s")
		b.ReportMetric(r.CPU().Seconds(), "client-cpu-s")
		b.ReportMetric(srvCPU.Seconds(), "server-cpu-s")
		b.Logf("scale-h2: http_version %v; before the load %d KiB (at %v); at the peak %d calls on the server, %d fds, %d KiB (at %v)",
			s.m["http_version"], samples[base].rssKiB, samples[base].at.Round(time.Millisecond),
			inflight, at.fds, at.rssKiB, at.at.Round(time.Millisecond))
		verdict(b, perCall < 16<<10, "scale-h2: %.0f B of RSS per in-flight call (aim < 16 KiB)", perCall)
		verdict(b, s.num("calls.ok") >= float64(calls), "scale-h2: %v of %d calls ok", s.num("calls.ok"), calls)
	}
}

// gaugeBaseAndPeak picks the reading before the load (the last one taken
// before the server's in-flight gauge first rose above 0) and the one at
// the plateau (of the readings within 100 ms of the gauge within 10 calls
// of its most, the one with the most RSS), setting each reading's server
// field to the gauge near it.
func gaugeBaseAndPeak(s []memSample, g []gaugeSample) (base, peak int, ok bool) {
	if len(s) < 3 || len(g) == 0 {
		return 0, 0, false
	}
	rose := time.Duration(-1)
	most := 0
	for _, x := range g {
		if x.v > 0 && rose < 0 {
			rose = x.at
		}
		most = max(most, x.v)
	}
	base = -1
	for i, x := range s {
		if rose >= 0 && x.at < rose-50*time.Millisecond {
			base = i
		}
	}
	peak = plateauPeak(s, g, most)
	return base, peak, base >= 0 && peak > base
}
