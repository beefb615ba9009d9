//go:build timing

package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// limitsWant is the truth of a limiter, to compare `mcpchaos limits`'s
// answers with: rate within 10 %, burst within 2 or 25 %, the window kind
// and concurrency exact, the Retry-After verdict and the tools' scope right
// (empty or zero: not compared).
type limitsWant struct {
	rate        float64
	burst       int
	window      string
	windowS     float64
	concurrency int
	retryAfter  string
	tools       map[string]string
	headers     string // the verdict on the rate-limit headers' claim
	budget      string // shared or per_tool
	lockout     string // the lockout verdict
	refusalCost string // cheap or costly
	toolsList   string // limits.counts.tools_list
	initialize  string // limits.counts.initialize
	identities  string // limits.identities
}

// checkLimits compares a limits summary with the truth.
func checkLimits(t *testing.T, m map[string]any, want limitsWant) {
	t.Helper()
	got := func(key string) any { v, _ := lookup(m, key); return v }
	if want.rate > 0 {
		if r, ok := got("limits.rate").(float64); !ok || math.Abs(r-want.rate) > 0.1*want.rate {
			t.Errorf("limits.rate = %v, want %v ± 10%%", got("limits.rate"), want.rate)
		}
	}
	if want.burst > 0 {
		b, ok := got("limits.burst").(float64)
		if tol := math.Max(2, 0.25*float64(want.burst)); !ok || math.Abs(b-float64(want.burst)) > tol {
			t.Errorf("limits.burst = %v, want %d ± %.0f", got("limits.burst"), want.burst, tol)
		}
	}
	if w := got("limits.window"); want.window != "-" && w != want.window {
		t.Errorf("limits.window = %v, want %s", w, want.window)
	}
	if want.windowS > 0 {
		if w, ok := got("limits.window_s").(float64); !ok || math.Abs(w-want.windowS) > 0.1*want.windowS {
			t.Errorf("limits.window_s = %v, want %v ± 10%%", got("limits.window_s"), want.windowS)
		}
	}
	if want.concurrency > 0 && got("limits.concurrency") != float64(want.concurrency) {
		t.Errorf("limits.concurrency = %v, want %d", got("limits.concurrency"), want.concurrency)
	}
	if want.retryAfter != "" && got("limits.retry_after.verdict") != want.retryAfter {
		t.Errorf("limits.retry_after.verdict = %v, want %s", got("limits.retry_after.verdict"), want.retryAfter)
	}
	if want.budget != "" && got("limits.budget") != want.budget {
		t.Errorf("limits.budget = %v, want %s", got("limits.budget"), want.budget)
	}
	if want.headers != "" && got("limits.headers.verdict") != want.headers {
		t.Errorf("limits.headers.verdict = %v, want %s", got("limits.headers.verdict"), want.headers)
	}
	if want.lockout != "" && got("limits.lockout.verdict") != want.lockout {
		t.Errorf("limits.lockout.verdict = %v, want %s", got("limits.lockout.verdict"), want.lockout)
	}
	if want.refusalCost != "" && got("limits.overload.refusal_cost") != want.refusalCost {
		t.Errorf("limits.overload.refusal_cost = %v, want %s", got("limits.overload.refusal_cost"), want.refusalCost)
	}
	if want.toolsList != "" && got("limits.counts.tools_list") != want.toolsList {
		t.Errorf("limits.counts.tools_list = %v, want %s", got("limits.counts.tools_list"), want.toolsList)
	}
	if want.initialize != "" && got("limits.counts.initialize") != want.initialize {
		t.Errorf("limits.counts.initialize = %v, want %s", got("limits.counts.initialize"), want.initialize)
	}
	if want.identities != "" && got("limits.identities") != want.identities {
		t.Errorf("limits.identities = %v, want %s", got("limits.identities"), want.identities)
	}
	for tool, scope := range want.tools {
		if g := got("limits.tools." + tool); g != scope {
			t.Errorf("limits.tools.%s = %v, want %s", tool, g, scope)
		}
	}
	if s, ok := got("limits.search_s").(float64); !ok || s > 60.5 {
		t.Errorf("limits.search_s = %v, want within the 60 s budget", got("limits.search_s"))
	}
}

