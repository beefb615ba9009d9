package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkScaleH2 holds MCPCHAOS_SCALE_CALLS (default 10,000) slow_task
// calls open at once over HTTP/2 (steps of 1 s, progress after each; see
// openScale), ramped in at 2,500/s, against `mcpchaos serve
// --tls-self-signed --h2-max-streams 1000` in its own process: every call
// is a stream of a few TLS connections (1,000 streams each, where the Go
// standard library's server takes 250) instead of a connection of its
// own, so the descriptor limit no longer caps a process near 10k calls. It reports the client's
// RSS per call in flight: VmRSS at the plateau (the server's in-flight
// gauge within 10 of its most, the reading with the most RSS) minus VmRSS
// before the load (the last reading before the gauge rose), over the
// gauge at the plateau.
//
//	MCPCHAOS_SCALE_CALLS=10000 go test -run '^$' -bench 'ScaleH2$' -benchtime=1x -timeout 20m ./bench/
func BenchmarkScaleH2(b *testing.B) {
	setup(b)
	sc := newOpenScale(b)
	ca := filepath.Join(b.TempDir(), "ca.pem")
	srv, m := startListening(b, serverCPU, regexp.MustCompile(`MCP on (https://\S+), metrics on (https://\S+) `),
		"serve", "--listen", "127.0.0.1:0", "--tls-self-signed", ca, "--h2-max-streams", "1000")
	srv.URL, srv.MetricsURL = m[0], m[1]
	scenario := fmt.Sprintf(`name: scale-h2
seed: 1
protocol: 2026-07-28
target:
  http: {url: %q, tls: {ca_file: %q}}
%s
orphans:
  grace: 1s
  sample_every: 5m
  probes: [{process: {pid: %d}}]
`, srv.URL, ca, sc.load(), srv.cmd.Process.Pid)
	for range b.N {
		before := machineNow()
		srvCPU0, _ := procCPU(srv.cmd.Process.Pid)
		r, samples, gauge := runOpenSampled(b, scenario, sc, "scale-h2", func(<-chan struct{}) string { return srv.MetricsURL })
		srvCPU1, _ := procCPU(srv.cmd.Process.Pid)
		logRun(b, r)
		reportOthers(b, before, r.CPU()+srvCPU1-srvCPU0)
		b.ReportMetric((srvCPU1 - srvCPU0).Seconds(), "server-cpu-s")
		b.ReportMetric(r.CPU().Seconds(), "client-cpu-s")
		sc.report(b, "scale-h2", r, samples, gauge)
	}
}

// openScale is the shape of the open-call scale benchmarks: calls ramped
// in at rate for rampS seconds, each of steps steps of 1 s with progress
// after each. A call lasts at least 15 s, and 10 s past the end of the
// ramp: every call is still open when the last one starts (10,000 calls:
// 4 s of ramp, 15 steps; 50,000: 20 s, 30 steps).
type openScale struct{ calls, rate, rampS, steps int }

// newOpenScale reads MCPCHAOS_SCALE_CALLS (default 10,000).
func newOpenScale(b *testing.B) openScale {
	calls := 10000
	if v := os.Getenv("MCPCHAOS_SCALE_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 || n > 100000 {
			b.Fatalf("MCPCHAOS_SCALE_CALLS=%q: want 100 to 100000", v)
		}
		calls = n
	}
	const ramp = 2500
	rampS := max(1, calls/ramp)
	return openScale{calls: calls, rate: calls / rampS, rampS: rampS, steps: max(15, rampS+10)}
}

// load is the scenario's load, timeouts and calls. The timeouts and the
// graceful stop are generous (see wait): the point is to hold the calls
// open, and a CPU-starved server stretches them.
func (sc openScale) load() string {
	return fmt.Sprintf(`load: {rate: %d/1s, duration: %ds, max_in_flight: %d, graceful_stop: %ds}
timeouts: {idle: 120s, max: %ds}
calls:
  - {tool: slow_task, arguments: {steps: %d, step_ms: 1000}, progress: true}`,
		sc.rate, sc.rampS, sc.calls+2000, sc.wait(), sc.wait(), sc.steps)
}

