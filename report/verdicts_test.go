package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// verdictOf returns the verdict of one area.
func verdictOf(t *testing.T, s *Summary, area string) Verdict {
	t.Helper()
	for _, v := range s.Verdicts {
		if v.Area == area {
			return v
		}
	}
	t.Fatalf("no %s verdict in %+v", area, s.Verdicts)
	return Verdict{}
}

func leftover(r *results.Record) { r.LeftoverUs = ms(2000) }

// repeat makes n records.
func repeat(n int, mk func() *results.Record) []*results.Record {
	out := make([]*results.Record, 0, n)
	for range n {
		out = append(out, mk())
	}
	return out
}

// cancellationCase is a run's records and orphan evidence in one era, and
// the cancellation verdict they must get.
type cancellationCase struct {
	name    string
	era     string
	recs    []*results.Record
	orphans Orphans
	want    string
	has     []string
}

// cancelledCall is a call we cancelled at 100 ms.
func cancelledCall() *results.Record {
	return call(0, results.Cancelled, cancelAt(100), fault("cancel", 10))
}

// disconnectedCall is a call whose stream we cut, ending it at 100 ms.
func disconnectedCall() *results.Record {
	return call(0, results.Disconnected, fault("disconnect", 10), with(func(r *results.Record) { r.EndUs = ms(100) }))
}

// inflightOrphans is what an in-flight probe saw after the load: 12 calls
// still running.
func inflightOrphans() Orphans {
	return Orphans{Orphaned: 12, ByProbe: map[string]float64{"mcpchaos_target_inflight": 12}, QuietWindowMs: 2000}
}

// cancellationEraCases judge the cancels and disconnects of each era by
// their records and the in-flight probe.
func cancellationEraCases() []cancellationCase {
	disconnect, cancel, orphans := disconnectedCall, cancelledCall, inflightOrphans()
	return []cancellationCase{
		{"2026 disconnect with leftover work", "2026-07-28", []*results.Record{apply(disconnect(), leftover)},
			Orphans{}, StatusViolation, []string{"1 call seen working after its cancel", "a disconnect is a cancel"}},
		{"2025 disconnect with leftover work", "2025-11-25", []*results.Record{apply(disconnect(), leftover)},
			Orphans{}, StatusLegacy, []string{"not a cancel", "1 call seen working"}},
		{"2025-06-18 disconnects explain the orphans", "2025-06-18", repeat(12, disconnect),
			orphans, StatusLegacy, []string{"12 calls still running 2s after the load ended (probe mcpchaos_target_inflight)"}},
		{"2025 orphans beyond what the disconnects explain", "2025-06-18", []*results.Record{disconnect(), call(0, results.OK, resp(5))},
			orphans, StatusViolation, []string{"12 calls still running"}},
		{"2024 is legacy too", "2024-11-05", []*results.Record{apply(disconnect(), leftover)}, Orphans{}, StatusLegacy, nil},
		{"2025 cancel with leftover work", "2025-11-25", []*results.Record{apply(cancel(), leftover)},
			Orphans{}, StatusViolation, []string{"1 cancel, 0 disconnects"}},
		{"2025 cancel with progress after it, past the work grace", "2025-11-25", []*results.Record{apply(cancel(), violation("after_cancel", 1), leftover)},
			Orphans{}, StatusViolation, nil},
		// Past the progress grace only: the progress verdict's to judge.
		{"2025 cancel with progress after it, within the work grace", "2025-11-25", []*results.Record{apply(cancel(), violation("after_cancel", 1))},
			Orphans{}, StatusNotObservable, nil},
		{"2025 disconnect and cancel both left over", "2025-11-25",
			[]*results.Record{apply(disconnect(), leftover), apply(cancel(), leftover)},
			Orphans{}, StatusViolation, []string{"2 calls seen working"}},
		{"2025 orphans without any disconnect", "2025-11-25", []*results.Record{cancel()}, orphans, StatusViolation, []string{"12 calls still running"}},
		{"2026 orphans after cancels", "2026-07-28", []*results.Record{cancel(), cancel()}, orphans, StatusViolation,
			[]string{"2 cancels", "probe mcpchaos_target_inflight"}},
	}
}

