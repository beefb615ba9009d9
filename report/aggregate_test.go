package report

import (
	"maps"
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

func TestOutcomeCounts(t *testing.T) {
	for _, outcome := range results.Outcomes {
		t.Run(outcome, func(t *testing.T) {
			s := aggregate(call(0, outcome), call(time.Millisecond, results.OK)).Summary(testMeta("2026-07-28"))
			want := 1
			if outcome == results.OK {
				want = 2
			}
			if got := *s.Calls.ByOutcome(outcome); got != want {
				t.Errorf("calls.%s = %d, want %d", outcome, got, want)
			}
			if s.Calls.Total != 2 {
				t.Errorf("calls.total = %d, want 2", s.Calls.Total)
			}
			sum := 0
			for _, o := range results.Outcomes {
				sum += *s.Calls.ByOutcome(o)
			}
			if sum != 2 {
				t.Errorf("outcomes sum to %d, want 2", sum)
			}
		})
	}
}

func TestRetryCounts(t *testing.T) {
	tests := []struct {
		name              string
		retry             string
		reissued, retried int
		throttlingRetries int
	}{
		{"reissue", "reissue", 1, 0, 0},
		{"throttled retry", "throttled", 0, 1, 1},
		{"first attempt", "", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(0, results.OK, resp(5), with(func(r *results.Record) { r.Retry = tt.retry }))
			s := aggregate(r).Summary(testMeta("2026-07-28"))
			if s.Calls.Reissued != tt.reissued || s.Calls.Retried != tt.retried || s.Throttling.Retries != tt.throttlingRetries {
				t.Errorf("reissued %d retried %d retries %d, want %d %d %d", s.Calls.Reissued, s.Calls.Retried,
					s.Throttling.Retries, tt.reissued, tt.retried, tt.throttlingRetries)
			}
		})
	}
}

func TestRates(t *testing.T) {
	recs := []*results.Record{
		call(0, results.OK, resp(5)), call(time.Second, results.OK, resp(5)),
		call(2*time.Second, results.Throttled, resp(1)), call(3*time.Second, results.Dropped),
	}
	s := aggregate(recs...).Summary(testMeta("2026-07-28")) // 4 s
	if s.Rate.Offered != 1 || s.Rate.Achieved != 0.75 || s.Rate.OK != 0.5 {
		t.Errorf("rate = %+v, want offered 1, achieved 0.75, ok 0.5", s.Rate)
	}
	m := testMeta("2026-07-28")
	m.Duration = 0 // from the first scheduled call to the end of the last
	if got := aggregate(recs[:3]...).Summary(m).DurationS; got != 2.001 {
		t.Errorf("duration_s without a duration = %v, want 2.001 (0 s to 2 s + 1 ms)", got)
	}
}

func TestHistograms(t *testing.T) {
	tests := []struct {
		name  string
		rec   *results.Record
		hist  string
		count int64
		maxMs float64
	}{
		{"call is response minus scheduled", call(0, results.OK, resp(250)), "call", 1, 250},
		{"call needs a response", call(0, results.TransportError), "call", 0, 0},
		{"call of a late-sent call", call(0, results.OK, resp(900), with(func(r *results.Record) { r.SentUs = ms(600) })), "call", 1, 900},
		{"service is response minus sent", call(0, results.OK, resp(900), with(func(r *results.Record) { r.SentUs = ms(600) })), "service", 1, 300},
		{"first progress minus sent", call(0, results.OK, resp(50), with(func(r *results.Record) { r.FirstProgUs = ms(20.1) })), "first_progress", 1, 20},
		{"no first progress", call(0, results.OK, resp(50)), "first_progress", 0, 0},
		{"progress gap per call with progress", call(0, results.OK, resp(50), progress(results.Progress{Count: 2, MaxGapUs: ms(1200)})), "progress_gap", 1, 1200},
		{"no gap without notifications", call(0, results.OK, resp(50), progress(results.Progress{Count: 0})), "progress_gap", 0, 0},
		{"timeout error", call(0, results.TimeoutIdle, timeout(1000, 3500)), "timeout_error", 1, 3.5},
		{"timeout error without a deadline", call(0, results.Cancelled, cancelAt(10)), "timeout_error", 0, 0},
		{"latency above an hour is clamped", call(0, results.OK, resp(2*3600e3)), "call", 1, 3600e3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := aggregate(tt.rec).Summary(testMeta("2026-07-28"))
			l := s.Latency.ByName(tt.hist)
			if l.Count != tt.count || l.Max != tt.maxMs {
				t.Errorf("latency_ms.%s count %d max %v, want %d %v", tt.hist, l.Count, l.Max, tt.count, tt.maxMs)
			}
		})
	}
}

