package client

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// oneShot is a raw HTTP server that answers one request per connection,
// keeps the connection alive in its headers, and then closes it: every
// connection the client pools goes stale.
type oneShot struct {
	url    string
	closed chan struct{} // one per connection closed by the server
	mu     sync.Mutex
	conns  int
	reqs   []fakeReq
}

func (s *oneShot) snapshot() (conns int, reqs []fakeReq) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, append([]fakeReq(nil), s.reqs...)
}

// startOneShot serves answer(req) → status, extra header lines, body.
func startOneShot(t *testing.T, answer func(req fakeReq) (int, string, string)) *oneShot {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &oneShot{url: "http://" + ln.Addr().String() + "/mcp", closed: make(chan struct{}, 100)}
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
			go func() {
				defer func() { nc.Close(); s.closed <- struct{}{} }()
				r, err := http.ReadRequest(bufio.NewReader(nc))
				if err != nil {
					return
				}
				body, _ := io.ReadAll(r.Body)
				var req fakeReq
				_ = json.Unmarshal(body, &req)
				req.HTTPMethod, req.Header, req.Body = r.Method, r.Header.Clone(), body
				s.mu.Lock()
				s.reqs = append(s.reqs, req)
				s.mu.Unlock()
				status, header, out := answer(req)
				io.WriteString(nc, "HTTP/1.1 "+itoa(int64(status))+" "+http.StatusText(status)+"\r\n"+header+
					"Content-Type: application/json\r\nContent-Length: "+itoa(int64(len(out)))+"\r\n\r\n"+out)
			}()
		}
	}()
	return s
}

// waitStale waits until the server has closed every connection it took.
func (s *oneShot) waitStale(t *testing.T, closedSoFar *int) {
	t.Helper()
	for {
		conns, _ := s.snapshot()
		if *closedSoFar >= conns {
			return
		}
		<-s.closed
		*closedSoFar++
	}
}

func pooled(c *Client) int {
	tr := c.tr.(*httpTransport)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.idle)
}

// TestHTTPStaleKeepAlive: the server closes an idle keep-alive connection;
// the next call, which picks it from the pool, is re-sent once on a new
// connection without the caller seeing anything.
func TestHTTPStaleKeepAlive(t *testing.T) {
	t.Parallel()
	s := startOneShot(t, func(req fakeReq) (int, string, string) {
		if req.Method == vocab.MethodDiscover {
			return 200, "", `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"supportedVersions":["2026-07-28"]}}`
		}
		return 200, "", resultJSON(req.ID, "ok")
	})
	c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: s.url}})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	closed := 0
	for i := 0; i < 3; i++ {
		s.waitStale(t, &closed)
		if n := pooled(c); n != 1 {
			t.Fatalf("%d pooled connections, want the stale one", n)
		}
		_, evs := runCall(t, c, "echo", false)
		if r := ofKind(evs, EvResult); len(r) != 1 || lastEnd(t, evs).Err != nil {
			t.Fatalf("call %d over a stale connection: %s", i, describe(evs))
		}
	}
	if conns, reqs := s.snapshot(); conns != 4 || len(reqs) != 4 {
		t.Errorf("connections %d, requests %d; want 4 and 4", conns, len(reqs))
	}
}

// TestHTTPStaleKeepAliveLegacy: on a 2025 server, the notifications
// (notifications/cancelled above all) and the session DELETE must survive
// a stale pooled connection too: a cancel lost this way would leave the
// server's work running and look like the server's fault.
func TestHTTPStaleKeepAliveLegacy(t *testing.T) {
	t.Parallel()
	s := startOneShot(t, func(req fakeReq) (int, string, string) {
		switch {
		case req.Method == vocab.MethodDiscover:
			return 400, "", ""
		case req.Method == vocab.MethodInitialize:
			return 200, "Mcp-Session-Id: s-9\r\n", `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"one","version":"1"}}}`
		case req.HTTPMethod == http.MethodDelete:
			return 200, "", ""
		case strings.HasPrefix(req.Method, "notifications/"):
			return 202, "", ""
		}
		return 200, "", resultJSON(req.ID, "ok")
	})
	c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: s.url}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Era() != Era20251125 {
		t.Fatalf("era %s", c.Era())
	}
	closed := 0
	s.waitStale(t, &closed)
	if n := pooled(c); n != 1 {
		t.Fatalf("%d pooled connections, want the stale one", n)
	}
	if err := c.Notify(ctxT(t), vocab.MethodCancelled, []byte(`{"requestId":99}`)); err != nil {
		t.Errorf("Notify over a stale connection: %v", err)
	}
	s.waitStale(t, &closed)
	if err := c.Close(ctxT(t)); err != nil {
		t.Errorf("Close (session DELETE) over a stale connection: %v", err)
	}
	var cancels, deletes int
	_, reqs := s.snapshot()
	for _, r := range reqs {
		if r.Method == vocab.MethodCancelled && r.Header.Get("Mcp-Session-Id") == "s-9" {
			cancels++
		}
		if r.HTTPMethod == http.MethodDelete && r.Header.Get("Mcp-Session-Id") == "s-9" {
			deletes++
		}
	}
	if cancels != 1 || deletes != 1 {
		t.Errorf("the server got %d cancels and %d DELETEs, want 1 and 1", cancels, deletes)
	}
}
