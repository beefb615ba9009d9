package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// upSession is one session on the HTTP+SSE upstream: the event stream
// of a GET, and the endpoint its first event named.
type upSession struct {
	u         *sseUpstream
	sid       string      // the Mcp-Session-Id given to the client; "" for a request's own session
	header    http.Header // sent with every request of the session
	endpoint  *url.URL
	cancel    context.CancelFunc // closes the GET
	ended     chan struct{}      // closed when the stream has ended
	closeOnce sync.Once

	mu      sync.Mutex
	calls   map[string]*upCall // requests in flight, by id (compact JSON)
	tokens  map[string]*upCall // by progress token (compact JSON)
	closing bool               // close has taken the calls in flight
	// cancelling counts the cancels being POSTed; close waits for them
	// before it ends the stream.
	cancelling sync.WaitGroup
}

// upCall is a request in flight on an upstream session.
type upCall struct {
	key, token string
	events     chan []byte   // the request's messages; closed after its response
	gone       chan struct{} // closed when its answer's stream has ended
	// clientCancelled: the client's own notifications/cancelled went up.
	clientCancelled atomic.Bool
}

// upCancelTimeout bounds the POST of a notifications/cancelled the proxy
// sends for a client that closed its stream.
const upCancelTimeout = 5 * time.Second

// read GETs the stream, reports on opened whether its endpoint event
// came, then routes every message until the stream ends.
func (s *upSession) read(req *http.Request, opened chan<- error) {
	defer s.markEnded()
	fail := func(format string, args ...any) {
		opened <- fmt.Errorf("HTTP+SSE upstream: GET %s: "+format, append([]any{s.u.url}, args...)...)
	}
	resp, err := s.u.client.Do(req)
	if err != nil {
		fail("%v", err)
		return
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		fail("HTTP status %d, Content-Type %q: not an HTTP+SSE endpoint", resp.StatusCode, resp.Header.Get("Content-Type"))
		return
	}
	rd := client.NewSSEReader(resp.Body, MaxBody)
	data, err := rd.Next()
	if err != nil {
		fail("no endpoint event: %v", err)
		return
	}
	if s.endpoint, err = client.SSEEndpoint(s.u.url, rd.Event(), data); err != nil {
		fail("%v", err)
		return
	}
	opened <- nil
	for {
		data, err := rd.Next()
		if err != nil {
			return // the end, or a message over the bound: the session ends
		}
		if ev := rd.Event(); ev != "" && ev != "message" {
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			s.route(b.Bytes())
		}
	}
}

// markEnded marks the stream ended and forgets the session.
func (s *upSession) markEnded() {
	close(s.ended)
	s.u.mu.Lock()
	if s.sid != "" && s.u.sessions[s.sid] == s {
		delete(s.u.sessions, s.sid)
	}
	s.u.mu.Unlock()
}

// route hands a message to its request: answers by id, progress by
// token. A server request is answered (ping) or refused, unless
// client.MaxAnswering answers are in flight (then it is left unanswered);
// other notifications belong to no request and are dropped.
func (s *upSession) route(data []byte) {
	var in message
	if json.Unmarshal(data, &in) != nil {
		return
	}
	switch {
	case in.isResponse():
		if c := s.take(compactJSON(in.ID)); c != nil {
			s.deliver(c, data)
			close(c.events)
		}
	case in.Method != "" && len(in.ID) > 0:
		reply := rpcError(in.ID, -32601, "mcpchaos proxy: no client to answer server requests")
		if in.Method == vocab.MethodPing {
			reply, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": in.ID, "result": map[string]any{}})
		}
		s.u.answers.Go(func(ctx context.Context) { _, _, _ = s.post(ctx, reply) })
	case in.Method == vocab.MethodProgress:
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		if json.Unmarshal(in.Params, &p) != nil {
			return
		}
		s.mu.Lock()
		c := s.tokens[compactJSON(p.Token)]
		s.mu.Unlock()
		if c != nil {
			s.deliver(c, data)
		}
	}
}

// deliver hands a message to its request, unless its client went away.
func (s *upSession) deliver(c *upCall, data []byte) {
	select {
	case c.events <- data:
	case <-c.gone:
	}
}

// track adds a request; false when its id is in flight already.
func (s *upSession) track(c *upCall) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls[c.key] != nil {
		return false
	}
	s.calls[c.key] = c
	if c.token != "" {
		s.tokens[c.token] = c
	}
	return true
}

// take removes a request and returns it; nil when it was not there.
func (s *upSession) take(key string) *upCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls[key]
	if c != nil {
		s.remove(c)
	}
	return c
}

// remove forgets a request in flight; s.mu is held.
func (s *upSession) remove(c *upCall) {
	delete(s.calls, c.key)
	if s.tokens[c.token] == c {
		delete(s.tokens, c.token)
	}
}