func TestHistogramPercentiles(t *testing.T) {
	var recs []*results.Record
	for i := 1; i <= 1000; i++ { // 1 ms .. 1000 ms
		recs = append(recs, call(time.Duration(i)*time.Millisecond, results.OK, resp(float64(i))))
	}
	l := aggregate(recs...).Summary(testMeta("2026-07-28")).Latency.Call
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > want*0.002 { // three significant figures
			t.Errorf("%s = %v, want %v ± 0.2%%", name, got, want)
		}
	}
	near("p50", l.P50, 500)
	near("p90", l.P90, 900)
	near("p99", l.P99, 990)
	near("p999", l.P999, 999)
	if l.Max != 1000 || l.Mean != 500.5 || l.Count != 1000 {
		t.Errorf("max %v mean %v count %d, want 1000 500.5 1000 (exact)", l.Max, l.Mean, l.Count)
	}
}

func TestProgressViolationSums(t *testing.T) {
	recs := []*results.Record{
		call(0, results.OK, resp(5), violation("non_monotonic", 2), violation("after_response", 1)),
		call(time.Millisecond, results.Cancelled, cancelAt(5), violation("after_cancel", 3), violation("unknown_token", 1)),
		call(2*time.Millisecond, results.OK, resp(5), violation("wrong_stream", 4), violation("reserved_code", 7)),
	}
	a := aggregate(recs...)
	a.SetConnection(client.Stats{UnknownTokens: 5, NotJSONRPC: 9})
	v := a.Summary(testMeta("2026-07-28")).Progress.Violations
	want := ProgressViolations{Total: 16, NonMonotonic: 2, AfterResponse: 1, AfterCancel: 3, UnknownToken: 6, WrongStream: 4}
	if v != want {
		t.Errorf("progress.violations = %+v, want %+v", v, want)
	}
}

func TestProtocolViolationSums(t *testing.T) {
	recs := []*results.Record{
		call(0, results.ProtocolError, resp(5), violation("content_type", 1), violation("oversize", 1),
			violation("stream_not_closed", 1), violation("bad_progress", 1)),
		call(0, results.OK, resp(5), violation("missing_result_type", 1), violation("unknown_result_type", 2),
			violation("reserved_code", 3), violation("duplicate_response", 1), violation("server_request", 1),
			violation("server_cancel", 1), violation("not_jsonrpc", 1), violation("non_monotonic", 5)),
	}
	a := aggregate(recs...)
	conn := client.Stats{NotJSONRPC: 10, Oversize: 20, ServerRequests: 30, ServerCancels: 40, UnknownResponses: 7, Stale: 8}
	a.SetConnection(conn)
	p := a.Summary(testMeta("2026-07-28")).Protocol
	want := ProtocolViolations{ServerRequest: 31, NotJSONRPC: 11, ContentType: 1, Oversize: 21, StreamNotClosed: 1,
		BadProgress: 1, ServerCancel: 41, MissingResultType: 1, UnknownResultType: 2, ReservedCode: 3, DuplicateResponse: 1}
	want.Total = 31 + 11 + 1 + 21 + 1 + 1 + 41 + 1 + 2 + 3 + 1
	if p.Violations != want {
		t.Errorf("protocol.violations = %+v, want %+v", p.Violations, want)
	}
	if p.Connection != conn {
		t.Errorf("protocol.connection = %+v, want %+v", p.Connection, conn)
	}
}

func TestProgressCounts(t *testing.T) {
	recs := []*results.Record{
		call(0, results.OK, resp(5), progress(results.Progress{Count: 10, MaxRateHz: 7, Flood: true})),
		call(0, results.OK, resp(5), progress(results.Progress{Count: 5, MaxRateHz: 12, Stalled: true, Incomplete: true})),
		call(0, results.OK, resp(5), progress(results.Progress{})), // asked, received none
		call(0, results.OK, resp(5)),
	}
	p := aggregate(recs...).Summary(testMeta("2026-07-28")).Progress
	if p.Notifications != 15 || p.Calls != 2 || p.MaxRateHz != 12 || p.Floods != 1 || p.Stalls != 1 || p.Incomplete != 1 {
		t.Errorf("progress = %+v", p)
	}
	if p.GraceMs != 500 || p.StallMs != 5000 || p.FloodHz != 100 {
		t.Errorf("progress rules echoed as grace %v stall %v flood %v, want 500 5000 100", p.GraceMs, p.StallMs, p.FloodHz)
	}
}

