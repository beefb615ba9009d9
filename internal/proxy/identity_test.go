package proxy_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// withHeader is an http.RoundTripper that sets one header on every
// request, as a client that names itself would.
type withHeader struct{ key, value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestClientIdentity: two 2026-07-28 SDK clients (no session) that name
// themselves with X-Client-Id, the proxy file's clients.identity_header,
// make the same throttled call at the same moment, then again after the
// Retry-After. Each client's second call is a re-issue of its own first
// (client B's first call is not taken for A's re-issue), and each first
// call's Retry-After is honoured by that client's own next call. Every
// record is in the --output file as its call settles, with its client.
func TestClientIdentity(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: throttle, status: 429, retry_after: 1s}\nclients: {identity_header: X-Client-Id}\n")
	outPath := filepath.Join(t.TempDir(), "calls.jsonl")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r.p.SetOutput(out)
	session := func(name string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "client-" + name, Version: "0"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: withHeader{"X-Client-Id", name}}}, nil)
		if err != nil {
			t.Fatalf("connect client %s: %v", name, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := session("a"), session("b")
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	echo := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "same"}}
	for round, pause := range []time.Duration{0, 1100 * time.Millisecond} {
		wait(ctx, pause)
		for name, cs := range map[string]*mcp.ClientSession{"a": a, "b": b} {
			if _, err := cs.CallTool(ctx, echo); err == nil {
				t.Fatalf("round %d, client %s: want the 429", round, name)
			}
		}
	}
	// The first round's records are written at each client's next call.
	testutil.Eventually(t, "the first round's records in --output", func() bool {
		b, _ := os.ReadFile(outPath)
		return strings.Count(string(b), "\n") >= 2
	})
	r.stop()
	recs := r.p.Records()
	sum := r.p.Summary().Clients
	if sum.Calls != 4 || sum.Reissued != 2 || sum.RetryAfterHonoured != 2 || sum.RetryAfterIgnored != 0 {
		t.Fatalf("want 4 calls, 2 re-issues, Retry-After honoured twice; got %+v\n%s", sum, dump(recs))
	}
	first := map[string]uint64{}
	for _, rec := range recs {
		if rec.Client != "X-Client-Id:a" && rec.Client != "X-Client-Id:b" {
			t.Fatalf("call %d: client %q, want X-Client-Id:a or :b", rec.Seq, rec.Client)
		}
		if s, ok := first[rec.Client]; !ok {
			first[rec.Client] = rec.Seq
			if rec.Reissue != "" {
				t.Errorf("call %d, the first of %s, recorded as a re-issue of %d", rec.Seq, rec.Client, rec.ReissueOf)
			}
		} else if rec.ReissueOf != s {
			t.Errorf("call %d of %s: a re-issue of %d, want of %d", rec.Seq, rec.Client, rec.ReissueOf, s)
		}
	}
	b2, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b2), "\n"); n != 4 || strings.Count(string(b2), `"client":"X-Client-Id:a"`) != 2 {
		t.Errorf("--output: %d lines, want 4, two of client a:\n%s", n, b2)
	}
}