// request POSTs a request and answers with an SSE stream of its messages
// until its response.
func (s *upSession) request(req *http.Request, body []byte, m *message) (*http.Response, error) {
	c := &upCall{key: compactJSON(m.ID), events: make(chan []byte, 16), gone: make(chan struct{})}
	var cp callParams
	if json.Unmarshal(m.Params, &cp) == nil && len(cp.Meta.ProgressToken) > 0 {
		c.token = compactJSON(cp.Meta.ProgressToken)
	}
	if !s.track(c) {
		return answer(req, http.StatusConflict, "application/json", rpcError(m.ID, -32600, "mcpchaos proxy: request id "+clip(c.key)+" is in flight already in this session")), nil
	}
	status, header, err := s.post(req.Context(), body)
	if err != nil || status/100 != 2 {
		s.take(c.key)
		if err != nil {
			return nil, err
		}
		resp := answer(req, status, "application/json", rpcError(m.ID, -32603, fmt.Sprintf("mcpchaos proxy: the HTTP+SSE upstream answered the POST with HTTP %d", status)))
		if ra := header.Get("Retry-After"); ra != "" {
			resp.Header.Set("Retry-After", ra)
		}
		return resp, nil
	}
	pr, pw := io.Pipe()
	go s.stream(req.Context(), c, pw)
	resp := answer(req, http.StatusOK, "text/event-stream", nil)
	resp.Body = pr
	return resp, nil
}

// stream writes a request's messages to pw until its response; when
// the client closes its stream first, it cancels the request upstream.
func (s *upSession) stream(ctx context.Context, c *upCall, pw *io.PipeWriter) {
	defer close(c.gone)
	relay(ctx, c.events, s.ended, errSessionEnded, pw, func(reason string) { s.cancelCall(c, reason) })
}

// cancelCall POSTs notifications/cancelled for a request still in
// flight, unless the client's own went up already or close has taken it
// (close sends the cancel then).
func (s *upSession) cancelCall(c *upCall, reason string) {
	s.mu.Lock()
	mine := !s.closing && s.calls[c.key] == c
	if mine {
		s.remove(c)
		mine = !c.clientCancelled.Load()
	}
	if mine {
		s.cancelling.Add(1) // before close's Wait: closing is not set yet
	}
	s.mu.Unlock()
	if !mine {
		return
	}
	defer s.cancelling.Done()
	ctx, cancel := context.WithTimeout(context.Background(), upCancelTimeout)
	defer cancel()
	s.postCancel(ctx, c.key, reason)
}

// postCancel POSTs notifications/cancelled for the request whose id is
// key; the server may be gone, and then there is nothing to do.
func (s *upSession) postCancel(ctx context.Context, key, reason string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": json.RawMessage(key), "reason": "mcpchaos proxy: " + reason}})
	_, _, _ = s.post(ctx, b)
}

// cancelInFlight cancels on the server every request still in flight
// whose client sent no cancel of its own, and waits for the cancels that
// cancelCall is POSTing: all within upCancelTimeout each.
func (s *upSession) cancelInFlight() {
	s.mu.Lock()
	s.closing = true
	var keys []string
	for key, c := range s.calls {
		s.remove(c)
		if key != upInitID && !c.clientCancelled.Load() {
			keys = append(keys, key)
		}
	}
	s.mu.Unlock()
	if len(keys) > 0 && s.endpoint != nil {
		ctx, cancel := context.WithTimeout(context.Background(), upCancelTimeout)
		defer cancel()
		for _, key := range keys {
			s.postCancel(ctx, key, "the client's session ended")
		}
	}
	s.cancelling.Wait()
}

// cancelledByClient notes a client's notifications/cancelled, which goes
// up as it came, so that the proxy sends no second one.
func (s *upSession) cancelledByClient(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	c := s.calls[compactJSON(p.RequestID)]
	s.mu.Unlock()
	if c != nil {
		c.clientCancelled.Store(true)
	}
}

// initialize runs the 2024-11-05 handshake for a request's own session.
func (s *upSession) initialize(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, upOpenTimeout)
	defer cancel()
	c := &upCall{key: upInitID, events: make(chan []byte, 1), gone: make(chan struct{})}
	defer close(c.gone)
	s.track(c)
	msg := `{"jsonrpc":"2.0","id":` + upInitID + `,"method":"initialize","params":{"protocolVersion":"2024-11-05",` +
		`"capabilities":{},"clientInfo":{"name":"mcpchaos-proxy","version":"0"}}}`
	status, _, err := s.post(ctx, []byte(msg))
	if err == nil && status/100 != 2 {
		err = fmt.Errorf("HTTP status %d", status)
	}
	if err != nil {
		s.take(c.key)
		return fmt.Errorf("HTTP+SSE upstream: initialize: %w", err)
	}
	select {
	case b := <-c.events:
		var in message
		if json.Unmarshal(b, &in) != nil || len(in.Error) > 0 {
			return fmt.Errorf("HTTP+SSE upstream: initialize: the server answered %s", clip(string(b)))
		}
	case <-s.ended:
		return fmt.Errorf("HTTP+SSE upstream: initialize: %w", errSessionEnded)
	case <-ctx.Done():
		s.take(c.key)
		return fmt.Errorf("HTTP+SSE upstream: initialize: %w", ctx.Err())
	}
	if _, _, err := s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return fmt.Errorf("HTTP+SSE upstream: notifications/initialized: %w", err)
	}
	return nil
}

// close ends the session: first the cancels of its requests still in
// flight, then its stream, and with it every request. The order matters:
// to a 2024-11-05 server the end of the stream is no cancel (the Go SDK's
// handlers run on), and a cancel POSTed after it finds no session.
func (s *upSession) close() {
	s.closeOnce.Do(func() {
		s.cancelInFlight()
		s.cancel()
	})
}
