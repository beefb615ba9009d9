package targetserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// accepted counts the calls a limiter accepts when offered one every
// `every` for `over`.
func accepted(l limiter, every, over time.Duration) int {
	n := 0
	for t := time.Duration(0); t < over; t += every {
		if ok, _ := l.take(); ok {
			n++
		}
		time.Sleep(every)
	}
	return n
}

// TestLimiterShapes: each shape accepts what its definition says, after
// idle and under overload (in a synctest bubble: exact).
func TestLimiterShapes(t *testing.T) {
	per := func(n int, d time.Duration) Rate { return Rate{Freq: n, Per: d} }
	tests := []struct {
		name      string
		cfg       Config
		burst     int // accepted at once after idle
		overFor   time.Duration
		overload  int           // accepted at 1 ms spacing for overFor, right after the burst
		firstWait time.Duration // the wait the first refusal reports
	}{
		{"token bucket 30/s burst 10", Config{RateLimit: per(30, time.Second), RateLimitKind: "token_bucket", RateLimitBurst: 10},
			10, 2 * time.Second, 60, time.Second / 30},
		{"token bucket burst defaults to N", Config{RateLimit: per(20, time.Second), RateLimitKind: "token_bucket"},
			20, time.Second, 20, time.Second / 20},
		{"fixed window 50/2s", Config{RateLimit: per(50, 2*time.Second), RateLimitKind: "fixed_window"},
			50, 4500 * time.Millisecond, 100, 2 * time.Second},
		{"sliding window 30/1s", Config{RateLimit: per(30, time.Second)},
			30, 2500 * time.Millisecond, 60, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLimiter(tt.cfg)
				got := 0
				var wait time.Duration
				for range 3 * tt.burst {
					ok, w := l.take()
					if ok {
						got++
					} else if wait == 0 {
						wait = w
					}
				}
				if got != tt.burst || wait != tt.firstWait {
					t.Errorf("burst after idle: %d accepted, first wait %v; want %d, %v", got, wait, tt.burst, tt.firstWait)
				}
				if n := accepted(l, time.Millisecond, tt.overFor); n < tt.overload-1 || n > tt.overload+1 {
					t.Errorf("overload for %v: %d accepted, want %d ± 1", tt.overFor, n, tt.overload)
				}
			})
		})
	}
}

// TestFixedWindowDoubleBurst: a fixed window lets N through at the end of
// one window and N more right after the boundary; a sliding window never
// lets more than N through in any PERIOD.
func TestFixedWindowDoubleBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := Rate{Freq: 10, Per: time.Second}
		fixed, sliding := newLimiter(Config{RateLimit: r, RateLimitKind: "fixed_window"}), newLimiter(Config{RateLimit: r})
		time.Sleep(900 * time.Millisecond)
		if n, m := accepted(fixed, time.Millisecond, 200*time.Millisecond), accepted(sliding, time.Millisecond, 200*time.Millisecond); n != 20 || m != 10 {
			t.Errorf("200 ms around a boundary: fixed %d, sliding %d; want 20, 10", n, m)
		}
	})
}

// oneCallServer starts an HTTP target with cfg and a rate limit of one
// call per 10 s, and returns it and a function that posts an echo call.
func oneCallServer(t *testing.T, cfg Config) (*Running, func(id int) *http.Response) {
	t.Helper()
	cfg.RateLimit = oneCall
	r := startHTTP(t, cfg)
	return r, func(id int) *http.Response {
		return post(t, t.Context(), http.MethodPost, r.URL, modernHeaders("tools/call", ToolEcho), modernCall(id, ToolEcho, map[string]any{"text": "x"}, ""))
	}
}

