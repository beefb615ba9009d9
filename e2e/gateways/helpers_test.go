package gateways

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
	"github.com/mcpchaos/mcpchaos/report"
)

// target starts a built-in target on loopback with the knobs of cfg.
func target(t *testing.T, cfg targetserver.Config) *targetserver.Running {
	t.Helper()
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	r, err := targetserver.StartHTTP(context.Background(), cfg, "")
	if err != nil {
		t.Fatalf("start the target: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// base is a target's base URL, the gateway section's truth.
func base(r *targetserver.Running) string { return "http://" + r.Addr }

// serve serves a gateway on a loopback listener and returns its base URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// transparent is the reference: httputil.ReverseProxy flushing every write.
func transparent(t *testing.T, upstream string) http.Handler {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	return p
}

// scenario is a run through the gateway at gw of the given era, with the
// truth read from targets; body holds load, calls, faults...
func scenario(gw, era string, targets []string, body string) string {
	return fmt.Sprintf(`
name: gateway
seed: 7
protocol: %s
target: {http: {url: "%s/mcp"}}
gateway: {truth: ["%s"]}
timeouts: {idle: 20s, max: 30s}
orphans: {grace: 200ms, drain_max: 2s}
fail_on_violation: false
%s`, era, gw, strings.Join(targets, `", "`), body)
}

// run runs a scenario and returns its summary.
func run(t *testing.T, yaml string) *runtest.Outcome {
	t.Helper()
	sc := runtest.Parse(t, yaml)
	plan := runtest.Plan(t, sc, "")
	plan.Orphans.QuietWindow = 200 * time.Millisecond
	return runtest.Run(t, sc, plan)
}

// gatewayCounts are the summary's counted misbehaviours, by key.
func gatewayCounts(g *report.GatewaySummary) map[string]int {
	return map[string]int{
		"duplicate_executions": g.DuplicateExecutions,
		"misdirected_cancels":  g.MisdirectedCancels,
		"lost_cancels":         g.LostCancels,
		"crossed_responses":    g.CrossedResponses,
		"progress_held":        g.ProgressHeld,
		"progress_lost":        g.ProgressLost,
		"retry_after_lost":     g.RetryAfterLost,
		"progress_reordered":   g.ProgressReordered,

		"progress_after_lost_cancel": g.ProgressAfterLostCancel,
	}
}

// wantOnly checks that the run reported exactly want (every other count
// 0), read every call's truth without error, and that the gateway verdict
// says so.
func wantOnly(t *testing.T, o *runtest.Outcome, want map[string]int) {
	t.Helper()
	g := o.Sum.Gateway
	if g == nil {
		o.Dump(t)
		t.Fatal("the summary has no gateway section")
	}
	bad := false
	for k, got := range gatewayCounts(g) {
		if got != want[k] {
			t.Errorf("gateway.%s = %d, want %d", k, got, want[k])
			bad = true
		}
	}
	if len(g.Errors) > 0 {
		t.Errorf("gateway errors: %v", g.Errors)
		bad = true
	}
	if g.Executions == 0 || g.Calls == 0 {
		t.Errorf("gateway.calls %d, executions %d: nothing was joined", g.Calls, g.Executions)
		bad = true
	}
	var v *report.Verdict
	for i := range o.Sum.Verdicts {
		if o.Sum.Verdicts[i].Area == report.AreaGateway {
			v = &o.Sum.Verdicts[i]
		}
	}
	wantStatus := report.StatusPass
	for _, n := range want {
		if n > 0 {
			wantStatus = report.StatusViolation
		}
	}
	switch {
	case v == nil:
		t.Errorf("no gateway verdict")
		bad = true
	case v.Status != wantStatus:
		t.Errorf("gateway verdict %q, want %q: %s", v.Status, wantStatus, v.Evidence)
		bad = true
	default:
		t.Logf("gateway verdict %s: %s", v.Status, v.Evidence)
	}
	if bad {
		o.Dump(t)
	}
}

// mustRate parses a rate limit knob.
func mustRate(t *testing.T, s string) targetserver.Rate {
	t.Helper()
	r, err := knobs.ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
