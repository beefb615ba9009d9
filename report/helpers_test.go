package report

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// start is the fixed start of every test run.
func start() time.Time { return time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC) }

// ms is microseconds for n milliseconds.
func ms(n float64) int64 { return int64(n * 1000) }

// opt changes a test record.
type opt func(*results.Record)

// call builds a record scheduled at offset at from start(), sent 100 µs
// later, with an outcome; ok-like outcomes get a response at respMs.
func call(at time.Duration, outcome string, opts ...opt) *results.Record {
	r := &results.Record{Type: results.TypeCall, Tool: "slow_task", Scheduled: start().Add(at), Outcome: outcome}
	if outcome != results.Dropped {
		r.SentUs = 100
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

func resp(msec float64) opt {
	return func(r *results.Record) { r.ResponseUs, r.EndUs = ms(msec), ms(msec) }
}

func cancelAt(msec float64) opt {
	return func(r *results.Record) { r.CancelUs, r.EndUs = ms(msec), ms(msec) }
}

func violation(name string, n int) opt {
	return func(r *results.Record) { r.Violations.Add(name, n) }
}

func progress(p results.Progress) opt {
	return func(r *results.Record) { r.Progress = &p }
}

func fault(kind string, errUs int64) opt {
	return func(r *results.Record) {
		r.Faults = append(r.Faults, results.Fault{Kind: kind, ScheduledUs: 1000, ActualUs: 1000 + errUs, ErrorUs: errUs})
	}
}

func throttle(kind string, retryAfterMs int64) opt {
	return func(r *results.Record) {
		r.ThrottleKind = kind
		if retryAfterMs > 0 {
			r.RetryAfterMs = &retryAfterMs
		}
	}
}

func timeout(deadlineMs, errUs int64) opt {
	return func(r *results.Record) {
		r.DeadlineUs, r.TimeoutErrUs = ms(float64(deadlineMs)), errUs
		r.CancelUs, r.EndUs = ms(float64(deadlineMs))+errUs, ms(float64(deadlineMs))+errUs
	}
}

func policies(kv ...string) opt {
	return func(r *results.Record) {
		r.Policies = make(map[string]string)
		for i := 0; i+1 < len(kv); i += 2 {
			r.Policies[kv[i]] = kv[i+1]
		}
	}
}

func with(f func(*results.Record)) opt { return f }

// aggregate feeds records to a fresh Aggregator with the test rules.
func aggregate(recs ...*results.Record) *Aggregator {
	a := NewAggregator(testRules())
	for _, r := range recs {
		a.Add(r)
	}
	return a
}

func testRules() Rules {
	return Rules{ProgressGrace: 500 * time.Millisecond, Stall: 5 * time.Second, FloodHz: 100}
}

func testMeta(era string) Meta {
	return Meta{Scenario: "golden", Era: era, Transport: "http", Target: "http://127.0.0.1:8080/mcp",
		Server: "mcpchaos-target 0.1.0", Seed: 42, Started: start(), Duration: 4 * time.Second}
}

// goldenRecords is a fixed run of 4 s that exercises every section.
func goldenRecords() []*results.Record {
	d := func(n int) time.Duration { return time.Duration(n) * 100 * time.Millisecond }
	code := int64(-32042)
	recs := []*results.Record{
		call(d(0), results.OK, resp(12.5)),
		call(d(1), results.OK, resp(20)),
		call(d(2), results.OK, resp(35.2), with(func(r *results.Record) { r.FirstProgUs = ms(5) }),
			progress(results.Progress{Count: 4, Last: 4, Total: 4, MaxGapUs: ms(9.5), MaxRateHz: 4})),
		call(d(3), results.OK, resp(48)),
		call(d(4), results.ToolError, resp(8)),
		call(d(5), results.RPCError, resp(3), with(func(r *results.Record) {
			r.Code, r.Message = &code, "job 3f2a9b1c4d failed after 250ms"
		}), violation("reserved_code", 1)),
		call(d(6), results.Throttled, resp(1.5), throttle("http_429", 1000)),
		call(d(7), results.Throttled, resp(1.2), throttle("http_429", 2000)),
		call(d(8), results.Throttled, resp(2), throttle("rpc_code", 0)),
		call(d(9), results.HTTPError, resp(4), with(func(r *results.Record) { r.Status = 500 })),
		call(d(10), results.TimeoutIdle, timeout(1000, 850), policies("reset_only", "killed", "cap_30s", "killed")),
		call(d(11), results.TimeoutCap, timeout(2000, 1200), with(func(r *results.Record) {
			r.CapWithProgress, r.FirstProgUs = true, ms(100)
		}), progress(results.Progress{Count: 250, Last: 250, MaxGapUs: ms(120), MaxRateHz: 150, Flood: true}),
			policies("reset_only", "waited_forever", "cap_30s", "killed")),
		call(d(12), results.Cancelled, cancelAt(300), fault("cancel", 180), with(func(r *results.Record) {
			r.LateResponses, r.LeftoverUs = 1, ms(900)
		})),
		call(d(13), results.Cancelled, cancelAt(450), fault("cancel", -250), violation("after_cancel", 2),
			with(func(r *results.Record) { r.LateProgress = 2 })),
		call(d(14), results.Disconnected, fault("disconnect", 75), with(func(r *results.Record) { r.EndUs = ms(700) })),
		call(d(15), results.TransportError, with(func(r *results.Record) {
			r.Error, r.EndUs = "read tcp 127.0.0.1:41234->127.0.0.1:8080: connection reset by peer", ms(2)
		})),
		call(d(16), results.ProtocolError, resp(6), violation("unknown_result_type", 1)),
		call(d(17), results.Dropped),
		call(d(18), results.OK, resp(15), with(func(r *results.Record) { r.Retry, r.Of = "reissue", 14 })),
		call(d(19), results.OK, resp(17), with(func(r *results.Record) { r.Retry, r.Of = "throttled", 6 })),
		call(d(20), results.OK, resp(60), with(func(r *results.Record) { r.FirstProgUs = ms(20) }),
			progress(results.Progress{Count: 3, Last: 2, Total: 5, MaxGapUs: ms(6200), MaxRateHz: 2, Stalled: true, Incomplete: true}),
			violation("non_monotonic", 1), violation("after_response", 1)),
	}
	for i := 21; i < 40; i++ {
		recs = append(recs, call(d(i), results.OK, resp(10+float64(i)), with(func(r *results.Record) { r.Tool = "echo" })))
	}
	return recs
}

func goldenConn() client.Stats { return client.Stats{NotJSONRPC: 2, UnknownTokens: 1, Stale: 3} }

func goldenOrphans() Orphans {
	return Orphans{Orphaned: 1, ByProbe: map[string]float64{"mcpchaos_target_inflight": 1}, LeftoverCPUSeconds: 0.12,
		DrainMs: 1500, LeakedCallSeconds: 3.5, QuietWindowMs: 2000}
}

func goldenChecks() []Check {
	return []Check{
		{Raw: "cancellation.orphaned == 0", Key: "cancellation.orphaned", Op: "==", Value: 0, Line: 30, Column: 5},
		{Raw: "p99(call) < 3s", Hist: "call", Percentile: 99, Op: "<", Value: 3000, Unit: "ms", Line: 31, Column: 5},
		{Raw: "calls.ok >= 25", Key: "calls.ok", Op: ">=", Value: 25, Line: 32, Column: 5},
		{Raw: "throttling.retry_after_s.max <= 2s", Key: "throttling.retry_after_s.max", Op: "<=", Value: 2000, Unit: "ms", Line: 33, Column: 5},
		{Raw: "p50(first_progress) < 1ms", Hist: "first_progress", Percentile: 50, Op: "<", Value: 1, Unit: "ms", Line: 34, Column: 5},
	}
}

// goldenSummary is the summary of the golden run, checks evaluated.
func goldenSummary() *Summary {
	a := aggregate(goldenRecords()...)
	a.SetConnection(goldenConn())
	a.SetOrphans(goldenOrphans())
	s := a.Summary(testMeta("2026-07-28"))
	s.Evaluate(goldenChecks(), true)
	return s
}
