package bench

import (
	"fmt"
	"testing"
)

// BenchmarkTimeoutEnforcement offers 1,000 calls/s for 10 s to a target
// whose calls never finish (`mcpchaos serve --endless`, progress every
// 50 ms) with timeouts {idle: 200ms, max: 200ms} (max may not be shorter
// than idle; progress keeps resetting idle): every call hits the cap
// while progress still flows. It reports the enforcement error (the time
// we cancelled − the deadline), latency_ms.timeout_error p99 and max from
// the summary. Target: p99 < 5 ms.
func BenchmarkTimeoutEnforcement(b *testing.B) {
	setup(b)
	const rate, seconds = 1000, 10
	srv := startServer(b, "--endless")
	scenario := fmt.Sprintf(`name: timeout-enforcement
seed: 1
protocol: 2026-07-28
target:
  http: {url: %q}
load: {rate: %d/1s, duration: %ds, max_in_flight: 10000}
timeouts: {idle: 200ms, max: 200ms}
calls:
  - {tool: slow_task, arguments: {steps: 1000, step_ms: 50}, progress: true}
orphans: {grace: 1s}
`, srv.URL, rate, seconds)
	for i := 0; i < b.N; i++ {
		r := timedRun(b, srv, scenario)
		s := r.Summary
		p99, worst := s.num("latency_ms.timeout_error.p99"), s.num("latency_ms.timeout_error.max")
		b.ReportMetric(p99, "p99-timeout-error-ms")
		b.ReportMetric(worst, "max-timeout-error-ms")
		b.ReportMetric(s.num("latency_ms.timeout_error.p50"), "p50-timeout-error-ms")
		b.ReportMetric(s.num("timeouts.cap"), "timeout-cap")
		b.ReportMetric(s.num("calls.total"), "calls")
		verdict(b, p99 < 5, "timeouts: enforcement error p99 %.3f ms, max %.3f ms over %v cap timeouts of %v calls (want p99 < 5 ms)",
			p99, worst, s.num("timeouts.cap"), s.num("calls.total"))
	}
}

// BenchmarkCancelTiming injects a cancel fault with probability 1 at a
// fixed 100 ms after the send into every call of a 1,000 calls/s, 10 s
// load of slow_task (10 steps of 100 ms): 1,000 cancels a second. It
// reports faults.cancel.timing_error_ms p99 and max (when the fault acted
// − when it was due). Target: p99 < 2 ms (< 1 ms with --realtime:
// MCPCHAOS_BENCH_REALTIME=1).
func BenchmarkCancelTiming(b *testing.B) { faultTiming(b, "cancel") }

// BenchmarkDisconnectTiming is BenchmarkCancelTiming with a disconnect
// fault (the call's connection closed) in place of the cancel.
func BenchmarkDisconnectTiming(b *testing.B) { faultTiming(b, "disconnect") }

// faultTiming offers 1,000 calls/s of slow_task for 10 s, each cut by a
// fault of kind 100 ms after its send, and reports the fault's timing
// error.
func faultTiming(b *testing.B, kind string) {
	setup(b)
	const rate, seconds = 1000, 10
	srv := startServer(b)
	scenario := fmt.Sprintf(`name: %s-timing
seed: 1
protocol: 2026-07-28
target:
  http: {url: %q}
load: {rate: %d/1s, duration: %ds, max_in_flight: 10000}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: %s, probability: 1, after: 100ms}
orphans: {grace: 1s}
`, kind, srv.URL, rate, seconds, kind)
	for i := 0; i < b.N; i++ {
		r := timedRun(b, srv, scenario)
		s := r.Summary
		key := "faults." + kind + ".timing_error_ms."
		p99, worst := s.num(key+"p99"), s.num(key+"max")
		b.ReportMetric(p99, "p99-"+kind+"-error-ms")
		b.ReportMetric(worst, "max-"+kind+"-error-ms")
		b.ReportMetric(s.num(key+"p50"), "p50-"+kind+"-error-ms")
		b.ReportMetric(s.num("faults."+kind+".injected"), "injected")
		b.ReportMetric(s.num("faults."+kind+".skipped"), "skipped")
		verdict(b, p99 < 2, "%s: timing error p99 %.3f ms, max %.3f ms over %v faults of %v calls (want p99 < 2 ms)",
			kind, p99, worst, s.num("faults."+kind+".injected"), s.num("calls.total"))
	}
}

// timedRun runs a scenario and reports the CPU figures beside it.
func timedRun(b *testing.B, srv *server, scenario string) runResult {
	b.Helper()
	before := machineNow()
	srvCPU0, _ := procCPU(srv.cmd.Process.Pid)
	r := runScenario(b, scenario, runOpts{})
	srvCPU1, _ := procCPU(srv.cmd.Process.Pid)
	logRun(b, r)
	reportOthers(b, before, r.CPU()+srvCPU1-srvCPU0)
	b.ReportMetric(r.CPU().Seconds(), "client-cpu-s")
	b.ReportMetric((srvCPU1 - srvCPU0).Seconds(), "server-cpu-s")
	return r
}