func TestCancellationCounts(t *testing.T) {
	recs := []*results.Record{
		call(0, results.Cancelled, cancelAt(10), with(func(r *results.Record) { r.LateResponses = 2 })),
		call(0, results.Cancelled, cancelAt(10), with(func(r *results.Record) { r.LeftoverUs = ms(500); r.LateProgress = 3 })),
		call(0, results.TimeoutCap, timeout(100, 10), violation("after_cancel", 1), with(func(r *results.Record) { r.LeftoverUs = ms(2500) })),
		// Progress past the progress grace but within the work grace
		// (orphans.grace): it breaks the progress rule, and is no leftover.
		call(0, results.Cancelled, cancelAt(10), violation("after_cancel", 1)),
		call(0, results.OK, resp(5)),
	}
	a := aggregate(recs...)
	a.SetOrphans(Orphans{Orphaned: 2, ByProbe: map[string]float64{"inflight": 2}, LeftoverCPUSeconds: 0.5,
		DrainMs: 800, LeakedCallSeconds: 1.5, QuietWindowMs: 2000, ProbeErrors: []string{"scrape: refused"}})
	c := a.Summary(testMeta("2026-07-28")).Cancellation
	if c.Cancels != 4 || c.LateResponses != 2 || c.LateProgress != 3 || c.LeftoverCalls != 2 {
		t.Errorf("cancels %d late responses %d late progress %d leftover %d, want 4 2 3 2",
			c.Cancels, c.LateResponses, c.LateProgress, c.LeftoverCalls)
	}
	if c.Orphaned != 2 || c.ByProbe["inflight"] != 2 || c.LeftoverCPUS != 0.5 || c.DrainMs != 800 ||
		c.LeakedCallSeconds != 1.5 || c.QuietWindowMs != 2000 || len(c.ProbeErrors) != 1 {
		t.Errorf("orphan numbers not carried over: %+v", c)
	}
}

func TestCutTools(t *testing.T) {
	cutBy := func(tool string, reason results.StopReason) func(*results.Record) {
		return func(r *results.Record) { r.Tool, r.CancelReason = tool, reason }
	}
	recs := []*results.Record{
		call(0, results.Cancelled, cancelAt(10), with(cutBy("slow", results.FaultStop("cancel")))),
		call(0, results.Cancelled, cancelAt(10), with(cutBy("slow", results.FaultStop("cancel")))),
		call(0, results.Disconnected, with(cutBy("burn", results.FaultStop("disconnect")))),
		call(0, results.Disconnected, with(cutBy("echo", ""))), // the server dropped it
		call(0, results.Cancelled, cancelAt(10), with(cutBy("burn", results.StopQuietWindow))),
		call(0, results.TimeoutCap, timeout(100, 10), with(cutBy("burn", results.StopTimeoutCap))),
		call(0, results.OK, resp(5), with(cutBy("echo", ""))),
	}
	got := aggregate(recs...).Summary(testMeta("2026-07-28")).Cancellation.CutTools
	want := map[string]int{"slow": 2, "burn": 1, "echo": 1}
	if !maps.Equal(got, want) {
		t.Errorf("cut tools = %v, want %v (a fault's cancels and disconnects, not a window's or a timeout's)", got, want)
	}
}

func TestRetryAfter(t *testing.T) {
	recs := []*results.Record{
		call(0, results.Throttled, resp(1), throttle("http_429", 500)),
		call(0, results.Throttled, resp(1), throttle("http_429", 1000)),
		call(0, results.Throttled, resp(1), throttle("http_503", 30000)),
		call(0, results.Throttled, resp(1), throttle("", 0)),
	}
	th := aggregate(recs...).Summary(testMeta("2026-07-28")).Throttling
	if th.RetryAfterS.P50 != 1 || th.RetryAfterS.Max != 30 {
		t.Errorf("retry_after_s = %+v, want p50 1, max 30", th.RetryAfterS)
	}
	want := map[string]int{"http_429": 2, "http_503": 1, "unknown": 1}
	if th.Total != 4 || len(th.ByKind) != len(want) {
		t.Fatalf("throttling total %d by kind %v, want 4 %v", th.Total, th.ByKind, want)
	}
	for k, n := range want {
		if th.ByKind[k] != n {
			t.Errorf("by_kind.%s = %d, want %d", k, th.ByKind[k], n)
		}
	}
}

