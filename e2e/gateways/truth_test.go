package gateways

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/report"
)

// verdict returns the run's verdict of one area.
func verdict(t *testing.T, o *runtest.Outcome, area string) report.Verdict {
	t.Helper()
	for _, v := range o.Sum.Verdicts {
		if v.Area == area {
			return v
		}
	}
	o.Dump(t)
	t.Fatalf("no %s verdict", area)
	return report.Verdict{}
}

// TestTruthNeverOpened: truth addresses where nothing listens (ports 1 to
// 5 of loopback: privileged, refused) are one line of the summary, not
// one per address and read; the truth that was read covers every call,
// yet with targets unread the gateway verdict cannot pass.
func TestTruthNeverOpened(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	truth := []string{base(tg)}
	for p := 1; p <= 5; p++ {
		truth = append(truth, fmt.Sprintf("http://127.0.0.1:%d", p))
	}
	o := run(t, scenario(serve(t, transparent(t, base(tg))), "2026-07-28", truth, `
load: {rate: 5/1s, duration: 1500ms}
calls:
  - {tool: echo, arguments: {text: hi}}
`))
	g := o.Sum.Gateway
	if g == nil || len(g.Errors) != 1 || !strings.Contains(g.Errors[0], "5 of 6 targets was never read") ||
		!strings.Contains(g.Errors[0], "connection refused") || g.TruthUnread != 5 {
		o.Dump(t)
		t.Fatalf("gateway %+v: want one line naming the 5 unread targets and the first error", g)
	}
	if g.Executions != g.Calls || g.Calls == 0 {
		t.Errorf("executions %d of %d calls: the target that answered recorded them all", g.Executions, g.Calls)
	}
	if v := verdict(t, o, report.AreaGateway); v.Status != report.StatusNotObservable || !strings.Contains(v.Evidence, "incomplete truth") ||
		strings.Count(v.Evidence, "connection refused") != 1 {
		t.Errorf("gateway verdict %q: %s; want not_observable for incomplete truth, one connection refused", v.Status, v.Evidence)
	}
}

// TestCancellationFromTruth: with no probe, the cancellation verdict is
// settled by the targets' records: a target that stops every cancelled
// call passes, one that ignores every cancel is a violation, and the
// records' counts agree with the target's own leak knob. In 2026-07-28 a
// cancel closes the call's stream, so nothing on the wire tells the two
// apart: only the records can.
func TestCancellationFromTruth(t *testing.T) {
	for _, tc := range []struct {
		name string
		leak float64
		want string
	}{
		{"stops", 0, report.StatusPass},
		{"ignores cancels", 1, report.StatusViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := target(t, targetserver.Config{LeakOnCancel: tc.leak})
			o := run(t, scenario(serve(t, transparent(t, base(tg))), "2026-07-28", []string{base(tg)}, `
load: {rate: 8/1s, duration: 1500ms}
calls:
  - {tool: slow_task, arguments: {steps: 8, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 1, after: 150ms}
`))
			g := o.Sum.Gateway
			st := g.Stops.Cancelled
			cancelled := o.Sum.Calls.Cancelled
			switch {
			case cancelled == 0:
				t.Fatal("no call was cancelled")
			case tc.leak == 0 && (st.Stopped != cancelled || st.RanOn+st.Unknown != 0):
				t.Errorf("stops %+v of %d cancelled calls: want every one stopped", st, cancelled)
			case tc.leak == 1 && (st.RanOn != cancelled || st.Stopped+st.Unknown != 0):
				t.Errorf("stops %+v of %d cancelled calls: want every one ran on", st, cancelled)
			}
			v := verdict(t, o, report.AreaCancellation)
			if v.Status != tc.want || !strings.Contains(v.Evidence, "gateway.truth") {
				o.Dump(t)
				t.Errorf("cancellation verdict %q: %s; want %q from the targets' records", v.Status, v.Evidence, tc.want)
			}
		})
	}
}

// TestLateEchoNotHidden: two 2025 sessions through a gateway that keeps
// each on a target of its own; the truth is read from the first target
// only, which stops every cancelled call. The second ignores the cancel
// and answers, echoing the call's marker, long after the late window, and
// its records are never read, as when a bridge's child process dies with
// them. Those answers are executions the truth misses: the gateway
// verdict must not pass (it did, "calls not recorded by any target"), and
// the calls ran on after their cancels.
func TestLateEchoNotHidden(t *testing.T) {
	t.Parallel()
	read := target(t, targetserver.Config{})
	unread := target(t, targetserver.Config{LeakOnCancel: 1})
	gw := serve(t, bySession(t, base(read), base(unread)))
	o := run(t, scenario(gw, "2025-11-25", []string{base(read)}, `
load: {rate: 6/1s, duration: 1s, ids: {mode: colliding, connections: 2}}
calls:
  - {tool: slow_task, arguments: {steps: 6, step_ms: 300}, progress: true}
faults:
  - {kind: cancel, probability: 1, after: 100ms}
`))
	g := o.Sum.Gateway
	if g == nil || o.Sum.Calls.Cancelled == 0 {
		o.Dump(t)
		t.Fatal("no gateway section, or no call cancelled")
	}
	if g.Unrecorded == 0 || g.Stops.Cancelled.RanOn == 0 || g.Stops.Cancelled.Stopped == 0 || g.Executions == 0 {
		o.Dump(t)
		t.Fatalf("gateway %+v: want the first target's calls stopped, the second's late echoes unrecorded and ran on", g.GatewayCounts)
	}
	if g.Unrecorded != g.Stops.Cancelled.RanOn {
		t.Errorf("unrecorded %d, ran on %d: want every late echo both", g.Unrecorded, g.Stops.Cancelled.RanOn)
	}
	if v := verdict(t, o, report.AreaGateway); v.Status != report.StatusNotObservable || !strings.Contains(v.Evidence, "echoed its marker") {
		t.Errorf("gateway verdict %q: %s; want incomplete truth naming the echoed marker", v.Status, v.Evidence)
	}
}

// bySession is a gateway that opens each new 2025 session (a request
// without Mcp-Session-Id) on the next of upstreams in turn and keeps the
// session's later requests there.
func bySession(t *testing.T, upstreams ...string) http.Handler {
	t.Helper()
	var mu sync.Mutex
	sessions := map[string]*httputil.ReverseProxy{}
	var proxies []*httputil.ReverseProxy
	for _, u := range upstreams {
		p := transparent(t, u).(*httputil.ReverseProxy)
		p.ModifyResponse = func(resp *http.Response) error {
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				mu.Lock()
				sessions[id] = p
				mu.Unlock()
			}
			return nil
		}
		proxies = append(proxies, p)
	}
	next := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		p := sessions[r.Header.Get("Mcp-Session-Id")]
		if p == nil {
			p = proxies[next%len(proxies)]
			next++
		}
		mu.Unlock()
		p.ServeHTTP(w, r)
	})
}
