package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// Real nginx (Debian's nginx-light, which .ci/run installs) on loopback in
// front of the built-in target, with the configurations and scenarios of
// examples/gateways as they are: only the addresses are replaced.

// gatewaysDir holds the nginx examples.
const gatewaysDir = "../examples/gateways"

// The addresses the examples are written for.
const (
	exampleListen   = "127.0.0.1:8000"
	exampleUpstream = "127.0.0.1:8080"
	exampleSecond   = "127.0.0.1:8081"
)

// startExampleNginx starts nginx with an example configuration in front of
// targets (one per upstream address the example names).
func startExampleNginx(t *testing.T, conf string, targets ...*targetserver.Running) *testutil.Nginx {
	t.Helper()
	return startExampleNginxEdited(t, conf, func(s string) string { return s }, targets...)
}

// startExampleNginxEdited is startExampleNginx with the configuration
// text passed through edit first.
func startExampleNginxEdited(t *testing.T, conf string, edit func(string) string, targets ...*targetserver.Running) *testutil.Nginx {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(gatewaysDir, conf))
	if err != nil {
		t.Fatal(err)
	}
	raw := edit(string(b))
	replace := map[string]string{}
	for i, r := range targets {
		replace[[]string{exampleUpstream, exampleSecond}[i]] = r.Addr
	}
	return testutil.StartNginx(t, raw, exampleListen, replace)
}

