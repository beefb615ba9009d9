package targetserver

import (
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// TestLockout: a client that waits as told after a refusal is accepted
// when the wait is over; one that comes back before it is locked out for
// rate_limit_lockout, calls during the lock-out not lengthening it (in a
// synctest bubble: exact).
func TestLockout(t *testing.T) {
	cfg := Config{RateLimit: Rate{Freq: 10, Per: time.Second}, RateLimitKind: "token_bucket", RateLimitBurst: 1, RateLimitLockout: 5 * time.Second}
	tests := []struct {
		name  string
		early bool          // retry 10 ms after the refusal, before its 100 ms wait, and every 10 ms after
		after time.Duration // when, after the refusal, a call is accepted again
		wait  time.Duration // the wait of the refusal that the retry got
	}{
		{"waits as told", false, 110 * time.Millisecond, 0},
		{"retries early", true, 5010 * time.Millisecond, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLimiter(cfg)
				if ok, _ := l.take(); !ok {
					t.Fatal("the first call after idle was refused")
				}
				ok, wait := l.take()
				if ok || wait != 100*time.Millisecond {
					t.Fatalf("second call at once: ok %v, wait %v; want refused, 100ms", ok, wait)
				}
				start := time.Now()
				if !tt.early {
					time.Sleep(wait)
				} else {
					time.Sleep(10 * time.Millisecond)
					if ok, w := l.take(); ok || w != tt.wait {
						t.Fatalf("early retry: ok %v, wait %v; want refused, %v", ok, w, tt.wait)
					}
				}
				for !takeAfter(l, 10*time.Millisecond) {
				}
				if got := time.Since(start); got != tt.after {
					t.Errorf("accepted again %v after the refusal, want %v", got, tt.after)
				}
			})
		})
	}
}

// takeAfter takes from l after d.
func takeAfter(l limiter, d time.Duration) bool {
	time.Sleep(d)
	ok, _ := l.take()
	return ok
}

// TestRefusalDelay: with refusal_delay a refused call's answer comes only
// after the delay; an accepted one is not held.
func TestRefusalDelay(t *testing.T) {
	t.Parallel()
	_, call := oneCallServer(t, Config{RefusalDelay: 300 * time.Millisecond})
	start := time.Now()
	ok := call(1)
	ok.Body.Close()
	accepted := time.Since(start)
	start = time.Now()
	resp := call(2)
	resp.Body.Close()
	refused := time.Since(start)
	if ok.StatusCode != http.StatusOK || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("statuses %d, %d; want 200, 429", ok.StatusCode, resp.StatusCode)
	}
	if refused < 300*time.Millisecond {
		t.Errorf("the refusal came after %v, want at least the 300ms delay (the accepted call took %v)", refused, accepted)
	}
}

// TestRateLimitMethods: by default only tools/call takes from the rate
// limit; with rate_limit_methods all, tools/list does too and is refused
// when the limit is spent.
func TestRateLimitMethods(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + vocab.FirstModern +
		`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}`
	tests := []struct {
		methods          string
		listed, afterAll int // the statuses of tools/list, then of a tools/call
	}{
		{"tools_call", http.StatusOK, http.StatusOK},
		{"all", http.StatusOK, http.StatusTooManyRequests},
	}
	for _, tt := range tests {
		t.Run(tt.methods, func(t *testing.T) {
			t.Parallel()
			r, call := oneCallServer(t, Config{RateLimitMethods: tt.methods})
			resp := post(t, t.Context(), http.MethodPost, r.URL, modernHeaders("tools/list", ""), list)
			resp.Body.Close()
			second := post(t, t.Context(), http.MethodPost, r.URL, modernHeaders("tools/list", ""), list)
			second.Body.Close()
			c := call(1)
			c.Body.Close()
			wantSecond := http.StatusOK
			if tt.methods == "all" {
				wantSecond = http.StatusTooManyRequests
			}
			if resp.StatusCode != tt.listed || second.StatusCode != wantSecond || c.StatusCode != tt.afterAll {
				t.Errorf("tools/list %d, again %d, tools/call %d; want %d, %d, %d", resp.StatusCode, second.StatusCode, c.StatusCode, tt.listed, wantSecond, tt.afterAll)
			}
		})
	}
}

// TestRateLimitKey: with rate_limit_key each value of the header has a
// limit of its own (and requests without it one more); without it, every
// client shares one.
func TestRateLimitKey(t *testing.T) {
	tests := []struct {
		key  string
		want [4]int // alice, alice again, bob, no key
	}{
		{"none", [4]int{http.StatusOK, http.StatusTooManyRequests, http.StatusTooManyRequests, http.StatusTooManyRequests}},
		{"x-api-key", [4]int{http.StatusOK, http.StatusTooManyRequests, http.StatusOK, http.StatusOK}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			r := startHTTP(t, Config{RateLimit: oneCall, RateLimitKey: tt.key})
			call := func(id int, apiKey string) int {
				h := modernHeaders("tools/call", ToolEcho)
				if apiKey != "" {
					h["X-Api-Key"] = apiKey
				}
				resp := post(t, t.Context(), http.MethodPost, r.URL, h, modernCall(id, ToolEcho, map[string]any{"text": "x"}, ""))
				resp.Body.Close()
				return resp.StatusCode
			}
			got := [4]int{call(1, "alice"), call(2, "alice"), call(3, "bob"), call(4, "")}
			if got != tt.want {
				t.Errorf("alice, alice again, bob, no key: %v, want %v", got, tt.want)
			}
		})
	}
}
