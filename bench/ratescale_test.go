package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkRateScale offers echo calls at each rate of MCPCHAOS_RATES
// (calls per second, default "1000,5000,20000") for MCPCHAOS_RATE_SECONDS
// (default 10) from one `mcpchaos run`, against the built-in target over
// HTTP/1.1 keep-alive (`mcpchaos serve` in its own process, a fresh one
// for each rate) or, with MCPCHAOS_RATE_TRANSPORT=stdio, over stdio (one
// `mcpchaos serve --stdio` that the run starts). Each rate is a
// sub-benchmark of its own. It reports what a user sizing a run needs:
// the rate offered and achieved (ticks handed out and not dropped, per
// second of the load's own time, which stretches when the pacer falls
// behind), the rate at which the server started calls, calls ok, the
// client's CPU seconds per 1,000 calls sent, its peak RSS (VmHWM) and,
// when at least 500 calls were in flight at once, its RSS per call in
// flight; the server's CPU; the pacer's lateness; and what the summary
// says: its client-limit block, its Result line and the exit status. A
// rate the client keeps up with has achieved ≥ 99% of offered and no
// client limit; above that the summary must say that the client is the
// bottleneck, and never blame the server.
//
// With MCPCHAOS_RATE_SERVER=cheap the HTTP server is the cheap one
// (cheapserver_test.go), and with MCPCHAOS_BENCH_PIN=1 it runs on one
// core and the client on the other: the client's own saturation point.
//
//	go test -run '^$' -bench 'RateScale$' -benchtime=1x -timeout 30m ./bench/
//	MCPCHAOS_RATE_TRANSPORT=stdio go test -run '^$' -bench 'RateScale$' -benchtime=1x -timeout 30m ./bench/
//	MCPCHAOS_RATE_SERVER=cheap MCPCHAOS_BENCH_PIN=1 MCPCHAOS_RATES=2000,4000,8000 go test -run '^$' -bench 'RateScale$' -benchtime=1x -timeout 30m ./bench/
func BenchmarkRateScale(b *testing.B) {
	setup(b)
	rs := newRateScale(b)
	for _, rate := range rs.rates {
		b.Run(fmt.Sprintf("%s-%d", rs.transport, rate), func(b *testing.B) {
			for range b.N {
				rs.run(b, rate)
			}
		})
	}
}

// rateScale is BenchmarkRateScale's configuration, from the environment.
type rateScale struct {
	rates     []int
	seconds   int
	transport string // "http" or "stdio"
	cheap     bool   // the cheap HTTP server instead of the built-in target
}

// Bounds on the environment: every run is bounded in count and time
// (at most 50,000 calls/s for 60 s).
const maxScaleRate, maxScaleSeconds = 50000, 60

func newRateScale(b *testing.B) rateScale {
	rs := rateScale{seconds: 10, transport: "http"}
	list := "1000,5000,20000"
	if v := os.Getenv("MCPCHAOS_RATES"); v != "" {
		list = v
	}
	for f := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxScaleRate {
			b.Fatalf("MCPCHAOS_RATES=%q: %q is not a rate from 1 to %d calls/s", list, f, maxScaleRate)
		}
		rs.rates = append(rs.rates, n)
	}
	if v := os.Getenv("MCPCHAOS_RATE_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxScaleSeconds {
			b.Fatalf("MCPCHAOS_RATE_SECONDS=%q: want 1 to %d", v, maxScaleSeconds)
		}
		rs.seconds = n
	}
	switch v := os.Getenv("MCPCHAOS_RATE_TRANSPORT"); v {
	case "", "http":
	case "stdio":
		rs.transport = v
	default:
		b.Fatalf("MCPCHAOS_RATE_TRANSPORT=%q: want http or stdio", v)
	}
	switch v := os.Getenv("MCPCHAOS_RATE_SERVER"); v {
	case "", "builtin":
	case "cheap":
		if rs.transport != "http" {
			b.Fatalf("MCPCHAOS_RATE_SERVER=cheap serves HTTP only, not MCPCHAOS_RATE_TRANSPORT=%s", rs.transport)
		}
		rs.cheap = true
	default:
		b.Fatalf("MCPCHAOS_RATE_SERVER=%q: want builtin or cheap", v)
	}
	return rs
}

