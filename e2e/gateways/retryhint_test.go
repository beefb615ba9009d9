package gateways

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestRetryHintRewrapped: a gateway that passes the target's Retry-After
// on in another form (a rate-limit header, the JSON-RPC error's data, or
// words in its message, as mcp-proxy and bridges do) did not lose it:
// gateway.retry_after_lost stays 0, and nothing else is reported.
func TestRetryHintRewrapped(t *testing.T) {
	for _, tc := range []struct {
		name string
		// rewrap moves the hint of seconds s out of the Retry-After
		// header into its form; body is the 429's JSON-RPC error.
		rewrap func(h http.Header, e map[string]any, s int)
		ok     bool // the answer becomes a 200 carrying the error
	}{
		{name: "RateLimit-Reset header", rewrap: func(h http.Header, _ map[string]any, s int) { h.Set("RateLimit-Reset", strconv.Itoa(s)) }},
		{name: "RateLimit field", rewrap: func(h http.Header, _ map[string]any, s int) {
			h.Set("RateLimit", `"default";r=0;t=`+strconv.Itoa(s))
		}},
		{name: "error data retryAfterMs", ok: true, rewrap: func(_ http.Header, e map[string]any, s int) {
			e["data"] = map[string]any{"retryAfterMs": s * 1000}
		}},
		{name: "error data retryAfter as text", ok: true, rewrap: func(_ http.Header, e map[string]any, s int) {
			e["data"] = map[string]any{"retryAfter": strconv.Itoa(s)}
		}},
		{name: "words in the message", ok: true, rewrap: func(_ http.Header, e map[string]any, s int) {
			e["message"] = "rate limit exceeded (retry after " + strconv.Itoa(s) + "s)"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := target(t, targetserver.Config{RateLimit: mustRate(t, "5/1s")})
			u, err := url.Parse(base(tg))
			if err != nil {
				t.Fatal(err)
			}
			var rewrapped atomic.Int64
			p := httputil.NewSingleHostReverseProxy(u)
			p.FlushInterval = -1
			p.ModifyResponse = func(resp *http.Response) error {
				s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
				if resp.StatusCode != http.StatusTooManyRequests || err != nil {
					return nil
				}
				var msg map[string]any
				body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
				resp.Body.Close()
				if err != nil || json.Unmarshal(body, &msg) != nil {
					t.Errorf("the target's 429 is not a JSON-RPC message: %q", body)
					return nil
				}
				e, _ := msg["error"].(map[string]any)
				resp.Header.Del("Retry-After")
				tc.rewrap(resp.Header, e, s)
				if tc.ok {
					resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
				}
				body, _ = json.Marshal(msg)
				resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
				rewrapped.Add(1)
				return nil
			}
			o := run(t, scenario(serve(t, p), "2026-07-28", []string{base(tg)}, `
load: {rate: 15/1s, duration: 2s}
calls:
  - {tool: echo, arguments: {text: hi}}
`))
			if rewrapped.Load() == 0 {
				t.Fatal("no 429 went through the gateway: the test proves nothing")
			}
			wantOnly(t, o, nil)
		})
	}
}