// TestRefusalSignals: each rate_limit_signal and retry_after answers a
// refused HTTP call as documented.
func TestRefusalSignals(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		status     int
		retryAfter string // the header; "" absent
		body       string // a substring of the answer
	}{
		{"429 honest", Config{}, 429, "10", `"message":"rate limit exceeded"`},
		{"503", Config{RateLimitSignal: "http_503"}, 503, "10", `"code":-31429`},
		{"rpc code with data", Config{RateLimitSignal: "rpc_code"}, 200, "10", `"data":{"retryAfter":10}`},
		{"tool message", Config{RateLimitSignal: "tool_message"}, 200, "10", `rate limit exceeded (retry after 10s)`},
		{"absent", Config{RetryAfter: "absent"}, 429, "", `"message":"rate limit exceeded"`},
		{"too long", Config{RetryAfter: "too_long"}, 429, "32", `"id":2`},
		{"too short", Config{RetryAfter: "too_short", RateLimitSignal: "tool_message"}, 200, "3", `(retry after 3s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, call := oneCallServer(t, tt.cfg)
			call(1).Body.Close()
			resp := call(2)
			defer resp.Body.Close()
			var b strings.Builder
			for _, m := range rpcMessages(t, resp) {
				b.WriteString(mustJSON(t, m))
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter || !strings.Contains(b.String(), tt.body) {
				t.Errorf("refusal: status %d, Retry-After %q, body %s; want %d, %q, one holding %s",
					resp.StatusCode, resp.Header.Get("Retry-After"), b.String(), tt.status, tt.retryAfter, tt.body)
			}
			wantStats(t, r.Server.Stats(), Stats{Started: 1, Completed: 1, Throttled: 1})
		})
	}
}

// TestRateLimitHeaders: rate_limit_headers claims the limit (or twice it)
// in a refusal's RateLimit-* headers, with the honest wait whatever
// retry_after says, and none when off.
func TestRateLimitHeaders(t *testing.T) {
	tests := []struct {
		name                            string
		cfg                             Config
		limit, policy, reset, remaining string // "" absent
	}{
		{"none", Config{}, "", "", "", ""},
		{"honest", Config{RateLimitHeaders: "honest"}, "1", "1;w=10", "10", "0"},
		{"wrong, with a Retry-After too long", Config{RateLimitHeaders: "wrong", RetryAfter: "too_long"}, "2", "2;w=10", "10", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, call := oneCallServer(t, tt.cfg)
			ok := call(1)
			ok.Body.Close()
			if ok.Header.Get("RateLimit-Limit") != "" {
				t.Errorf("an accepted call carries RateLimit-Limit %q", ok.Header.Get("RateLimit-Limit"))
			}
			resp := call(2)
			resp.Body.Close()
			h := resp.Header
			if h.Get("RateLimit-Limit") != tt.limit || h.Get("RateLimit-Policy") != tt.policy || h.Get("RateLimit-Reset") != tt.reset || h.Get("RateLimit-Remaining") != tt.remaining {
				t.Errorf("refusal's headers: limit %q policy %q reset %q remaining %q; want %q %q %q %q", h.Get("RateLimit-Limit"), h.Get("RateLimit-Policy"),
					h.Get("RateLimit-Reset"), h.Get("RateLimit-Remaining"), tt.limit, tt.policy, tt.reset, tt.remaining)
			}
		})
	}
}

// TestConcurrencyAndWorkers: with concurrency_limit 2, a third slow call
// running beside two is refused; with workers 1 nothing is refused and the
// second call waits for the first. rate_limit_tool spares the other tools.
func TestConcurrencyAndWorkers(t *testing.T) {
	t.Parallel()
	run3 := func(cs *mcp.ClientSession) (refused int, took time.Duration) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for range 3 {
			wg.Go(func() {
				slow := &mcp.CallToolParams{Name: ToolSlowTask, Arguments: map[string]any{"steps": 1, "step_ms": 300}}
				res, err := cs.CallTool(t.Context(), slow)
				mu.Lock()
				defer mu.Unlock()
				if err != nil || res.IsError {
					refused++
				}
			})
		}
		wg.Wait()
		return refused, time.Since(start)
	}
	_, capped := startStdio(t, Config{ConcurrencyLimit: 2}, "", nil)
	if n, _ := run3(capped); n != 1 {
		t.Errorf("concurrency_limit 2: %d of 3 simultaneous calls refused, want 1", n)
	}
	_, queued := startStdio(t, Config{Workers: 1}, "", nil)
	if n, took := run3(queued); n != 0 || took < 850*time.Millisecond {
		t.Errorf("workers 1: %d refused in %v; want 0 refused, at least 900ms (three 300 ms calls one after another)", n, took)
	}
	_, other := startStdio(t, Config{ConcurrencyLimit: 1, RateLimitTool: "echo"}, "", nil)
	if n, _ := run3(other); n != 0 {
		t.Errorf("a cap on echo refused %d slow_task calls", n)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRateLimitPerTool: limited tools share one budget by default; with
// rate_limit_per_tool each has its own.
func TestRateLimitPerTool(t *testing.T) {
	for _, perTool := range []bool{false, true} {
		t.Run(fmt.Sprintf("per tool %v", perTool), func(t *testing.T) {
			r := startHTTP(t, Config{RateLimit: oneCall, RateLimitPerTool: perTool})
			call := func(id int, tool string, args map[string]any) int {
				resp := post(t, t.Context(), http.MethodPost, r.URL, modernHeaders("tools/call", tool), modernCall(id, tool, args, ""))
				resp.Body.Close()
				return resp.StatusCode
			}
			first := call(1, ToolEcho, map[string]any{"text": "x"})
			other := call(2, ToolSlowTask, map[string]any{"steps": 1, "step_ms": 1})
			again := call(3, ToolEcho, map[string]any{"text": "x"})
			wantOther := http.StatusTooManyRequests
			if perTool {
				wantOther = http.StatusOK
			}
			if first != http.StatusOK || other != wantOther || again != http.StatusTooManyRequests {
				t.Errorf("echo %d, slow_task %d, echo again %d; want 200, %d, 429", first, other, again, wantOther)
			}
		})
	}
}
