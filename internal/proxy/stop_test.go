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
	"sync"
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
		holdCalls(t, 1, r.url, body)
	}
	return r.p, r.stop
}

// holdCall posts body to url as a 2026-07-28 client and reads the answer
// until its stream ends (the proxy stops, or the test does). It sends on
// opened, once, nil when the answer's headers came (HTTP 200), or what
// went wrong before: a held call that fails is named, not left to be
// missed by a wait.
func holdCall(ctx context.Context, url, body string, opened chan<- error) {
	req, err := mcpRequest(ctx, url, body)
	if err != nil {
		opened <- err
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		opened <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		opened <- fmt.Errorf("HTTP %d %s", resp.StatusCode, b)
		return
	}
	opened <- nil
	_, _ = io.Copy(io.Discard, resp.Body)
}

// holdCalls starts n holdCalls of body and waits until each has its
// answer's headers, failing the test with the first error; the calls
// are read until the proxy ends them (or the test's context ends), and
// waited for at the test's end. The wait is for each call in turn, not
// for all at once: 256 calls under -race on a loaded machine took 14 s
// to open, where the proxy and its target only got their share of the
// CPU, and a bound on the whole would measure the machine.
func holdCalls(t *testing.T, n int, url, body string) {
	t.Helper()
	opened := make(chan error, n)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	for range n {
		wg.Go(func() { holdCall(t.Context(), url, body, opened) })
	}
	for i := range n {
		if err := testutil.Receive(t, "a held call's answer headers", opened); err != nil {
			t.Fatalf("held call %d of %d: %v", i+1, n, err)
		}
	}
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
