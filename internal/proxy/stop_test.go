package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// stopCalls are the two calls in flight when the proxy is interrupted:
// a slow_task no fault hits (forwarded as it streams) and an echo whose
// answer progress_endless withholds.
var stopCalls = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":600,"step_ms":100},"_meta":{"progressToken":"t1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"held"},"_meta":{"progressToken":"t2","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
}

const stopFaults = "  - {kind: progress_endless, every: 100ms, tools: [echo]}\n"

// TestStopEndsCallsOpen interrupts the proxy, on each front, with two
// calls in flight (stopCalls): both are open_at_stop, in Records and in
// the output, and no client is counted as having cancelled; the proxy's
// own stop is not the client's cancel.
func TestStopEndsCallsOpen(t *testing.T) {
	tests := []struct {
		name string
		// start serves p in front of the target, sends stopCalls and
		// returns the interrupt, which returns once the proxy stopped.
		start func(t *testing.T, target string) (*proxy.Proxy, func())
	}{
		{name: "streamable HTTP", start: startHTTPCalls},
		{name: "stdio", start: startStdioCalls},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target, err := targetserver.StartHTTP(t.Context(), targetserver.Config{}, "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { target.Close() })
			p, interrupt := tc.start(t, target.URL)
			out := testutil.LockedWriter{W: &bytes.Buffer{}}
			p.SetOutput(&out)
			testutil.Eventually(t, "both calls open at the proxy", func() bool { return len(p.Records()) == 2 })
			// The slow call is streaming (forwarded), the held one sending
			// the proxy's progress: both well under way.
			testutil.Eventually(t, "the target to run the slow call", func() bool { return target.Server.Stats().Inflight >= 1 })
			interrupt()
			recs := p.Records()
			var written []proxy.CallRecord
			sc := bufio.NewScanner(strings.NewReader(out.String()))
			for sc.Scan() {
				var rec proxy.CallRecord
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatalf("output line %q: %v", sc.Text(), err)
				}
				written = append(written, rec)
			}
			for what, rs := range map[string][]proxy.CallRecord{"Records": recs, "output": written} {
				if len(rs) != 2 {
					t.Errorf("%s: %d records, want 2\n%s", what, len(rs), dump(rs))
					continue
				}
				for _, rec := range rs {
					if rec.Reaction != "open_at_stop" {
						t.Errorf("%s: call %d (%s) is %s (%s), want open_at_stop\n%s", what, rec.Seq, rec.Tool, rec.Reaction, rec.CancelHow, dump(rs))
					}
				}
			}
			if sum := p.Summary().Clients; sum.Calls != 2 || sum.Cancelled != 0 {
				t.Errorf("summary: %+v, want 2 calls, none cancelled", sum)
			}
		})
	}
}

// startHTTPCalls serves a proxy on loopback and posts stopCalls to /mcp,
// each read until its stream ends.
func startHTTPCalls(t *testing.T, target string) (*proxy.Proxy, func()) {
	r := serveProxy(t, fmt.Sprintf("{http: {url: %q}}", target), "1m", stopFaults)
	for _, body := range stopCalls {
		go holdCall(t, r.url, body)
	}
	return r.p, r.stop
}

// holdCall posts body to url as a 2026-07-28 client and reads the answer
// until its stream ends (the proxy stops, or the test does).
func holdCall(t *testing.T, url, body string) {
	req, err := mcpRequest(t.Context(), url, body)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
}

// startStdioCalls serves a proxy with ServeStdio and writes stopCalls on
// its stdin, which stays open: the interrupt is its context's end.
func startStdioCalls(t *testing.T, target string) (*proxy.Proxy, func()) {
	p := newProxy(t, "127.0.0.1:0", fmt.Sprintf("{http: {url: %q}}", target), "1m", stopFaults)
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeStdio(ctx, inR, io.Discard) }()
	go func() {
		for _, body := range stopCalls {
			if _, err := io.WriteString(inW, body+"\n"); err != nil {
				return
			}
		}
	}()
	return p, func() {
		cancel()
		if err := testutil.Receive(t, "the stdio proxy to stop", served); err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	}
}
