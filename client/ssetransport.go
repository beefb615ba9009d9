package client

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// sseTransport is the deprecated 2024-11-05 HTTP+SSE transport: one GET
// opens an event stream whose first event, "endpoint", names the URL to
// POST messages to; every answer and notification comes back on that one
// stream, so answers are routed by id and progress by token, as on stdio.
// It is driven the 2025 way: initialize, notifications/cancelled to
// cancel. The POSTs go through an httpTransport (its pool, TLS, headers
// and bounded reads); the stream is read with the same bounded SSE reader
// as Streamable HTTP.
type sseTransport struct {
	c      *Client
	h      *httpTransport // POSTs to the endpoint
	stream *httpConn      // the GET's connection

	mu    sync.Mutex
	calls map[int64]*Call
	// unanswered: calls forgotten without their final response, whose
	// late answer still hands its marker on (staleecho.go).
	unanswered unansweredCalls
	readEnd    chan struct{}
	failErr    error

	gate readGate // the stall_read fault closes it
}

// openSSE GETs h's URL, reads the endpoint event and starts reading the
// stream. Errors say what the URL answered.
func openSSE(ctx context.Context, c *Client, h *httpTransport) (*sseTransport, error) {
	conn, err := h.dialH1(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) (*sseTransport, error) {
		conn.nc.Close()
		return nil, fmt.Errorf("HTTP+SSE: GET %s: "+format, append([]any{h.display}, args...)...)
	}
	if d, ok := ctx.Deadline(); ok {
		_ = conn.nc.SetDeadline(d)
	}
	req := "GET " + h.path + " HTTP/1.1\r\n" + h.static + "\r\n"
	if _, err := conn.nc.Write([]byte(req)); err != nil {
		return fail("%v", err)
	}
	conn.lim.n, conn.lim.max = 0, maxHeaderBytes
	resp, err := http.ReadResponse(conn.br, nil)
	conn.lim.max = 0
	if err != nil {
		return fail("%v", err)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		return fail("HTTP status %d, Content-Type %q: not an HTTP+SSE endpoint", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	conn.body.Reset(resp.Body)
	conn.sse.reset(conn.body)
	data, err := conn.sse.next()
	if err != nil {
		return fail("no endpoint event: %v", err)
	}
	base, _ := url.Parse(h.display)
	ep, err := SSEEndpoint(base, string(conn.sse.event), data)
	if err != nil {
		return fail("%v", err)
	}
	_ = conn.nc.SetDeadline(time.Time{})
	post := &httpTransport{c: c, addr: h.addr, path: ep.RequestURI(), display: h.display, tls: h.tlsH1,
		tlsH1: h.tlsH1, static: h.static, dialer: h.dialer, maxIdle: h.maxIdle}
	t := &sseTransport{c: c, h: post, stream: conn, calls: map[int64]*Call{}, readEnd: make(chan struct{})}
	go t.read()
	return t, nil
}

func clipBytes(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

func (t *sseTransport) name() string { return "http" }

// read is the one goroutine that reads the event stream.
func (t *sseTransport) read() {
	defer close(t.readEnd)
	conn := t.stream
	var m inMsg
	for {
		t.waitGate()
		data, err := conn.sse.next()
		at := time.Now()
		if IsOversize(err) {
			t.c.stats.oversize.Add(1)
			t.fail(at, err)
			return
		}
		if err != nil {
			t.fail(at, fmt.Errorf("HTTP+SSE stream ended: %w", err))
			return
		}
		if len(conn.sse.event) > 0 && string(conn.sse.event) != "message" {
			continue // not a JSON-RPC message (a second endpoint event, ...)
		}
		if err := decodeMessage(&conn.sc, data, &m); err != nil {
			t.c.stats.notJSONRPC.Add(1)
			continue
		}
		t.route(&conn.sc, &m, at)
	}
}

func (t *sseTransport) lookup(id int64) *Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[id]
}

func (t *sseTransport) forget(id int64) {
	t.mu.Lock()
	delete(t.calls, id)
	t.mu.Unlock()
}

// route hands a message to its call: answers by id, progress by token.
func (t *sseTransport) route(sc *scanner, m *inMsg, at time.Time) {
	switch m.kind {
	case kindResult, kindError:
		call := (*Call)(nil)
		if m.idIsNum {
			call = t.lookup(m.idNum)
		}
		switch {
		case call != nil:
			deliverShared(call, sc, m, at, t.forget, t.linger)
		case m.idIsNum && t.c.ids.issued(m.idNum):
			t.c.stats.stale.Add(1)
			// The answer of a call we stopped, after its late window: as
			// on a 2025 Streamable HTTP stream, work that ran on, and its
			// marker names the call.
			if t.takeUnanswered(m.idNum) {
				t.c.stats.staleAnswers.Add(1)
				t.c.staleAnswer(sc, m, at)
			}
		default:
			t.c.stats.unknownResponses.Add(1)
		}
	case kindNotification:
		routeNotification(t.c, t.lookup, sc, m, at)
	case kindRequest:
		if t.c.inputRequest(m, nil, at, t.h.sendAnswer) {
			return
		}
		t.c.stats.serverRequests.Add(1)
		t.h.answerServerRequest(m)
	}
}

// linger keeps a finished call routable for the late window; a call
// forgotten then without its final response is remembered as unanswered.
func (t *sseTransport) linger(call *Call) {
	stopped := time.Now()
	time.AfterFunc(call.lateWindow(), func() {
		t.mu.Lock()
		delete(t.calls, call.id)
		t.unanswered.note(call, stopped)
		t.mu.Unlock()
		call.end(time.Now(), nil)
	})
}

// takeUnanswered reports whether id was a call forgotten without its final
// response, and forgets that too: one stale answer per call.
func (t *sseTransport) takeUnanswered(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.unanswered.take(id)
	return ok
}

// fail ends every call when the stream ends.
func (t *sseTransport) fail(at time.Time, err error) {
	t.mu.Lock()
	calls := t.calls
	t.calls = map[int64]*Call{}
	t.failErr = err
	t.mu.Unlock()
	for _, call := range calls {
		if call.stopped() || call.state.Load()&stFinal != 0 {
			call.end(at, nil)
		} else {
			call.end(at, err)
		}
	}
}

// start POSTs the request to the endpoint; the server accepts it with 202
// and answers on the stream. Another status ends the call with it.
func (t *sseTransport) start(ctx context.Context, call *Call) error {
	// The check and the insert under one lock: fail swaps the calls out
	// and sets failErr under it, so a call is either refused here or
	// ended there, never lost between the two.
	t.mu.Lock()
	if t.failErr != nil {
		err := t.failErr
		t.mu.Unlock()
		return err
	}
	t.calls[call.id] = call
	t.mu.Unlock()
	call.sent = time.Now()
	status, err := t.h.exchange(ctx, call.method, call.body)
	if err != nil {
		t.forget(call.id)
		return fmt.Errorf("send %s: %w", call.method, err)
	}
	if status/100 != 2 {
		t.forget(call.id)
		at := time.Now()
		call.emit(Event{Kind: EvHeaders, At: at, Status: status, RetryAfter: -1, RateLimitReset: -1})
		call.end(at, nil)
	}
	return nil
}

func (t *sseTransport) wait(call *Call) { <-call.done }

func (t *sseTransport) cancel(call *Call, reason string, _ bool) error {
	t.linger(call)
	return t.h.postCancel(call.id, reason)
}

// abort closes the event stream (with a FIN or an RST): on this transport
// every call shares it, so every call in flight ends, as when a stdio
// server's stdin is closed.
func (t *sseTransport) abort(call *Call, mode AbortMode) error {
	if mode != AbortFIN && mode != AbortRST {
		return fmt.Errorf("abort mode %s does not apply to HTTP", mode)
	}
	t.linger(call)
	if t.stream.tcp != nil {
		if mode == AbortRST {
			_ = t.stream.tcp.SetLinger(0)
		} else {
			_ = t.stream.tcp.CloseWrite()
		}
	}
	return t.stream.nc.Close()
}

// pause stops reading the shared stream: every call stalls.
func (t *sseTransport) pause(_ *Call, on bool) { t.gate.set(on) }

func (t *sseTransport) waitGate() { t.gate.wait(nil) }

func (t *sseTransport) notify(ctx context.Context, method string, body []byte) error {
	return t.h.notify(ctx, method, body)
}

func (t *sseTransport) close(ctx context.Context) error {
	t.pause(nil, false)
	t.stream.nc.Close()
	err := t.h.close(ctx)
	select {
	case <-t.readEnd:
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
	return err
}

// dialHTTP makes the transport of an HTTP endpoint: Streamable HTTP, or
// HTTP+SSE when the configuration asks for it.
func dialHTTP(ctx context.Context, c *Client, cfg *HTTPConfig) (transport, error) {
	h, err := newHTTPTransport(c, cfg)
	if err != nil {
		return nil, err
	}
	tr := cfg.Transport
	if c.cfg.Protocol == Era20241105 {
		// The revision of the HTTP+SSE transport.
		if tr == TransportStreamable {
			return nil, errors.New("mcp http: protocol 2024-11-05 is the HTTP+SSE transport, not streamable")
		}
		tr = TransportSSE
	}
	switch tr {
	case "", TransportAuto, TransportStreamable:
		return h, nil
	case TransportSSE:
		octx, cancel := WithBound(ctx, c.cfg.ProbeTimeout)
		defer cancel()
		return openSSE(octx, c, h)
	}
	return nil, fmt.Errorf("mcp http: unknown transport %q (want auto, streamable or sse)", cfg.Transport)
}

// orSSE falls back to the HTTP+SSE transport after a failed initialize,
// as the spec's backward-compatibility rules say: when the transport is
// auto, the answer was 400, 404 or 405 without a JSON-RPC error, and a GET
// of the URL opens an event stream that starts with an endpoint event.
// Otherwise it returns err as it is.
func (c *Client) orSSE(ctx context.Context, err error) error {
	h, ok := c.tr.(*httpTransport)
	if err == nil || !ok || (c.cfg.HTTP.Transport != "" && c.cfg.HTTP.Transport != TransportAuto) {
		return err
	}
	var rpc *RPCError
	switch c.initStatus {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return err
	}
	if errors.As(err, &rpc) {
		return err
	}
	octx, cancel := WithBound(ctx, c.cfg.ProbeTimeout)
	defer cancel()
	st, serr := openSSE(octx, c, h)
	if serr != nil {
		return fmt.Errorf("%w (and the 2024-11-05 HTTP+SSE transport: %v)", err, serr)
	}
	_ = h.close(octx)
	c.tr = st
	return c.initializeSSE(octx)
}

// initializeSSE runs the handshake over HTTP+SSE: the forced legacy
// revision, or the newest (the server answers with the one it speaks).
func (c *Client) initializeSSE(ctx context.Context) error {
	era := c.cfg.Protocol
	if era.Modern() {
		return fmt.Errorf("protocol %s is not spoken over the HTTP+SSE transport (use a 2025 revision, or auto)", era)
	}
	if era == "" {
		era = Era20251125
	}
	return c.initialize(ctx, era)
}