// rateTarget is where one rate's calls go: the scenario's target block,
// the server's in-flight gauge (metrics waits for its URL until stop) and
// the server's CPU time over the run (given what the client's sampler
// read of its children).
type rateTarget struct {
	yaml      string
	metrics   func(stop <-chan struct{}) string
	serverCPU func(w *rateWatch) time.Duration
}

// target starts the HTTP server (stopped when the sub-benchmark ends) or
// names the stdio one the run starts.
func (rs rateScale) target(b *testing.B) rateTarget {
	if rs.transport == "stdio" {
		errFile := filepath.Join(b.TempDir(), "server.stderr")
		return rateTarget{
			// sh execs the server (the run's child) with its stderr in errFile,
			// where it says on which loopback port its metrics are.
			yaml: fmt.Sprintf(`stdio: {command: [sh, -c, 'exec "$0" serve --stdio --metrics-listen 127.0.0.1:0 2>"$1"', %q, %q]}`,
				bin, errFile),
			metrics:   func(stop <-chan struct{}) string { return waitMetricsURL(errFile, stop) },
			serverCPU: func(w *rateWatch) time.Duration { return w.childrenCPU() },
		}
	}
	var srv *server
	if rs.cheap {
		srv = startCheap(b) // no metrics: server-got/s is not reported
	} else {
		srv = startServer(b)
	}
	cpu0, _ := procCPU(srv.cmd.Process.Pid)
	return rateTarget{
		yaml:    fmt.Sprintf("http: {url: %q}", srv.URL),
		metrics: func(<-chan struct{}) string { return srv.MetricsURL },
		serverCPU: func(*rateWatch) time.Duration {
			cpu1, _ := procCPU(srv.cmd.Process.Pid)
			return cpu1 - cpu0
		},
	}
}

// scenario is one rate's run: echo calls at rate for the configured time,
// with the default max_in_flight written out.
func (rs rateScale) scenario(t rateTarget, rate int) string {
	return fmt.Sprintf(`name: rate-scale-%s-%d
seed: 1
protocol: 2026-07-28
target:
  %s
load: {rate: %d/1s, duration: %ds, max_in_flight: 10000}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: echo, arguments: {text: hi}}
`, rs.transport, rate, t.yaml, rate, rs.seconds)
}

// run runs one rate and reports its row of the table.
func (rs rateScale) run(b *testing.B, rate int) {
	t := rs.target(b)
	w := &rateWatch{}
	before := machineNow()
	r := runScenario(b, rs.scenario(t, rate), runOpts{limit: time.Duration(rs.seconds)*time.Second + 3*time.Minute,
		watch: func(pid int, stop <-chan struct{}) { w.watch(pid, stop, t.metrics) }})
	srvCPU := t.serverCPU(w)
	// Over stdio the server is the run's child: getrusage counts its CPU
	// in the run's.
	clientCPU, ours := r.CPU(), r.CPU()+srvCPU
	if rs.transport == "stdio" {
		clientCPU, ours = r.CPU()-srvCPU, r.CPU()
	}
	logRun(b, r)
	reportOthers(b, before, ours)
	rs.report(b, rate, r, w, clientCPU, srvCPU)
}

