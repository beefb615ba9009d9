package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkSoak is a long run of mixed calls with cancels and disconnects
// against `mcpchaos serve` (issue 28 item 6: a long run holds flat). A
// sampler reads the client's VmRSS, threads and open descriptors every
// 10 s; it reports them at 1 minute, at 5 minutes and at the end (each the
// median of the readings within 30 s of it; the end is the load's last
// minute), and the RSS growth from 5 minutes to the end. MCPCHAOS_SOAK sets the load's
// length (default 6m), MCPCHAOS_SOAK_RATE its rate (default 300/s),
// MCPCHAOS_BENCH_MEMPROFILE a directory for heap profiles (soakProfiles).
// The -timeout must cover the load and 15 minutes more:
//
//	MCPCHAOS_SOAK=10m go test -run '^$' -bench 'Soak$' -benchtime=1x -timeout 30m ./bench/
//	MCPCHAOS_SOAK=60m go test -run '^$' -bench 'Soak$' -benchtime=1x -timeout 75m ./bench/
func BenchmarkSoak(b *testing.B) {
	setup(b)
	dur := 6 * time.Minute
	if v := os.Getenv("MCPCHAOS_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 2*time.Minute || d > 2*time.Hour {
			b.Fatalf("MCPCHAOS_SOAK=%q: want a duration from 2m to 2h", v)
		}
		dur = d
	}
	rate := 300
	if v := os.Getenv("MCPCHAOS_SOAK_RATE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 2000 {
			b.Fatalf("MCPCHAOS_SOAK_RATE=%q: want calls a second from 1 to 2000", v)
		}
		rate = n
	}
	srv := startServer(b)
	scenario := fmt.Sprintf(`name: soak
seed: 7
target: {http: {url: %q}}
load: {rate: %d/1s, duration: %s, max_in_flight: 3000}
timeouts: {idle: 2s, max: 5s}
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 5, step_ms: 100}, progress: true}
  - {tool: echo, weight: 2, arguments: {text: hello}}
faults:
  - {kind: cancel, probability: 0.2, tools: [slow_task], after: "uniform(50ms, 400ms)"}
  - {kind: disconnect, probability: 0.05, tools: [slow_task], after_progress: 2, mode: rst}
orphans: {grace: 1s}
`, srv.URL, rate, dur)
	for range b.N {
		before := machineNow()
		var samples []soakSample
		env, profile := soakProfiles(b, dur)
		r := runScenario(b, scenario, runOpts{limit: dur + 3*time.Minute, env: env, watch: func(pid int, stop <-chan struct{}) {
			if profile != nil {
				done := make(chan struct{})
				go func() { defer close(done); profile(pid, stop) }()
				defer func() { <-done }()
			}
			samples = sampleSoak(pid, 10*time.Second, stop)
		}})
		logRun(b, r)
		reportOthers(b, before, r.CPU()+srv.cpu)
		var lines []string
		for _, s := range samples {
			lines = append(lines, fmt.Sprintf("%4.0fs rss %6.1f MiB threads %3d fds %5d load %s",
				s.at.Seconds(), float64(s.rssKiB)/1024, s.threads, s.fds, s.load))
		}
		b.Logf("samples:\n%s", strings.Join(lines, "\n"))
		at1, at5, end := soakAt(samples, time.Minute), soakAt(samples, 5*time.Minute), soakLast(samples, dur)
		for _, x := range []struct {
			name string
			s    soakSample
		}{{"1min", at1}, {"5min", at5}, {"end", end}} {
			b.ReportMetric(float64(x.s.rssKiB)/1024, "rss-MiB@"+x.name)
			b.ReportMetric(float64(x.s.threads), "threads@"+x.name)
			b.ReportMetric(float64(x.s.fds), "fds@"+x.name)
		}
		if at5.rssKiB > 0 {
			growth := float64(end.rssKiB-at5.rssKiB) / float64(at5.rssKiB)
			b.ReportMetric(growth, "rss-growth-from-5min")
			verdict(b, growth <= 0.10, "RSS from 5 min to the end %+.1f%% (aim: within 10%%)", 100*growth)
		}
		b.ReportMetric(r.Summary.num("rate.achieved"), "achieved/s")
		b.ReportMetric(r.Summary.num("faults.cancel.timing_error_ms.p99"), "cancel-p99-ms")
		b.ReportMetric(r.Summary.num("faults.disconnect.timing_error_ms.p99"), "disconnect-p99-ms")
		b.ReportMetric(r.CPU().Seconds(), "client-cpu-s")
	}
}

// soakSample is one reading of the client process.
type soakSample struct {
	at           time.Duration
	rssKiB       int64
	threads, fds int
	load         string
}

// sampleSoak reads the process every every until stop is closed or the
// process is gone.
func sampleSoak(pid int, every time.Duration, stop <-chan struct{}) []soakSample {
	began := time.Now()
	var out []soakSample
	for {
		rss, err1 := vmRSS(pid)
		fds, err2 := countFds(pid)
		threads, err3 := procThreads(pid)
		if err1 != nil || err2 != nil || err3 != nil {
			return out
		}
		out = append(out, soakSample{at: time.Since(began), rssKiB: rss, threads: threads, fds: fds, load: machineNow().load})
		select {
		case <-stop:
			return out
		case <-time.After(every):
		}
	}
}

// soakAt returns the median reading (each figure's own median) of the
// samples within 30 s of at: one reading moves with the calls in flight
// at that instant (tens of MiB on a busy machine), a median much less.
// The zero sample when there is none.
func soakAt(s []soakSample, at time.Duration) soakSample {
	var rss, threads, fds []int64
	for _, x := range s {
		if x.at >= at-30*time.Second && x.at <= at+30*time.Second {
			rss, threads, fds = append(rss, x.rssKiB), append(threads, int64(x.threads)), append(fds, int64(x.fds))
		}
	}
	if len(rss) == 0 {
		return soakSample{}
	}
	return soakSample{at: at, rssKiB: median(rss), threads: int(median(threads)), fds: int(median(fds))}
}

// soakLast is soakAt for the last minute of the load (of length dur), not
// its drain.
func soakLast(s []soakSample, dur time.Duration) soakSample {
	return soakAt(s, dur-30*time.Second)
}

func median(v []int64) int64 {
	slices.Sort(v)
	return v[len(v)/2]
}

func procThreads(pid int) (int, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no Threads for %d", pid)
}