// cancellationProbeCases judge by leftover CPU, quiet windows, leaked
// call-seconds and probe errors.
func cancellationProbeCases() []cancellationCase {
	disconnect, cancel := disconnectedCall, cancelledCall
	return []cancellationCase{
		{"leftover CPU above the noise", "2026-07-28", []*results.Record{cancel()}, Orphans{LeftoverCPUSeconds: 0.2}, StatusViolation,
			[]string{"leftover CPU 200ms"}},
		{"leftover CPU below the noise", "2026-07-28", []*results.Record{cancel()}, Orphans{LeftoverCPUSeconds: 0.01, CPU: &ProcessCPU{LoadRate: 1, PerCallS: 1}, Windows: Windows{Count: 2}}, StatusPass, nil},
		{"leftover CPU within the measured noise", "2026-07-28", []*results.Record{cancel()},
			Orphans{LeftoverCPUSeconds: 0.1, CPU: &ProcessCPU{LoadRate: 1, PerCallS: 1, IdleNoise: 0.05, ThresholdS: 0.16}, Windows: Windows{Count: 2}}, StatusPass, nil},
		// The false pass: CPU-bound work, a process probe alone,
		// and nothing seen after the load, when the leftover of calls cut
		// during the load had long ended.
		{"process probe alone without quiet windows", "2026-07-28", []*results.Record{cancel()},
			Orphans{LeftoverCPUSeconds: 0.01, CPU: &ProcessCPU{LoadRate: 1, PerCallS: 1}}, StatusNotObservable, []string{"measured after the load", "windows"}},
		{"leftover CPU above the measured noise names the process", "2026-07-28", []*results.Record{cancel()},
			Orphans{LeftoverCPUSeconds: 0.3, CPU: &ProcessCPU{PID: 42, Command: "srv", LoadRate: 1, PerCallS: 1, IdleNoise: 0.05, ThresholdS: 0.16}},
			StatusViolation, []string{"leftover CPU 300ms", "pid 42, srv"}},
		{"sleeping work under a process probe", "2026-07-28", []*results.Record{cancel()},
			Orphans{CPU: &ProcessCPU{LoadRate: 0.01, IdleNoise: 0.01}}, StatusNotObservable, []string{"not CPU it can see", "log probe"}},
		{"quiet windows saw leftover work", "2026-07-28", []*results.Record{cancel()},
			Orphans{CPU: &ProcessCPU{LoadRate: 1, PerCallS: 1}, Windows: Windows{Count: 3, Above: 2, LeftoverCPUS: 1.5, MeasuredMs: 2400}},
			StatusViolation, []string{"2 of 3 quiet windows", "1.5s CPU"}},
		{"quiet windows saw none", "2026-07-28", []*results.Record{cancel()},
			Orphans{CPU: &ProcessCPU{LoadRate: 1, PerCallS: 1}, Windows: Windows{Count: 3, LeftoverCPUS: 0.01, MeasuredMs: 2400}},
			StatusPass, []string{"3 quiet windows"}},
		{"cancels that stopped", "2026-07-28", []*results.Record{cancel(), disconnect()},
			Orphans{ByProbe: map[string]float64{"inflight": 0}, Counting: 1}, StatusPass, []string{"1 cancel, 1 disconnect", "no work seen"}},
		{"no probe says so", "2026-07-28", []*results.Record{cancel()}, Orphans{}, StatusNotObservable, []string{"wire evidence only", "log probe"}},
		{"late responses alone pass", "2026-07-28", []*results.Record{apply(cancel(), func(r *results.Record) { r.LateResponses = 3 })},
			Orphans{Counting: 1}, StatusPass, []string{"3 late responses"}},
		{"leaked work that ended before the probes looked", "2026-07-28", []*results.Record{cancel(), cancel()},
			Orphans{LeakedCallSeconds: 25.5}, StatusViolation, []string{"25.5 call-seconds of server work nobody waited for"}},
		{"leaked call-seconds within the grace", "2026-07-28", []*results.Record{cancel(), cancel()},
			Orphans{LeakedCallSeconds: 0.3, Counting: 1}, StatusPass, []string{"within the grace"}},
		// orphans.grace 2 s, longer than progress.grace (500 ms): each cut
		// call may take 2 s to stop.
		{"leaked call-seconds within a longer orphans grace", "2026-07-28", []*results.Record{cancel(), cancel()},
			Orphans{LeakedCallSeconds: 3, Counting: 1, WorkGraceMs: 2000}, StatusPass, []string{"within the grace"}},
		{"leaked call-seconds past a longer orphans grace", "2026-07-28", []*results.Record{cancel(), cancel()},
			Orphans{LeakedCallSeconds: 5, Counting: 1, WorkGraceMs: 2000}, StatusViolation, []string{"5 call-seconds of server work nobody waited for"}},
		{"nothing cancelled", "2026-07-28", []*results.Record{call(0, results.OK, resp(5))}, Orphans{}, StatusNotExercised, nil},
		// The stalled-reader example at load ~30: scrapes of the target's
		// in-flight count timed out, and the server's count stood above
		// the client's with no call stopped. No call was given up on, so
		// no work went on after one.
		{"leaked call-seconds with nothing stopped", "2026-07-28", []*results.Record{call(0, results.OK, resp(5))},
			Orphans{LeakedCallSeconds: 13.6, Counting: 1, ProbeErrors: []string{"builtin_inflight: parse exposition: context deadline exceeded"}},
			StatusNotExercised, []string{"13.6 call-seconds of server in-flight above the client's, not counted: no call was stopped"}},
		{"probe errors are shown", "2026-07-28", []*results.Record{cancel()}, Orphans{ProbeErrors: []string{"scrape: connection refused"}, Counting: 1},
			StatusPass, []string{"probe errors: scrape: connection refused"}},
	}
}