// runLimits runs `mcpchaos limits` on a scenario and returns its summary.
func runLimits(t *testing.T, scenario string, args ...string) map[string]any {
	t.Helper()
	dir := t.TempDir()
	path := writeScenario(t, "s.yaml", scenario)
	sum := filepath.Join(dir, "s.json")
	code, stdout, stderr := runCLI(t, context.Background(), append([]string{"limits", path, "-q", "--summary-json", sum}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	t.Logf("%s", stdout[:min(len(stdout), 1200)])
	return readJSON(t, sum)
}

// builtinScenario is a scenario on the built-in target with knobs, calling
// calls.
func builtinScenario(knobs, calls, extra string) string {
	return fmt.Sprintf(`name: shape
seed: 1
target: {builtin: {transport: http, %s}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls:
%s
orphans: {grace: 100ms}
%s`, knobs, calls, extra)
}

const echoCall = "  - {tool: echo, arguments: {text: hi}}"

// identities are two clients with API keys of their own.
const identities = "identities: [{name: alice, headers: {X-Api-Key: a}}, {name: bob, headers: {X-Api-Key: b}}]"

// TestLimitsShapes runs `mcpchaos limits` against every limiter shape of
// the built-in target and compares the answers with the truth.
func TestLimitsShapes(t *testing.T) {
	tests := []struct {
		name                string
		knobs, calls, extra string
		want                limitsWant
	}{
		{"token bucket 30/s burst 10", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10", echoCall, "",
			limitsWant{rate: 30, burst: 10, window: "token_bucket", retryAfter: "honest", lockout: "none", refusalCost: "cheap", toolsList: "free", initialize: "free"}},
		{"token bucket 30/s burst 10 counting every request", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, rate_limit_methods: all", echoCall, "",
			limitsWant{rate: 30, burst: 10, window: "token_bucket", retryAfter: "honest", toolsList: "counts", initialize: "counts"}},
		// A client that ignores the hints is locked out: the hold's rate
		// is what such a client gets (about 10 per 5 s), not the truth,
		// and the window's kind is what the lock-outs make it look like
		// (a sliding window of the burst over the lock-out, in one run).
		{"token bucket 30/s burst 10, 5 s lock-out for early retries", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, rate_limit_lockout: 5s", echoCall, "",
			limitsWant{window: "-", lockout: "locked_out"}},
		{"token bucket 30/s burst 10 for each X-Api-Key, two identities", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, rate_limit_key: x-api-key", echoCall, identities,
			limitsWant{rate: 30, burst: 10, window: "token_bucket", retryAfter: "honest", identities: "per_identity"}},
		{"token bucket 30/s burst 10 shared by two identities", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10", echoCall, identities,
			limitsWant{rate: 30, burst: 10, window: "token_bucket", retryAfter: "honest", identities: "shared"}},
		{"token bucket 30/s burst 10, refusals take 100 ms", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, refusal_delay: 100ms", echoCall, "",
			limitsWant{rate: 30, burst: 10, window: "token_bucket", retryAfter: "honest", lockout: "none", refusalCost: "costly"}},
		{"fixed window 50/2s", "rate_limit: 50/2s, rate_limit_kind: fixed_window", echoCall, "",
			limitsWant{rate: 25, burst: 50, window: "fixed_window", windowS: 2, retryAfter: "honest"}},
		{"sliding window 30/1s", "rate_limit: 30/1s", echoCall, "",
			limitsWant{rate: 30, burst: 30, window: "sliding_window", windowS: 1, retryAfter: "honest"}},
		{"concurrency 4, slow calls, 503", "concurrency_limit: 4, rate_limit_signal: http_503", "  - {tool: slow_task, arguments: {steps: 1, step_ms: 500}}", "",
			limitsWant{burst: 4, window: "concurrency", concurrency: 4}},
		{"token bucket 20/s on echo only, isError text", "rate_limit: 20/1s, rate_limit_kind: token_bucket, rate_limit_tool: echo, rate_limit_signal: tool_message",
			echoCall + "\n  - {tool: slow_task, arguments: {steps: 1, step_ms: 1}}", `throttling: {tool_message: "rate limit exceeded"}`,
			limitsWant{rate: 20, burst: 20, window: "token_bucket", tools: map[string]string{"echo": "limited", "slow_task": "unlimited"}}},
		{"token bucket, Retry-After too long", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, retry_after: too_long", echoCall, "",
			limitsWant{rate: 30, window: "token_bucket", retryAfter: "too_long"}},
		{"token bucket 30/s burst 10, honest RateLimit headers", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, rate_limit_headers: honest", echoCall, "",
			limitsWant{rate: 30, burst: 10, window: "token_bucket", retryAfter: "honest", headers: "honest"}},
		{"sliding window 30/1s, RateLimit headers claiming 60", "rate_limit: 30/1s, rate_limit_headers: wrong", echoCall, "",
			limitsWant{rate: 30, window: "sliding_window", windowS: 1, headers: "too_high"}},
		{"token bucket 20/s shared by two tools", "rate_limit: 20/1s, rate_limit_kind: token_bucket", echoCall + "\n  - {tool: slow_task, arguments: {steps: 1, step_ms: 1}}", "",
			limitsWant{rate: 20, window: "token_bucket", tools: map[string]string{"echo": "limited", "slow_task": "limited"}, budget: "shared"}},
		{"token bucket 20/s for each of two tools", "rate_limit: 20/1s, rate_limit_kind: token_bucket, rate_limit_per_tool: true", echoCall + "\n  - {tool: slow_task, arguments: {steps: 1, step_ms: 1}}", "",
			limitsWant{rate: 40, window: "token_bucket", tools: map[string]string{"echo": "limited", "slow_task": "limited"}, budget: "per_tool"}},
		{"JSON-RPC code with data.retryAfter", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 10, rate_limit_signal: rpc_code", echoCall, "throttling: {rpc_codes: [-31429]}",
			limitsWant{rate: 30, window: "token_bucket", retryAfter: "honest"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLimits(t, runLimits(t, builtinScenario(tt.knobs, tt.calls, tt.extra)), tt.want)
		})
	}
}

// fixedLimiter is a limiter of our own in front of a real SDK server: at
// most n calls (any POST with a tools/call) in each window of per, 429 with
// an honest Retry-After and honest X-RateLimit-* and RateLimit-Policy
// headers.
type fixedLimiter struct {
	n     int
	per   time.Duration
	start time.Time
	mu    sync.Mutex
	win   int64
	used  int
}

func (l *fixedLimiter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Method") != "tools/call" {
			next.ServeHTTP(w, r)
			return
		}
		l.mu.Lock()
		since := time.Since(l.start)
		if i := int64(since / l.per); i != l.win {
			l.win, l.used = i, 0
		}
		ok := l.used < l.n
		if ok {
			l.used++
		}
		wait := time.Duration(l.win+1)*l.per - since
		l.mu.Unlock()
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		// GitHub's style of headers, with the draft's policy for the window.
		w.Header().Set("X-RateLimit-Limit", strconv.Itoa(l.n))
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(wait).Unix()+1, 10))
		w.Header().Set("RateLimit-Policy", fmt.Sprintf("%d;w=%g", l.n, l.per.Seconds()))
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
}

