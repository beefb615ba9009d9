package gateways

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestStrippedRetryAfter: a proxy that drops Retry-After from every 429
// (as one that rewraps the answer does) is caught once per throttled call
// it stripped, and nothing else is reported.
func TestStrippedRetryAfter(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{RateLimit: mustRate(t, "5/1s")})
	u, err := url.Parse(base(tg))
	if err != nil {
		t.Fatal(err)
	}
	var stripped atomic.Int64
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	p.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "" {
			resp.Header.Del("Retry-After")
			stripped.Add(1)
		}
		return nil
	}
	o := run(t, scenario(serve(t, p), "2026-07-28", []string{base(tg)}, `
load: {rate: 15/1s, duration: 2s}
calls:
  - {tool: echo, arguments: {text: hi}}
`))
	n := int(stripped.Load())
	if n == 0 {
		t.Fatal("no 429 went through the proxy: the test proves nothing")
	}
	if o.Sum.Calls.Throttled != n {
		t.Errorf("calls.throttled = %d, the proxy passed on %d 429s", o.Sum.Calls.Throttled, n)
	}
	wantOnly(t, o, map[string]int{"retry_after_lost": n})
}
