package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// BenchmarkReport100k and BenchmarkReport1M time `mcpchaos report` (the
// real binary, in its own process) over a generated results file of 100,000
// and 1,000,000 calls, and report its wall time, CPU seconds and peak RSS
// (getrusage of the child). The aim (issue 28): 1,000,000 calls in under
// 1 s, memory independent of the number of calls (under 64 MiB).
func BenchmarkReport100k(b *testing.B) { benchReport(b, 100_000) }
func BenchmarkReport1M(b *testing.B)   { benchReport(b, 1_000_000) }

func benchReport(b *testing.B, n int) {
	setup(b)
	path := filepath.Join(b.TempDir(), "r.jsonl")
	genResults(b, path, n)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("results file: %d calls, %.0f MiB", n, float64(st.Size())/(1<<20))
	for i := 0; i < b.N; i++ {
		before := machineNow()
		cmd := exec.Command(bin, "report", "--format", "json", "-o", os.DevNull, path)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		// Exit 1 is a failed check of the generated run, not an error.
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			b.Fatalf("report: %v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		rss := float64(ru.Maxrss) / 1024 // KiB on Linux
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(rss, "peak-rss-MiB")
		reportOthers(b, before, cpu)
		if n >= 1_000_000 {
			verdict(b, wall < time.Second && rss < 64, "1M calls: %v wall, %v CPU, %.0f MiB peak RSS (aim < 1 s, < 64 MiB)", wall.Round(time.Millisecond), cpu.Round(time.Millisecond), rss)
		}
	}
}

// genResults writes a results file of n calls like those of a real run: a
// mix of tools and outcomes, progress on most, a cancel fault on some,
// a few error messages, one call scheduled every millisecond.
func genResults(b *testing.B, path string, n int) {
	b.Helper()
	genShaped(b, path, shape{calls: n, step: 1, every: time.Millisecond, sampleEvery: 1000})
}

// shape is the schedule of a generated results file: calls calls, seqs
// first, first+step, ..., seq s scheduled s·every after the start, a probe
// sample every sampleEvery calls; shard, if set, goes into the header.
type shape struct {
	calls       int
	first, step uint64
	every       time.Duration
	sampleEvery int
	shard       *results.Shard
	// shared: the shard of a server every shard shares, as the engine
	// writes it: a sample every sampleEvery calls at the shard's own
	// instants (offset by its first seq, in ms), and a trailer whose run
	// inputs mark the probes as the shared server's.
	shared bool
}

// genShaped writes a results file of the given shape (see genResults).
func genShaped(b *testing.B, path string, sh shape) {
	b.Helper()
	w, err := results.Create(path, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	h := results.Header{Type: results.TypeHeader, Tool: "mcpchaos", Version: "bench", Scenario: "generated", Seed: 1,
		Era: "2026-07-28", Transport: "http", Target: "http://127.0.0.1:1/mcp", Started: t0, SchemaVersion: results.SchemaVersion,
		Evaluation: &results.Evaluation{Checks: []results.CheckSpec{{Check: "p99(call) < 1s"}, {Check: "cancellation.orphaned == 0"}},
			FailOnViolation: true, Progress: results.ProgressRules{GraceMs: 100, StallMs: 2000, FloodHz: 50}}, Shard: sh.shard}
	if err := w.Write(&h); err != nil {
		b.Fatal(err)
	}
	for i := range sh.calls {
		seq := sh.first + uint64(i)*sh.step
		r := results.Record{Type: results.TypeCall, ID: int64(i + 1), Seq: seq, Tool: "slow_task",
			Scheduled: t0.Add(time.Duration(seq) * sh.every), SentUs: 40 + int64(i%50), HeadersUs: 300,
			FirstProgUs: 1000 + int64(i%777), ResponseUs: 5000 + int64(i*7919%99991), Outcome: results.OK, Status: 200,
			Progress: &results.Progress{Count: 5, Values: []float64{1, 2, 3, 4, 5}, Last: 5, Total: 5, MaxGapUs: 900 + int64(i%333), MaxRateHz: 5},
			Policies: map[string]string{"reset_only": "ok", "cap": "ok", "fixed_30s": "ok"}}
		r.EndUs = r.ResponseUs + 1
		switch {
		case i%4 == 0:
			r.Tool, r.Progress, r.FirstProgUs = "echo", nil, 0
		case i%10 == 1:
			r.Outcome, r.ResponseUs, r.CancelUs, r.CancelReason = results.Cancelled, 0, 2000, results.FaultStop("cancel")
			r.Faults = []results.Fault{{Kind: "cancel", ScheduledUs: 2000, ActualUs: 2000 + int64(i%900), ErrorUs: int64(i % 900)}}
		case i%97 == 3:
			code := int64(-32603)
			r.Outcome, r.Code, r.Message = results.RPCError, &code, fmt.Sprintf("internal error in shard %d", i%7)
		}
		if err := w.Write(&r); err != nil {
			b.Fatal(err)
		}
		if i%sh.sampleEvery == sh.sampleEvery-1 {
			s := results.Sample{Type: results.TypeSample, T: r.Scheduled, ClientInFlight: 50, OfferedRate: float64(sh.sampleEvery), Probes: map[string]float64{"inflight": 48}}
			if sh.shared {
				s.T = s.T.Add(time.Duration(sh.first) * time.Millisecond)
				s.ClientInFlight = 45 + i%11
				s.Probes["inflight"] = float64(sh.step) * 50
			}
			if err := w.Write(&s); err != nil {
				b.Fatal(err)
			}
		}
	}
	if sh.shared {
		sharedTrailer(b, w, t0.Add(time.Duration(sh.first+uint64(sh.calls)*sh.step)*sh.every))
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// sharedTrailer writes the trailer of a shard of a shared server: its
// probe, inflight, read the server (baseline 0) after every shard's calls,
// and measures leaked work, which the merge computes from every shard's
// samples.
func sharedTrailer(b *testing.B, w *results.Writer, ended time.Time) {
	b.Helper()
	in := report.RunInputs{Orphans: report.Orphans{Drained: true, ByProbe: map[string]float64{"inflight": 0},
		ProbeErrors: []string{report.SharedLeakNote}, Counting: 1,
		Shared: &report.SharedServer{AfterAll: true, LeakProbe: "inflight", ServerProbes: []string{"inflight"}}}}
	raw, err := report.EncodeInputs(in)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(&results.Trailer{Type: results.TypeTrailer, Ended: ended, Run: raw}); err != nil {
		b.Fatal(err)
	}
}
