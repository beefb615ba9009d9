package client

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// startSDKSSE serves the SDK test server over the SDK's HTTP+SSE handler
// (the 2024-11-05 transport) on loopback.
func startSDKSSE(t *testing.T) (string, *handlerLog, *reqLog) {
	t.Helper()
	log := newHandlerLog()
	s := newSDKServer(log, nil)
	rl := &reqLog{next: sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil)}
	srv := httptest.NewServer(rl)
	t.Cleanup(srv.Close)
	t.Cleanup(log.releaseAll)
	return srv.URL + "/sse", log, rl
}

// TestSSETransportSDK drives an SDK HTTP+SSE server, the transport
// selected explicitly and detected: the handshake, a call, progress on the
// shared stream, and a cancel that reaches the handler.
func TestSSETransportSDK(t *testing.T) {
	for _, transport := range []string{TransportSSE, TransportAuto} {
		t.Run(transport, func(t *testing.T) {
			url, log, rl := startSDKSSE(t)
			c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: url, Transport: transport}})
			if err != nil {
				t.Fatal(err)
			}
			closeClient(t, c)
			if _, ok := c.tr.(*sseTransport); !ok {
				t.Fatalf("transport %T, want HTTP+SSE", c.tr)
			}
			if c.Era().Modern() || c.Server().Name != "sdk-test-server" {
				t.Errorf("era %s, server %+v", c.Era(), c.Server())
			}
			if transport == TransportSSE {
				if reqs := rl.all(); reqs[0].method != http.MethodGet {
					t.Errorf("first request %s, want the GET of the stream", reqs[0].method)
				}
			}

			tools, err := c.ListTools(ctxT(t))
			if err != nil || len(tools) != 4 {
				t.Fatalf("tools/list: %d tools, %v", len(tools), err)
			}

			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"text":"over sse"}`), Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			waitCall(t, call)
			evs := rec.waitEnd(t)
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "over sse" {
				t.Fatalf("echo: %s", describe(evs))
			}

			rec = newRecorder()
			call, err = c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"steps":4,"step_ms":20}`), Progress: true, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			waitCall(t, call)
			evs = rec.waitEnd(t)
			checkProgressRun(t, evs, 4)
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "done" {
				t.Errorf("slow: %s", describe(evs))
			}
			<-log.started
			<-log.finished

			checkSSECancel(t, c, log, rl)
		})
	}
}

// checkSSECancel cancels a long call over HTTP+SSE once it has sent
// progress: the handler's context ends, the call ends without an error and
// exactly one notifications/cancelled is POSTed.
func checkSSECancel(t *testing.T, c *Client, log *handlerLog, rl *reqLog) {
	t.Helper()
	rec := newRecorder()
	call, err := c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"steps":200,"step_ms":25}`), Progress: true, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	go call.Wait()
	rec.waitFor(t, "two progress events", func(evs []Event) bool { return count(evs, EvProgress) >= 2 })
	if err := call.Cancel("test cancel", false); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	select {
	case s := <-log.ended:
		if !strings.HasPrefix(s, "slow p") {
			t.Errorf("ended: %s", s)
		}
	case <-time.After(testutil.WaitLong):
		t.Fatal("notifications/cancelled did not end the handler's context")
	}
	if end := lastEnd(t, rec.waitEnd(t)); end.Err != nil {
		t.Errorf("EvEnd after our own cancel: %v", end.Err)
	}
	var cancels int
	for _, r := range rl.all() {
		if strings.Contains(string(r.body), `"notifications/cancelled"`) {
			cancels++
		}
	}
	if cancels != 1 {
		t.Errorf("%d notifications/cancelled POSTed, want 1", cancels)
	}
}

// TestSSETransportNotSSE: a URL that does not answer a GET with an event
// stream is refused with what it answered.
func TestSSETransportNotSSE(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html>nope</html>"))
	}))
	t.Cleanup(srv.Close)
	_, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: srv.URL + "/sse", Transport: TransportSSE}})
	if err == nil || !strings.Contains(err.Error(), `HTTP status 404, Content-Type "text/html": not an HTTP+SSE endpoint`) {
		t.Fatalf("Dial: %v", err)
	}
	_, err = Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: srv.URL + "/sse"}})
	if err == nil || !strings.Contains(err.Error(), "HTTP+SSE transport") {
		t.Fatalf("Dial auto: %v", err)
	}
}

// TestSSETransportProtocol2024: protocol 2024-11-05 is the HTTP+SSE
// transport: with transport auto the stream is opened first (no POST to
// the URL) and initialize asks for 2024-11-05; with streamable it is an
// error.
func TestSSETransportProtocol2024(t *testing.T) {
	url, _, rl := startSDKSSE(t)
	c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: url}, Protocol: Era20241105})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	if _, ok := c.tr.(*sseTransport); !ok || c.Era() != Era20241105 || c.HTTPVersion() != "HTTP/1.1" {
		t.Errorf("transport %T, era %s, %s; want HTTP+SSE, 2024-11-05, HTTP/1.1", c.tr, c.Era(), c.HTTPVersion())
	}
	if reqs := rl.all(); reqs[0].method != http.MethodGet || !strings.Contains(string(reqs[1].body), `"protocolVersion":"2024-11-05"`) {
		t.Errorf("first requests %s %s, want the GET of the stream, then initialize for 2024-11-05", reqs[0].method, reqs[1].body)
	}
	if _, err := c.CallTool(ctxT(t), "echo", json.RawMessage(`{"text":"hi"}`)); err != nil {
		t.Errorf("echo: %v", err)
	}
	_, err = Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: url, Transport: TransportStreamable}, Protocol: Era20241105})
	if err == nil || !strings.Contains(err.Error(), "2024-11-05 is the HTTP+SSE transport") {
		t.Errorf("streamable with 2024-11-05: %v, want an error", err)
	}
}