// TestLimitsSDKServer: a real server on the official Go SDK behind a
// fixed window of 40 per 2 s of our own, over loopback HTTP.
func TestLimitsSDKServer(t *testing.T) {
	h := pingServer()
	lim := &fixedLimiter{n: 40, per: 2 * time.Second, start: time.Now()}
	srv := httptest.NewServer(lim.wrap(h))
	defer srv.Close()
	m := runLimits(t, pingScenario(srv.URL))
	checkLimits(t, m, limitsWant{rate: 20, burst: 40, window: "fixed_window", windowS: 2, retryAfter: "honest", headers: "honest", lockout: "none", refusalCost: "cheap"})
}

// TestLimitsCapacity: with checks, the highest rate at which they hold.
// Four workers doing 50 ms calls serve at most 80/s; past that, latency
// grows without bound, so the p99 check holds a little below 80/s. A token
// bucket of 30/s with no burst to spare refuses calls above 30/s, so a
// check of no throttling holds up to 30/s, and a check on cancellation,
// which a step (no faults) cannot exercise, is left out and noted.
func TestLimitsCapacity(t *testing.T) {
	tests := []struct {
		name, knobs, check string
		lo, hi             float64
		bound              string
	}{
		{"four workers, p99 under 300 ms", "workers: 4", "p99(call) < 300ms", 68, 84, "server"},
		{"token bucket 30/s, nothing throttled", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 3", "calls.throttled == 0", 27, 33, "limiter"},
		{"token bucket 30/s, and a check on cancellation", "rate_limit: 30/1s, rate_limit_kind: token_bucket, rate_limit_burst: 3",
			"calls.throttled == 0', 'cancellation.leftover_calls == 0", 27, 33, "limiter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := runLimits(t, builtinScenario(tt.knobs, "  - {tool: slow_task, arguments: {steps: 1, step_ms: 50}}", "checks: ['"+tt.check+"']"),
				"--max-rate", "400/1s")
			c, ok := func() (float64, bool) { v, _ := lookup(m, "limits.capacity"); f, ok := v.(float64); return f, ok }()
			if !ok || c < tt.lo || c > tt.hi {
				t.Errorf("limits.capacity = %v, want %v to %v", c, tt.lo, tt.hi)
			}
			if b, _ := lookup(m, "limits.capacity_bound"); b != tt.bound {
				t.Errorf("limits.capacity_bound = %v, want %s", b, tt.bound)
			}
			ev, _ := lookup(m, "limits.evidence")
			if left := strings.Contains(fmt.Sprint(ev), "checks left out"); left != strings.Contains(tt.check, "cancellation.") {
				t.Errorf("limits.evidence %v: a note of checks left out %v, want it only with the cancellation check", ev, left)
			}
		})
	}
}