func TestCancellationVerdict(t *testing.T) {
	for _, tt := range slices.Concat(cancellationEraCases(), cancellationProbeCases()) {
		t.Run(tt.name, func(t *testing.T) {
			a := aggregate(tt.recs...)
			a.SetOrphans(tt.orphans)
			v := verdictOf(t, a.Summary(testMeta(tt.era)), AreaCancellation)
			if v.Status != tt.want {
				t.Errorf("status = %q, want %q (evidence %q)", v.Status, tt.want, v.Evidence)
			}
			for _, h := range tt.has {
				if !strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q lacks %q", v.Evidence, h)
				}
			}
		})
	}
}

// TestStaleAnswersAreEvidence: a server that ignores every cancel and
// sends no progress answers each stopped call in full after the late
// window; the counting probe read 0 by then. Its stale results alone make
// the verdict a violation.
func TestStaleAnswersAreEvidence(t *testing.T) {
	for _, tc := range []struct {
		stale int64
		want  string
	}{{0, StatusPass}, {3, StatusViolation}} {
		a := NewAggregator(Rules{ProgressGrace: 100 * time.Millisecond})
		a.Add(call(0, results.Cancelled, cancelAt(100), fault("cancel", 10)))
		a.SetConnection(client.Stats{Stale: tc.stale, StaleAnswers: tc.stale})
		a.SetOrphans(Orphans{Counting: 1, ByProbe: map[string]float64{"inflight": 0}})
		v := verdictOf(t, a.Summary(testMeta("2026-07-28")), AreaCancellation)
		if v.Status != tc.want {
			t.Errorf("%d stale results: status = %q (%s), want %q", tc.stale, v.Status, v.Evidence, tc.want)
		}
		if tc.stale > 0 && !strings.Contains(v.Evidence, "3 answers arrived after the late window") {
			t.Errorf("evidence %q does not name the stale results", v.Evidence)
		}
	}
}

// apply applies opts to r.
func apply(r *results.Record, opts ...opt) *results.Record {
	for _, o := range opts {
		o(r)
	}
	return r
}