// report reports one rate's figures and logs what the summary said.
func (rs rateScale) report(b *testing.B, rate int, r runResult, w *rateWatch, clientCPU, srvCPU time.Duration) {
	b.Helper()
	s := r.Summary
	sent := s.num("calls.total") - s.num("calls.dropped") - s.num("calls.reissued") - s.num("calls.retried")
	achieved := s.num("rate.achieved")
	limits, _ := s.m["client_limits"].(map[string]any)
	hit := limits["hit"] == true
	b.ReportMetric(float64(rate), "offered/s")
	b.ReportMetric(achieved, "achieved/s")
	b.ReportMetric(achieved/float64(rate), "achieved/offered")
	b.ReportMetric(s.num("duration_s"), "load-s")
	b.ReportMetric(s.num("calls.ok"), "ok")
	b.ReportMetric(s.num("calls.dropped"), "dropped")
	b.ReportMetric(clientCPU.Seconds()*1000/max(sent, 1), "client-cpu-s/1k")
	b.ReportMetric(clientCPU.Seconds(), "client-cpu-s")
	b.ReportMetric(srvCPU.Seconds(), "server-cpu-s")
	hwm := w.hwmKiB()
	if rs.transport != "stdio" { // getrusage's peak is the client's alone only without a child
		hwm = max(hwm, r.MaxRSSKiB)
	}
	b.ReportMetric(float64(hwm)/1024, "client-peak-rss-MiB")
	b.ReportMetric(s.num("latency_ms.call.p50"), "p50-call-ms")
	b.ReportMetric(s.num("latency_ms.call.p99"), "p99-call-ms")
	b.ReportMetric(s.num("latency_ms.service.p99"), "p99-service-ms")
	b.ReportMetric(s.num("client_limits.pacer_late"), "pacer-late")
	b.ReportMetric(s.num("client_limits.pacer_max_lag_ms"), "pacer-max-lag-ms")
	if hit {
		b.ReportMetric(1, "client-limit")
	} else {
		b.ReportMetric(0, "client-limit")
	}
	b.ReportMetric(float64(r.Exit), "exit")
	b.ReportMetric(float64(w.gaugeMax()), "server-peak-inflight")
	if got, ok := w.serverGot(rs.seconds); ok {
		b.ReportMetric(got, "server-got/s")
		b.ReportMetric(got/float64(rate), "server-got/offered")
	}
	if peak, base, ok := w.inflight(rs.transport); ok {
		b.ReportMetric(float64(peak), "peak-inflight")
		b.ReportMetric(float64((hwm-base)*1024)/float64(peak), "B/inflight")
	}
	b.Logf("rate-scale %s %d/s: %v sent in %.3f s of load, %v ok; client %v CPU, %d KiB peak RSS; server %v CPU",
		rs.transport, rate, sent, s.num("duration_s"), s.num("calls.ok"), clientCPU.Round(10*time.Millisecond), hwm, srvCPU.Round(10*time.Millisecond))
	for _, l := range summaryLines(r.Stdout, "Client limit", "Result") {
		b.Logf("rate-scale summary: %s", l)
	}
	b.Logf("rate-scale exit status %d; outcomes %v", r.Exit, outcomes(s))
	kept := achieved >= 0.99*float64(rate) && !hit
	verdict(b, kept || hit, "rate-scale %d/s: kept up (achieved %.1f/s of %d/s, no client limit: %v), or the summary names the client as the limit (%v)",
		rate, achieved, rate, kept, hit)
}

// summaryLines returns the text summary's lines of the blocks labelled
// with one of labels, with their continuation lines (which begin with the
// label column's blanks).
func summaryLines(text string, labels ...string) []string {
	var out []string
	in := false
	for l := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			in = false
		case l[0] == ' ':
			if in {
				out = append(out, strings.TrimSpace(l))
			}
		default:
			in = false
			for _, want := range labels {
				if strings.HasPrefix(l, want) {
					in = true
					out = append(out, strings.TrimSpace(l))
				}
			}
		}
	}
	return out
}

// outcomes returns the summary's non-zero call counts by outcome.
func outcomes(s summary) map[string]float64 {
	out := map[string]float64{}
	calls, _ := s.m["calls"].(map[string]any)
	for k, v := range calls {
		if f, ok := v.(float64); ok && f != 0 && k != "total" {
			out[k] = f
		}
	}
	return out
}
