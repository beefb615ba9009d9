package report

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// soakRecord is call i of a run at rate calls/s: the mix of a soak
// (slow_task with progress, echo, some cancelled or cut), latencies spread
// so that nearly every one falls in its own HDR bucket.
func soakRecord(rng *rand.Rand, i, rate int) *results.Record {
	r := &results.Record{Type: results.TypeCall, Seq: uint64(i), ID: int64(i + 1), Tool: "echo",
		Scheduled: start().Add(time.Duration(i) * time.Second / time.Duration(rate)), SentUs: 100 + rng.Int64N(400)}
	switch x := rng.IntN(10); {
	case x < 4:
		r.Outcome, r.ResponseUs = results.OK, 500+rng.Int64N(20_000)
	case x < 8:
		r.Tool, r.Outcome = "slow_task", results.OK
		r.ResponseUs = 500_000 + rng.Int64N(50_000)
		r.FirstProgUs = 100_000 + rng.Int64N(5_000)
		r.Progress = &results.Progress{Count: 5, Last: 5, Total: 5, MaxGapUs: 100_000 + rng.Int64N(5_000)}
	case x < 9:
		r.Tool, r.Outcome, r.CancelUs, r.EndUs = "slow_task", results.Cancelled, 200_000+rng.Int64N(100_000), 300_000
		r.CancelReason = results.FaultStop("cancel")
		r.Faults = []results.Fault{{Kind: "cancel", ScheduledUs: r.CancelUs, ActualUs: r.CancelUs + 300, ErrorUs: 300}}
	default:
		r.Tool, r.Outcome, r.EndUs = "slow_task", results.Disconnected, 250_000
		r.CancelReason = results.FaultStop("disconnect")
		r.Faults = []results.Fault{{Kind: "disconnect", ScheduledUs: 200_000, ActualUs: 200_400, ErrorUs: 400}}
	}
	return r
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkAggregatorSoak feeds an Aggregator an hour of a 300 calls/s
// soak (virtual time: no waiting) and reports how its live heap grows
// from 5 minutes to 60: bytes per second of run, and the growth as a share
// of the heap at 5 minutes. With keep=false (run without --html and
// --hlog) it keeps no per-second histograms.
//
//	go test -run '^$' -bench AggregatorSoak -benchtime=1x ./report/
func BenchmarkAggregatorSoak(b *testing.B) {
	for _, keep := range []bool{true, false} {
		name := "seconds"
		if !keep {
			name = "no-seconds"
		}
		b.Run(name, func(b *testing.B) {
			const rate = 300
			for range b.N {
				rng := rand.New(rand.NewPCG(1, 2))
				before := heapInUse()
				a := NewAggregator(Rules{Stall: 2 * time.Second, ProgressGrace: 100 * time.Millisecond, FloodHz: 50})
				a.KeepSeconds(keep)
				var at5 uint64
				for i := range 3600 * rate {
					if i == 300*rate {
						at5 = heapInUse() - before
					}
					a.Add(soakRecord(rng, i, rate))
				}
				at60 := heapInUse() - before
				b.ReportMetric(float64(at5)/(1<<20), "MiB@5min")
				b.ReportMetric(float64(at60)/(1<<20), "MiB@60min")
				b.ReportMetric(float64(at60-at5)/3300, "B/s")
				runtime.KeepAlive(a)
			}
		})
	}
}

// TestKeepSecondsSameSummary: an Aggregator that keeps no per-second data
// builds the very summary of one that does, and has no seconds.
func TestKeepSecondsSameSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keep, drop := NewAggregator(Rules{Stall: time.Second}), NewAggregator(Rules{Stall: time.Second})
	drop.KeepSeconds(false)
	for i := range 3000 {
		r := soakRecord(rng, i, 300)
		keep.Add(r)
		drop.Add(r)
	}
	var a, b bytes.Buffer
	if err := keep.Summary(Meta{Scenario: "s"}).JSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := drop.Summary(Meta{Scenario: "s"}).JSON(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("summaries differ:\n%s\n---\n%s", a.String(), b.String())
	}
	if len(keep.Seconds()) == 0 || drop.Seconds() != nil {
		t.Errorf("seconds: kept %d, dropped %d; want some, none", len(keep.Seconds()), len(drop.Seconds()))
	}
}
