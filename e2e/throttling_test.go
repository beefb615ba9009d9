package e2e

import (
	"fmt"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
)

// throttlingHTTP runs cheap calls at the target's rate limit (limit, e.g.
// 100/1s: a one-token bucket, no burst) with code appended to its knobs
// and load as the scenario's load; it returns the run and the target's own
// counts. The timeouts outlast a starved machine: a call the client gave up
// on would be counted apart from the target's answer to it.
func throttlingHTTP(t *testing.T, limit, code, load string) (outcome, map[string]float64) {
	t.Helper()
	sc := runtest.Parse(t, fmt.Sprintf(`
name: throttling-http
seed: 3
target:
  builtin: {transport: http, rate_limit: %s%s}
load:
  %s
timeouts: {idle: 1m, max: 2m}
calls:
  - {tool: echo, arguments: {text: hi}, progress: false}
orphans: {grace: 200ms, drain_max: 200ms}
`, limit, code, load))
	plan := planOf(t, sc)
	truth := groundTruth(t, sc, &plan)
	o := runPlan(t, sc, plan)
	return o, truth()
}

// TestThrottlingHTTP sends 200/s for 1 s through the target's rate limit
// of 5/1s (a client starved of CPU still sends more than that; 100/1s was
// not passed by one that sent in bunches at a busy moment): every 429 is
// counted (exactly the target's own count) with its
// Retry-After, every ok call is one the target completed, and the code
// decides the verdict. Where the onset and the best ok rate fall is the
// timing tier's (TestTimingThrottlingOnsetHTTP).
func TestThrottlingHTTP(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		reserved   bool
	}{
		// -32029 is in the range 2026-07-28 reserves: a violation even on
		// a 429. The target's default code, -31429, is outside every
		// reserved range: no violation of the target's own making.
		{"code-32029", ", rate_limit_code: -32029", true},
		{"default-code", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, m := throttlingHTTP(t, "5/1s", tc.code, "rate: 200/1s\n  duration: 1s")
			th := o.Sum.Throttling
			refused, completed := m["mcpchaos_target_throttled_total"], m["mcpchaos_target_completed_total"]
			if refused == 0 {
				t.Fatal("the target throttled nothing: the load never passed its limit")
			}
			if got := th.ByKind["http_429"]; float64(got) != refused || th.Total != got {
				t.Errorf("throttling.by_kind.http_429 = %d, total %d; the target refused %v calls", got, th.Total, refused)
			}
			if float64(o.Sum.Calls.OK) != completed {
				t.Errorf("calls.ok = %d, the target completed %v", o.Sum.Calls.OK, completed)
			}
			if th.RetryAfterS.Max < 1 {
				t.Errorf("throttling.retry_after_s.max = %v, want >= 1 (the target sends whole seconds, at least 1)", th.RetryAfterS.Max)
			}
			if th.OnsetRate <= 0 {
				t.Errorf("throttling.onset_rate = %v, want the rate at which throttling began", th.OnsetRate)
			}
			v := o.verdict(t, report.AreaThrottling)
			if tc.reserved {
				if pv := o.Sum.Protocol.Violations.ReservedCode; pv != th.Total {
					t.Errorf("protocol.violations.reserved_code = %d, want one per throttled call (%d): -32029 is reserved", pv, th.Total)
				}
				if v.Status != report.StatusViolation {
					t.Errorf("throttling verdict = %q (%s), want violation for the reserved code", v.Status, v.Evidence)
				}
				return
			}
			if o.Sum.Protocol.Violations.Total != 0 {
				t.Errorf("protocol.violations.total = %d, want 0 with the default code", o.Sum.Protocol.Violations.Total)
			}
			if v.Status != report.StatusThrottled {
				t.Errorf("throttling verdict = %q (%s), want %q", v.Status, v.Evidence, report.StatusThrottled)
			}
		})
	}
}

// TestThrottlingStdio: over stdio the target refuses with a JSON-RPC error;
// a code listed in throttling.rpc_codes is counted as rpc_code, anything
// else by its message ("rate limit exceeded") as rpc_message.
func TestThrottlingStdio(t *testing.T) {
	for _, tc := range []struct {
		name, codes, kind string
	}{
		{"rpc_code", "throttling: {rpc_codes: [-32000]}", "rpc_code"},
		{"rpc_message", "", "rpc_message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := runtest.Parse(t, fmt.Sprintf(`
name: throttling-stdio
seed: 3
target:
  builtin: {transport: stdio, rate_limit: 5/1s, rate_limit_code: -32000}
load: {rate: 150/1s, duration: 1s}
timeouts: {idle: 1m, max: 2m}
calls:
  - {tool: echo, arguments: {text: hi}, progress: false}
orphans: {grace: 200ms, drain_max: 200ms}
%s
`, tc.codes))
			plan := planOf(t, sc)
			quick(&plan)
			truth := groundTruth(t, sc, &plan)
			o := runPlan(t, sc, plan)
			th := o.Sum.Throttling
			want := truth()["mcpchaos_target_throttled_total"]
			if want == 0 {
				t.Fatal("the target throttled nothing")
			}
			if got := th.ByKind[tc.kind]; float64(got) != want || th.Total != got {
				t.Errorf("throttling.by_kind.%s = %d (by_kind %v, total %d); the target refused %v calls", tc.kind, got, th.ByKind, th.Total, want)
			}
			if o.Sum.Calls.RPCError != 0 {
				t.Errorf("calls.rpc_error = %d, want 0: every refusal is throttling", o.Sum.Calls.RPCError)
			}
			if v := o.verdict(t, report.AreaThrottling); v.Status != report.StatusThrottled {
				t.Errorf("throttling verdict = %q (%s), want %q", v.Status, v.Evidence, report.StatusThrottled)
			}
		})
	}
}

// retriesRun sends 150/s for 2 s at a 5/1s limit, each throttled call
// retried at once up to three times, unless the load ended first. The
// limit is far below what even a starved client sends: at 50/1s a client
// starved to under 50 calls a second was never throttled.
func retriesRun(t *testing.T) outcome {
	t.Helper()
	sc := runtest.Parse(t, `
name: retries
seed: 3
target:
  builtin: {transport: http, rate_limit: 5/1s, rate_limit_code: -32000}
load: {rate: 150/1s, duration: 2s}
calls:
  - {tool: echo, arguments: {text: hi}, progress: false}
throttling: {retry: {max: 3, honor_retry_after: false}}
orphans: {grace: 200ms}
`)
	return runPlan(t, sc, planOf(t, sc))
}

// TestRetriesAreNotOfferedLoad: throttled calls retried at once (retry max
// 3, not honouring Retry-After) are new records; they are not offered
// load: the calls offered are the pacer's 300 ticks (150/s for 2 s),
// whatever the retries. The rates they give are the timing tier's
// (TestTimingRetriesAreNotOfferedLoad).
func TestRetriesAreNotOfferedLoad(t *testing.T) {
	t.Parallel()
	s := retriesRun(t).Sum
	// A starved client may read every 429 after the load's end, when no
	// retry is made any more; then each is counted as not made.
	if s.Calls.Retried+s.Throttling.RetriesNotMade == 0 {
		t.Fatalf("no call was retried or counted as not retried (%d throttled)", s.Throttling.Total)
	}
	if offered := s.Calls.Total - s.Calls.Retried - s.Calls.Reissued; offered != 300 {
		t.Errorf("calls offered (total %d - retried %d - reissued %d) = %d, want the pacer's 300", s.Calls.Total, s.Calls.Retried, s.Calls.Reissued, offered)
	}
}