// requestBucket is a limiter of our own in front of a real SDK server: a
// token bucket of rate per second holding burst, from which every request
// takes (any POST but a notification: initialize, tools/list, tools/call),
// 429 with an honest Retry-After.
type requestBucket struct {
	rate, burst float64
	mu          sync.Mutex
	tokens      float64
	last        time.Time
}

func (b *requestBucket) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || strings.HasPrefix(r.Header.Get("Mcp-Method"), "notifications/") {
			next.ServeHTTP(w, r)
			return
		}
		b.mu.Lock()
		now := time.Now()
		if b.last.IsZero() {
			b.tokens = b.burst
		} else {
			b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
		}
		b.last = now
		ok := b.tokens >= 1
		if ok {
			b.tokens--
		}
		wait := (1 - b.tokens) / b.rate
		b.mu.Unlock()
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait)))))
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
}

// TestLimitsSDKServerEveryRequest: a real server on the official Go SDK
// behind a token bucket of 20/s holding 5 that every request takes from,
// over loopback HTTP: tools/list and server/discover count.
func TestLimitsSDKServerEveryRequest(t *testing.T) {
	h := pingServer()
	srv := httptest.NewServer((&requestBucket{rate: 20, burst: 5}).wrap(h))
	defer srv.Close()
	m := runLimits(t, pingScenario(srv.URL), "--no-schema-check")
	checkLimits(t, m, limitsWant{rate: 20, burst: 5, window: "token_bucket", retryAfter: "honest", lockout: "none", refusalCost: "cheap",
		toolsList: "counts", initialize: "counts"})
}

// pingServer is a real server on the official Go SDK, stateless, with one
// tool, ping.
func pingServer() http.Handler {
	s := sdk.NewServer(&sdk.Implementation{Name: "limited", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "ping", InputSchema: rawSchema(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil, nil
		})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
}

// pingScenario calls ping on the server at url.
func pingScenario(url string) string {
	return fmt.Sprintf(`name: sdk
seed: 1
target: {http: {url: %q}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls: [{tool: ping, arguments: {}}]
`, url)
}