func TestFaultTimingPerKind(t *testing.T) {
	recs := []*results.Record{
		call(0, results.Cancelled, cancelAt(10), fault("cancel", 100)),
		call(0, results.Cancelled, cancelAt(10), fault("cancel", 300)),
		call(0, results.Cancelled, cancelAt(10), fault("cancel", -2000)), // early counts as its size
		call(0, results.Disconnected, fault("disconnect", 5000), fault("slow_read", 0)),
	}
	f := aggregate(recs...).Summary(testMeta("2026-07-28")).Faults
	tests := []struct {
		kind     string
		injected int
		p50, max float64
	}{
		{"cancel", 3, 0.3, 2},
		{"disconnect", 1, 5, 5},
		{"slow_read", 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			got := f[tt.kind]
			if got.Injected != tt.injected || got.TimingErrorMs.P50 != tt.p50 || got.TimingErrorMs.Max != tt.max {
				t.Errorf("faults.%s = %+v, want injected %d p50 %v max %v", tt.kind, got, tt.injected, tt.p50, tt.max)
			}
		})
	}
	if len(f) != 3 {
		t.Errorf("faults has %d kinds, want 3", len(f))
	}
}

func TestPolicies(t *testing.T) {
	recs := []*results.Record{
		call(0, results.TimeoutCap, timeout(100, 1), policies("reset_only", "waited_forever", "fixed_60s", "killed")),
		call(0, results.OK, resp(5), policies("reset_only", "ok", "fixed_60s", "ok")),
		call(0, results.TimeoutIdle, timeout(100, 1), policies("reset_only", "killed", "fixed_60s", "killed")),
	}
	to := aggregate(recs...).Summary(testMeta("2026-07-28")).Timeouts
	want := map[string]PolicyCounts{"reset_only": {Killed: 1, WaitedForever: 1}, "fixed_60s": {Killed: 2}}
	if len(to.Policies) != len(want) {
		t.Fatalf("policies = %v, want %v", to.Policies, want)
	}
	for name, pc := range want {
		if to.Policies[name] != pc {
			t.Errorf("policies.%s = %+v, want %+v", name, to.Policies[name], pc)
		}
	}
	if to.Idle != 1 || to.Cap != 1 {
		t.Errorf("idle %d cap %d, want 1 1", to.Idle, to.Cap)
	}
}

func TestCapWithProgress(t *testing.T) {
	r := call(0, results.TimeoutCap, timeout(100, 1), with(func(r *results.Record) { r.CapWithProgress = true }))
	if got := aggregate(r, call(0, results.TimeoutCap, timeout(100, 1))).Summary(testMeta("2026-07-28")).Timeouts.CapWithProgress; got != 1 {
		t.Errorf("cap_with_progress = %d, want 1", got)
	}
}

func TestSnapshot(t *testing.T) {
	a := aggregate(
		call(0, results.OK, resp(100)),
		call(500*time.Millisecond, results.OK, resp(500)), // ends at 1 s
		call(600*time.Millisecond, results.Dropped),
	)
	l := a.Snapshot()
	if l.Calls != 3 || l.Outcomes[results.OK] != 2 || l.Outcomes[results.Dropped] != 1 {
		t.Errorf("snapshot counts = %+v", l)
	}
	if l.P99 < 499*time.Millisecond || l.P99 > 501*time.Millisecond {
		t.Errorf("snapshot p99 = %v, want 500ms", l.P99)
	}
	if l.Rate != 2 { // two completed calls over 1 s
		t.Errorf("snapshot rate = %v, want 2", l.Rate)
	}
	l.Outcomes[results.OK] = 99
	if a.Snapshot().Outcomes[results.OK] != 2 {
		t.Error("changing a snapshot changed the aggregator")
	}
}

func TestSummaryIsFixedWhenAddingGoesOn(t *testing.T) {
	a := aggregate(call(0, results.OK, resp(10)))
	s := a.Summary(testMeta("2026-07-28"))
	for i := 0; i < 100; i++ {
		a.Add(call(0, results.OK, resp(5000)))
	}
	s.Evaluate([]Check{{Raw: "p99(call) < 20ms", Hist: "call", Percentile: 99, Op: "<", Value: 20, Unit: "ms"}}, true)
	if !s.Pass {
		t.Errorf("a summary saw records added after it was built: %+v", s.Checks)
	}
}

func TestAddNilIsIgnored(t *testing.T) {
	a := NewAggregator(Rules{})
	a.Add(nil)
	if a.Summary(Meta{}).Calls.Total != 0 {
		t.Error("a nil record was counted")
	}
}

func TestHistogramAccessor(t *testing.T) {
	a := aggregate(call(0, results.OK, resp(10)))
	for _, name := range HistogramNames() {
		if a.Histogram(name) == nil {
			t.Errorf("Histogram(%q) = nil", name)
		}
	}
	if a.Histogram("call").TotalCount() != 1 {
		t.Error("the call histogram does not hold the call")
	}
	if a.Histogram("nope") != nil {
		t.Error("Histogram of an unknown name is not nil")
	}
}
