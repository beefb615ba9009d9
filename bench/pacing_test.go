package bench

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkPacing2000 offers 2,000 echo calls/s for 10 s (20,000 calls)
// over HTTP to `mcpchaos serve`, driven by `mcpchaos run`, and reports how
// much of it went out and how late: delivered (calls sent / 20,000; must
// be ≥ 0.99), dropped (must be 0), the achieved rate, the p99 call latency
// (response − scheduled, so a pacer that falls behind shows here) and the
// p99 send lag (sent − scheduled, from the results file).
func BenchmarkPacing2000(b *testing.B) {
	setup(b)
	const rate, seconds = 2000, 10
	const want = rate * seconds
	srv := startServer(b)
	scenario := fmt.Sprintf(`name: pacing-2000
seed: 1
protocol: 2026-07-28
target:
  http: {url: %q}
load: {rate: %d/1s, duration: %ds, max_in_flight: 10000}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: echo, arguments: {text: hi}}
`, srv.URL, rate, seconds)
	for i := 0; i < b.N; i++ {
		before := machineNow()
		srvCPU0, _ := procCPU(srv.cmd.Process.Pid)
		r := runScenario(b, scenario, runOpts{results: true})
		srvCPU1, _ := procCPU(srv.cmd.Process.Pid)
		logRun(b, r)
		reportOthers(b, before, r.CPU()+srvCPU1-srvCPU0)
		b.ReportMetric((srvCPU1 - srvCPU0).Seconds(), "server-cpu-s")
		s := r.Summary
		var sent int
		var lags []int64
		readResults(b, r, func(rec map[string]any) {
			if rec["type"] != "call" {
				return
			}
			if id, _ := rec["id"].(float64); id != 0 {
				sent++
				lag, _ := rec["sent_us"].(float64)
				lags = append(lags, int64(lag))
			}
		})
		slices.Sort(lags)
		b.ReportMetric(float64(sent)/want, "delivered")
		b.ReportMetric(s.num("calls.dropped"), "dropped")
		b.ReportMetric(s.num("calls.ok"), "ok")
		b.ReportMetric(s.num("rate.achieved"), "achieved/s")
		b.ReportMetric(s.num("latency_ms.call.p99"), "p99-call-ms")
		b.ReportMetric(pct(lags, 99)/1000, "p99-send-lag-ms")
		b.ReportMetric(r.CPU().Seconds(), "client-cpu-s")
		d := s.num("calls.dropped")
		verdict(b, d == 0 && float64(sent) >= 0.99*want, "pacing: %d of %d calls sent, %v dropped (want ≥ 99%% sent and 0 dropped)", sent, want, d)
		if ok := s.num("calls.ok"); ok != float64(s.num("calls.total")) {
			b.Logf("pacing: only %v of %v calls ok:\n%s", ok, s.num("calls.total"), r.Stdout)
		}
	}
}

// pct returns the p-th percentile (nearest rank) of sorted values.
func pct(sorted []int64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	return float64(sorted[min(max(i, 0), len(sorted)-1)])
}