// startTarget starts a built-in HTTP target for the test's lifetime.
func startTarget(t *testing.T, cfg targetserver.Config) *targetserver.Running {
	t.Helper()
	r, err := targetserver.StartHTTP(context.Background(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// runExample runs an example scenario against the gateway at url, with
// targets (in the order of the example's gateway.truth) as its truth.
func runExample(t *testing.T, file, url string, targets ...*targetserver.Running) outcome {
	t.Helper()
	sc, err := scenarios.Load(filepath.Join(gatewaysDir, file))
	if err != nil {
		t.Fatalf("the example does not load:\n%v", err)
	}
	sc.Target.HTTP.URL = url
	if sc.Gateway == nil || len(sc.Gateway.Truth) != len(targets) {
		t.Fatalf("the example's gateway section names %v, want %d targets", sc.Gateway, len(targets))
	}
	for i, r := range targets {
		sc.Gateway.Truth[i] = "http://" + r.Addr
	}
	o := runPlan(t, sc, runtest.Plan(t, sc, bin.Need(t)))
	if o.Sum.Gateway == nil {
		t.Fatal("the summary has no gateway section")
	}
	return o
}

// ProgressHeld reports whether a call's progress reached us only with its
// result, from the client's record alone: it had progress, and its first
// notification arrived in the last quarter of the time from send to
// response (a call of ten 100 ms steps whose progress streams sees the
// first one after about a tenth). gateway.progress_held says the same with
// the target's send times; the test checks that both agree.
func ProgressHeld(rec *results.Record) bool {
	if rec.Progress == nil || rec.Progress.Count == 0 || rec.ResponseUs == 0 || rec.FirstProgUs == 0 {
		return false
	}
	service := rec.ResponseUs - rec.SentUs
	return rec.ResponseUs-rec.FirstProgUs <= service/4
}

// progressCalls counts the answered calls that had progress, and those
// among them whose progress was held.
func progressCalls(recs []*results.Record) (withProgress, held int) {
	for _, rec := range recs {
		if rec.Outcome != "ok" || rec.Progress == nil || rec.Progress.Count == 0 {
			continue
		}
		withProgress++
		if ProgressHeld(rec) {
			held++
		}
	}
	return withProgress, held
}

// TestNginxBuffering: behind nginx's default proxy_buffering, a target
// that does not send X-Accel-Buffering has every call's progress held
// until the result; with proxy_buffering off, or with the target sending
// the header, progress arrives as it is sent. Forced buffering (on, and
// the header ignored) holds it whatever the target sends.
func TestNginxBuffering(t *testing.T) {
	t.Parallel()
	testutil.NginxBinary(t)
	for _, tc := range []struct {
		name     string
		conf     string
		scenario string
		header   bool // the target sends X-Accel-Buffering: no
		forced   bool // proxy_buffering on; proxy_ignore_headers X-Accel-Buffering
		held     bool
	}{
		{name: "default buffering", conf: "nginx-buffering.conf", scenario: "nginx-buffering.yaml", held: true},
		{name: "default buffering, X-Accel-Buffering no", conf: "nginx-buffering.conf", scenario: "nginx-buffering.yaml", header: true},
		{name: "proxy_buffering off", conf: "nginx-streaming.conf", scenario: "nginx-streaming.yaml"},
		{name: "forced buffering, X-Accel-Buffering no ignored", conf: "nginx-buffering.conf", scenario: "nginx-buffering.yaml",
			header: true, forced: true, held: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := startTarget(t, targetserver.Config{XAccelBuffering: tc.header})
			edit := func(s string) string { return s }
			if tc.forced {
				edit = forceBuffering
			}
			ng := startExampleNginxEdited(t, tc.conf, edit, target)
			o := runExample(t, tc.scenario, ng.URL("/mcp"), target)
			withProgress, held := progressCalls(o.Recs)
			if withProgress == 0 {
				t.Fatalf("no answered call had progress (%d records)", len(o.Recs))
			}
			want := 0
			if tc.held {
				want = withProgress
			}
			if held != want {
				t.Errorf("%d of %d calls with progress had it held until the result, want %d", held, withProgress, want)
			}
			if g := o.Sum.Gateway; g.ProgressHeld != want || g.DuplicateExecutions != 0 || g.LostCancels != 0 {
				t.Errorf("gateway.progress_held %d (want %d), duplicate_executions %d, lost_cancels %d (want 0)",
					g.ProgressHeld, want, g.DuplicateExecutions, g.LostCancels)
			}
			s := o.Sum
			// Held progress is a stall on every call; progress that
			// flows may still stall on a busy machine (a gap over 2 s
			// was seen beside other work), so only the held case counts.
			if tc.held && s.Progress.Stalls < withProgress {
				t.Errorf("progress.stalls = %d, with %d calls with progress (held: %v)", s.Progress.Stalls, withProgress, tc.held)
			}
			if s.Calls.HTTPError != 0 || s.Progress.Violations.Total != 0 {
				t.Errorf("calls.http_error %d, progress.violations.total %d; want 0", s.Calls.HTTPError, s.Progress.Violations.Total)
			}
			checkNginxRecords(t, o, "http://"+target.Addr, withProgress, want)
		})
	}
}

// checkNginxRecords holds a TestNginxBuffering run against the target's
// own records (at base): each call executed once; held progress, by the
// target's clock, on exactly the calls the gateway section counts (want of
// withProgress); and each cancelled call (proxy_buffering off: nginx
// closes the upstream request, the 2026-07-28 cancel) learned of its
// cancel, or had answered first, as gateway.stops.cancelled says.
func checkNginxRecords(t *testing.T, o outcome, base string, withProgress, want int) {
	t.Helper()
	calls := targetCalls(t, base)
	g := o.Sum.Gateway
	// A call cancelled while nginx was still connecting upstream never
	// reaches the target (nginx drops it with the client's connection):
	// only a cancelled call may be missing there.
	by, missing := recordsBySeq(calls), 0
	for _, r := range o.Recs {
		if len(by[fmt.Sprint(r.Seq)]) == 0 {
			missing++
			if r.Outcome != results.Cancelled {
				t.Errorf("call %d (%s) never reached the target", r.Seq, r.Outcome)
			}
		}
	}
	if len(calls)+missing != len(o.Recs) || len(by) != len(calls) || g.Executions != len(calls) {
		t.Errorf("%d calls (%d cancelled before the target saw them), %d records at the target, %d calls recorded, %d executions joined: want each call executed once",
			len(o.Recs), missing, len(calls), len(by), g.Executions)
	}
	recorded, held := heldAtTarget(o.Recs, calls)
	if recorded != withProgress || held != want {
		t.Errorf("the target's records: %d of %d answered calls with progress reached us only after the call completed there, want %d of %d",
			held, recorded, want, withProgress)
	}
	learned, crossed, other := stopsAtTarget(o.Recs, calls)
	st := g.Stops.Cancelled
	if st.Stopped != learned+crossed || st.RanOn+st.Unknown != other {
		t.Errorf("gateway.stops.cancelled %+v; the target's records: %d cancelled calls learned of the cancel, %d answered first, %d neither (of %d cancelled)",
			st, learned, crossed, other, o.Sum.Calls.Cancelled)
	}
	t.Logf("the target's records: %s; of %d cancelled calls %d learned of the cancel, %d answered first; %d of %d calls with progress held",
		recordsLine(calls), o.Sum.Calls.Cancelled, learned, crossed, held, recorded)
}

// forceBuffering turns buffering on in an nginx example's location and
// makes nginx ignore the upstream's X-Accel-Buffering header.
func forceBuffering(conf string) string {
	const at = "proxy_set_header Host $host;"
	return strings.Replace(conf, at, at+"\n            proxy_buffering on;\n            proxy_ignore_headers X-Accel-Buffering;", 1)
}

// TestNginxRetry: nginx balancing over two targets with a 1 s read timeout
// and proxy_next_upstream error timeout non_idempotent sends a call that
// stays quiet for 2 s to both targets: each target's own counter of
// started calls counts every call, and the client gets 504.
func TestNginxRetry(t *testing.T) {
	t.Parallel()
	testutil.NginxBinary(t)
	a, b := startTarget(t, targetserver.Config{}), startTarget(t, targetserver.Config{})
	ng := startExampleNginx(t, "nginx-retry.conf", a, b)
	o := runExample(t, "nginx-retry.yaml", ng.URL("/mcp"), a, b)
	calls := o.Sum.Calls.Total
	if calls == 0 || o.Sum.Calls.HTTPError != calls {
		t.Fatalf("calls.total %d, calls.http_error %d: want every call answered with an HTTP error", calls, o.Sum.Calls.HTTPError)
	}
	if d := o.Sum.Gateway.DuplicateExecutions; d != calls {
		t.Errorf("gateway.duplicate_executions = %d, want every call (%d)", d, calls)
	}
	for _, rec := range o.Recs {
		if rec.Status != 504 {
			t.Errorf("call %d: status %d, want 504 (both upstreams timed out)", rec.Seq, rec.Status)
		}
	}
	const started = "mcpchaos_target_started_total"
	for name, r := range map[string]*targetserver.Running{"first": a, "second": b} {
		var got float64
		// A target counts a call when its handler starts, which the
		// second one does a read timeout after the first.
		ok := testutil.Poll(testutil.WaitLong, func() bool {
			got = testutil.MustScrape(t, r.MetricsURL)[started]
			return got >= float64(calls)
		})
		if !ok || got != float64(calls) {
			t.Errorf("the %s target's %s = %v, want %d: every quiet call run on both targets", name, started, got, calls)
		}
	}
}

// TestNginxExampleConfigs: every nginx configuration in examples/gateways
// passes `nginx -t` as written, and each has its scenario beside it.
func TestNginxExampleConfigs(t *testing.T) {
	t.Parallel()
	nginx := testutil.NginxBinary(t)
	confs, err := filepath.Glob(filepath.Join(gatewaysDir, "*.conf"))
	if err != nil || len(confs) == 0 {
		t.Fatalf("no nginx configuration in %s (%v)", gatewaysDir, err)
	}
	for _, conf := range confs {
		t.Run(filepath.Base(conf), func(t *testing.T) {
			abs, err := filepath.Abs(conf)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(nginx, "-t", "-p", dir+"/", "-c", abs).CombinedOutput()
			if err != nil {
				t.Errorf("nginx -t: %v\n%s", err, out)
			}
			yaml := strings.TrimSuffix(conf, ".conf") + ".yaml"
			if _, err := os.Stat(yaml); err != nil {
				t.Errorf("no scenario beside it: %v", err)
			}
		})
	}
}
