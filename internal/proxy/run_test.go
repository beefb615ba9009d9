package proxy_test

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestRunClientCancelsAtCap: `mcpchaos run` through the proxy, whose
// progress_endless fault keeps every call going: the client cancels each
// at its 2s cap by closing its stream, and the proxy records every call
// cancelled so. How close to 2s the proxy sees it is the timing tier's
// (TestTimingRunClientCancelsAtCap): the client's cap counts from when it
// meant to send, the proxy measures from when the call arrived, so on a
// busy machine the proxy saw cancels 634ms after the call came.
func TestRunClientCancelsAtCap(t *testing.T) {
	recs := runCancelsAtCap(t)
	for _, rec := range recs {
		if rec.CancelAfterMs <= 0 {
			t.Errorf("call %d cancelled after %vms, want a time after its start", rec.Seq, rec.CancelAfterMs)
		}
	}
}

// runCancelsAtCap runs the scenario of TestRunClientCancelsAtCap and
// returns the proxy's records, once every call was cancelled by a closed
// stream.
func runCancelsAtCap(t *testing.T) []proxy.CallRecord {
	t.Helper()
	r := startProxy(t, "1m", "  - {kind: progress_endless, every: 250ms}\n")
	out := runScenario(t, `name: through-proxy
target:
  http: {url: "`+r.url+`"}
load:
  rate: 4/1s
  duration: 2s
timeouts: {idle: 1s, max: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 2, step_ms: 50}, progress: true}
`, nil)
	r.stop()
	recs := r.p.Records()
	sum := r.p.Summary().Clients
	if sum.Calls == 0 || sum.Cancelled != sum.Calls || sum.CancelledByClose != sum.Calls || sum.NeverCancelled != 0 {
		t.Fatalf("want every call cancelled by a closed stream, got %+v\n%s\nrun said:\n%s", sum, dump(recs), out)
	}
	t.Logf("%d calls, cancelled after p50 %.1fms, p99 %.1fms; issue's bound 2s±100ms", sum.Calls, sum.CancelAfterMs.P50, sum.CancelAfterMs.P99)
	return recs
}

// TestCancelPassesThrough puts the proxy, with no fault, in front of the
// built-in target as a gateway would stand: `mcpchaos run` cancels long
// calls at its 2s cap by closing their streams (the 2026 cancel), and the
// target's own counters show every one of those calls cancelled there
// too, none left running.
func TestCancelPassesThrough(t *testing.T) {
	r := startProxy(t, "1m", "  []\n")
	runScenario(t, `name: gateway
target:
  http: {url: "`+r.url+`"}
load:
  rate: 3/1s
  duration: 1s
timeouts: {idle: 1s, max: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 40, step_ms: 100}, progress: true}
`, nil)
	sum := r.p.Summary().Clients
	if sum.Calls == 0 || sum.CancelledByClose != sum.Calls {
		t.Fatalf("want every call cancelled by a closed stream, got %+v", sum)
	}
	testutil.Eventually(t, "the target to see every cancel", func() bool {
		st := r.target.Server.Stats()
		return st.Cancelled == sum.Calls && st.Inflight == 0
	})
	if st := r.target.Server.Stats(); st.Completed != 0 || st.Orphaned != 0 {
		t.Errorf("target: %+v, want no call completed or orphaned", st)
	}
}