func TestProgressVerdict(t *testing.T) {
	withProgress := func(p results.Progress, opts ...opt) *results.Record {
		return call(0, results.OK, append([]opt{resp(50), progress(p)}, opts...)...)
	}
	tests := []verdictCase{
		{"clean progress", []*results.Record{withProgress(results.Progress{Count: 5, MaxRateHz: 3})}, client.Stats{}, StatusPass, "5 notifications on 1 call"},
		{"asked, none sent", []*results.Record{withProgress(results.Progress{})}, client.Stats{}, StatusPass, "1 call asked for progress and the server sent none"},
		{"non-monotonic", []*results.Record{withProgress(results.Progress{Count: 5}, violation("non_monotonic", 1))}, client.Stats{}, StatusViolation, "non_monotonic 1"},
		{"unknown tokens on the connection", []*results.Record{withProgress(results.Progress{Count: 5})}, client.Stats{UnknownTokens: 2}, StatusViolation, "unknown_token 2"},
		{"flood", []*results.Record{withProgress(results.Progress{Count: 500, Flood: true})}, client.Stats{}, StatusWarning, "1 flood (> 100 Hz)"},
		{"stall", []*results.Record{withProgress(results.Progress{Count: 2, Stalled: true})}, client.Stats{}, StatusWarning, "1 stall (gap > 5s)"},
		{"incomplete", []*results.Record{withProgress(results.Progress{Count: 2, Incomplete: true})}, client.Stats{}, StatusWarning, "incomplete"},
		{"no progress asked", []*results.Record{call(0, results.OK, resp(5))}, client.Stats{}, StatusNotExercised, "no call"},
	}
	testVerdicts(t, AreaProgress, tests)
}

func TestThrottlingVerdict(t *testing.T) {
	tests := []verdictCase{
		{"reserved code", []*results.Record{call(0, results.RPCError, resp(2), violation("reserved_code", 1))}, client.Stats{}, StatusViolation, "-32020..-32099"},
		{"throttled", append(second(0, 50, 10, 5), call(time.Second, results.Throttled, resp(1), throttle("http_429", 2000))),
			client.Stats{}, StatusThrottled, "6 throttled (http_429 6); onset at 50.0/s offered; best 45 ok/s; Retry-After p50 2s, max 2s"},
		{"never throttled", second(0, 20, 0, 5), client.Stats{}, StatusPass, "no throttling at 5.0/s offered"},
	}
	testVerdicts(t, AreaThrottling, tests)
}

func TestTimeoutsVerdict(t *testing.T) {
	tests := []verdictCase{
		{"cap with progress", []*results.Record{call(0, results.TimeoutCap, timeout(100, 900),
			with(func(r *results.Record) { r.CapWithProgress = true }), policies("reset_only", "waited_forever"))},
			client.Stats{}, StatusWarning, "would wait for ever"},
		{"plain timeouts", []*results.Record{call(0, results.TimeoutIdle, timeout(100, 900))}, client.Stats{}, StatusPass, "idle 1, cap 0, cap with progress 0; enforcement error p99 900µs"},
		{"none", []*results.Record{call(0, results.OK, resp(5))}, client.Stats{}, StatusPass, "no timeout fired"},
	}
	testVerdicts(t, AreaTimeouts, tests)
}

func TestProtocolVerdict(t *testing.T) {
	tests := []verdictCase{
		{"per call", []*results.Record{call(0, results.ProtocolError, resp(1), violation("content_type", 1))}, client.Stats{}, StatusViolation, "content_type 1"},
		{"connection level", []*results.Record{call(0, results.OK, resp(1))}, client.Stats{ServerRequests: 2}, StatusViolation, "server_request 2"},
		{"stale is not a violation", []*results.Record{call(0, results.OK, resp(1))}, client.Stats{Stale: 4, UnknownResponses: 1}, StatusPass, "no protocol violation in 1 call"},
	}
	testVerdicts(t, AreaProtocol, tests)
}

// verdictCase is one row of a verdict's table test: records and connection
// stats aggregated for 2026-07-28, the status the verdict must have and
// text its evidence must hold.
type verdictCase struct {
	name string
	recs []*results.Record
	conn client.Stats
	want string
	has  string
}

// testVerdicts runs a verdict's table test for area.
func testVerdicts(t *testing.T, area string, tests []verdictCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := aggregate(tt.recs...)
			a.SetConnection(tt.conn)
			v := verdictOf(t, a.Summary(testMeta("2026-07-28")), area)
			if v.Status != tt.want || !strings.Contains(v.Evidence, tt.has) {
				t.Errorf("verdict = %+v, want %q with %q", v, tt.want, tt.has)
			}
		})
	}
}