// wait is how long, in seconds, a call may take (its timeouts' cap) and
// the load may wait for the calls in flight at its end: 240 s, or twelve
// times a call's steps when that is more (50,000 calls: 360 s), for a
// machine starved enough to stretch the calls that much.
func (sc openScale) wait() int { return max(240, 12*sc.steps) }

// limit bounds a run: the ramp, the wait for the calls and 5 minutes.
func (sc openScale) limit() time.Duration {
	return time.Duration(sc.rampS+sc.wait())*time.Second + 5*time.Minute
}

// runOpenSampled runs the scenario, reading the client's memory every
// 100 ms and the in-flight gauge at the URL that metrics returns (it may
// wait for the URL until stop is closed; "" gives up) every 50 ms. With
// MCPCHAOS_BENCH_MEMPROFILE=DIR the client also writes a memory profile,
// DIR/NAME-CALLS.pprof (see cmd/mcpchaos/memprofile.go), 3 s after the
// gauge first reached 98% of the calls (a signal, SIGUSR1, asks for it).
func runOpenSampled(b *testing.B, scenario string, sc openScale, name string, metrics func(stop <-chan struct{}) string) (runResult, []memSample, []gaugeSample) {
	b.Helper()
	var samples []memSample
	var gauge []gaugeSample
	dir := os.Getenv("MCPCHAOS_BENCH_MEMPROFILE")
	o := runOpts{limit: sc.limit(), watch: func(pid int, stop <-chan struct{}) {
		began := time.Now()
		var once sync.Once
		profile := func(v int) {
			if dir != "" && v >= sc.calls*98/100 {
				once.Do(func() {
					time.AfterFunc(3*time.Second, func() { _ = syscall.Kill(pid, syscall.SIGUSR1) })
				})
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if url := metrics(stop); url != "" {
				gauge = scrapeInflight(url, began, stop, profile)
			}
		}()
		samples = sampleMem(pid, began, stop)
		<-done
	}}
	if dir != "" {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, sc.calls))
		o.env = append(o.env, "MCPCHAOS_MEMPROFILE="+path, "MCPCHAOS_MEMPROFILE_AT=1000h")
		b.Logf("%s: memory profile on the plateau: %s", name, path)
	}
	r := runScenario(b, scenario, o)
	return r, samples, gauge
}

// report reports an open-call run's memory per call in flight and whether
// every call was ok.
func (sc openScale) report(b *testing.B, name string, r runResult, samples []memSample, gauge []gaugeSample) {
	b.Helper()
	base, peak, ok := gaugeBaseAndPeak(samples, gauge)
	if !ok {
		b.Fatalf("%s: no usable samples (%d taken, %d gauge readings)", name, len(samples), len(gauge))
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
	b.ReportMetric(s.num("progress.notifications")/(max(s.num("calls.ok"), 1)*float64(sc.steps)), "progress-received/expected")
	b.ReportMetric(s.num("latency_ms.call.p50")/1000, "p50-call-s")
	b.Logf("%s: %d calls at %d/s for %d s, %d steps of 1 s; http_version %v; before the load %d KiB (at %v); at the peak %d calls on the server, %d fds, %d KiB (at %v)",
		name, sc.calls, sc.rate, sc.rampS, sc.steps, s.m["http_version"], samples[base].rssKiB, samples[base].at.Round(time.Millisecond),
		inflight, at.fds, at.rssKiB, at.at.Round(time.Millisecond))
	verdict(b, perCall < 16<<10, "%s: %.0f B of RSS per in-flight call (aim < 16 KiB)", name, perCall)
	verdict(b, inflight >= sc.calls*99/100, "%s: %d calls in flight at the peak (want %d)", name, inflight, sc.calls)
	verdict(b, s.num("calls.ok") >= float64(sc.calls), "%s: %v of %d calls ok", name, s.num("calls.ok"), sc.calls)
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
