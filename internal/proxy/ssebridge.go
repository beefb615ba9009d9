package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// acceptKey is the context key of the function the HTTP+SSE front passes
// with a request it hands to the proxy's own handler: call runs it once it
// forwards the call (it did not throttle it), and the front then accepts
// the client's POST with 202.
type acceptKey struct{}

// accepted tells the HTTP+SSE front, when the request came through it,
// that the call is being forwarded.
func accepted(ctx context.Context) {
	if f, ok := ctx.Value(acceptKey{}).(func()); ok {
		f()
	}
}

// sseCall is a request of an HTTP+SSE session in flight.
type sseCall struct{ cancel context.CancelFunc }

// dispatch handles one message POSTed to session s: it hands it to the
// proxy's Streamable HTTP handler in process and accepts the POST with
// 202; every message of the answer goes on the session's stream. A
// tools/call the proxy answers without forwarding (throttle) is answered
// on the POST itself instead.
func (f *sseFront) dispatch(w http.ResponseWriter, r *http.Request, s *sseSession, body []byte) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		writeRPCError(w, http.StatusBadRequest, nil, -32700, "Parse error")
		return
	}
	var m message
	_ = json.Unmarshal(trimmed, &m) // a batch leaves m empty: passed on as it is
	isRequest := m.Method != "" && len(m.ID) > 0
	if isRequest && m.Method == vocab.MethodDiscover {
		s.refuseDiscover(w, &m)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	finish, ok := s.enter(w, &m, isRequest, cancel)
	if !ok {
		return
	}
	decided := make(chan struct{})
	var once sync.Once
	ctx = context.WithValue(ctx, acceptKey{}, func() { once.Do(func() { close(decided) }) })
	req, err := s.innerRequest(ctx, r, body, m.Method)
	if err != nil {
		finish()
		writeRPCError(w, http.StatusInternalServerError, m.ID, -32603, err.Error())
		return
	}
	pr, pw := io.Pipe()
	iw := &innerWriter{h: http.Header{}, wrote: make(chan struct{}), pw: pw, s: s}
	go func() {
		f.p.ServeHTTP(iw, req)
		iw.WriteHeader(http.StatusOK) // nothing written: an empty answer
		pw.Close()
	}()
	if isRequest && m.Method == vocab.MethodToolsCall && answeredOnPost(w, r, iw, pr, decided) {
		finish()
		return
	}
	w.WriteHeader(http.StatusAccepted)
	go s.relay(ctx, iw, pr, &m, finish)
}

// refuseDiscover answers server/discover on the session's stream: the
// transport has no 2026-07-28 binding, so it is answered as a 2024-11-05
// server would, and the client falls back to initialize; queued without
// waiting, or refused on the POST when the stream is behind.
func (s *sseSession) refuseDiscover(w http.ResponseWriter, m *message) {
	if !s.offer(rpcError(m.ID, -32601, "Method not found: server/discover (mcpchaos proxy: the HTTP+SSE transport is 2024-11-05)")) {
		writeRPCError(w, http.StatusServiceUnavailable, m.ID, -32000, fmt.Sprintf("mcpchaos proxy: session %q: %d messages wait for the stream already", clip(s.id), maxQueuedEvents))
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// enter counts message m in flight on s (a request also under its id, so
// that a cancel can end it) and returns what undoes that and cancels the
// message's context. When the session has ended, or as many messages of
// m's kind as it takes are in flight, it cancels, answers the POST with
// the error instead and says so.
func (s *sseSession) enter(w http.ResponseWriter, m *message, isRequest bool, cancel context.CancelFunc) (finish func(), ok bool) {
	key, c := compactJSON(m.ID), &sseCall{cancel: cancel}
	s.mu.Lock()
	// Requests and notifications in flight are bounded apart, so a
	// client at its cap of requests can still cancel one.
	n := &s.notes
	if isRequest {
		n = &s.requests
	}
	ended, full := s.ended, *n >= maxSessionCalls
	if !ended && !full {
		s.running.Add(1) // never after end began to wait: ended is set first
		*n++
		if isRequest {
			s.calls[key] = c
		}
	}
	s.mu.Unlock()
	switch {
	case ended:
		cancel()
		writeRPCError(w, http.StatusNotFound, nil, -32600, fmt.Sprintf("mcpchaos proxy: session %q has ended", clip(s.id)))
		return nil, false
	case full:
		cancel()
		what := "notifications"
		if isRequest {
			what = "requests"
		}
		writeRPCError(w, http.StatusServiceUnavailable, m.ID, -32000, fmt.Sprintf("mcpchaos proxy: %d %s of this session in flight already", maxSessionCalls, what))
		return nil, false
	}
	return func() {
		defer s.running.Done()
		cancel()
		s.mu.Lock()
		*n--
		if isRequest && s.calls[key] == c {
			delete(s.calls, key)
		}
		s.mu.Unlock()
	}, true
}

// answeredOnPost waits until the proxy's handler decides a tools/call
// (it forwards it, or answers) or the client's POST ends. A call answered
// without forwarding with a status other than 2xx (throttle) gets that
// answer on the POST itself, read from pr (bounded), and it says so.
func answeredOnPost(w http.ResponseWriter, r *http.Request, iw *innerWriter, pr *io.PipeReader, decided <-chan struct{}) bool {
	select {
	case <-decided:
	case <-iw.wrote:
		select {
		case <-decided:
		default:
			if iw.status/100 != 2 { // answered without forwarding: throttle
				copyHeaders(w.Header(), iw.h)
				w.WriteHeader(iw.status)
				_, _ = io.Copy(w, io.LimitReader(pr, MaxBody))
				pr.Close()
				return true
			}
		}
	case <-r.Context().Done():
	}
	return false
}

// relay puts every message of the handler's answer to m on the session's
// stream, then runs finish. A cancel notification, recorded and forwarded
// by then, also closes the cancelled call's upstream request, as when a
// Streamable client closes its stream.
func (s *sseSession) relay(ctx context.Context, iw *innerWriter, pr *io.PipeReader, m *message, finish func()) {
	defer finish()
	s.pump(ctx, iw, pr, m)
	if m.Method == vocab.MethodCancelled && len(m.ID) == 0 {
		var cp struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &cp) == nil {
			s.cancelCall(compactJSON(cp.RequestID))
		}
	}
}

// innerRequest is the Streamable HTTP request the proxy's handler gets
// for a message of the session: the client's headers, and the upstream
// session's id and version once initialize settled them.
func (s *sseSession) innerRequest(ctx context.Context, r *http.Request, body []byte, method string) (*http.Request, error) {
	ctx = context.WithValue(ctx, sseClientKey{}, s.id)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("mcpchaos proxy: HTTP+SSE message: %w", err)
	}
	req.RemoteAddr = r.RemoteAddr
	req.Header = r.Header.Clone()
	// The answer is read here, as it comes: not compressed; the session
	// headers are the proxy's, not the client's.
	for _, k := range []string{"Accept-Encoding", vocab.HeaderSessionID, vocab.HeaderProtocolVersion} {
		req.Header.Del(k)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	s.mu.Lock()
	up, version := s.upstream, s.version
	s.mu.Unlock()
	if up != "" && method != vocab.MethodInitialize {
		req.Header.Set(vocab.HeaderSessionID, up)
	}
	if version != "" && method != vocab.MethodInitialize {
		req.Header.Set(vocab.HeaderProtocolVersion, version)
	}
	return req, nil
}

// pump writes every message of a request's answer on the session's
// stream. An answer that is not 2xx becomes a JSON-RPC error for the
// request (the transport has no other way to say it); initialize's
// answer settles the upstream session's id and version.
func (s *sseSession) pump(ctx context.Context, iw *innerWriter, pr *io.PipeReader, m *message) {
	defer pr.Close() // a handler still writing stops
	<-iw.wrote
	isRequest := m.Method != "" && len(m.ID) > 0
	if m.Method == vocab.MethodInitialize {
		if sid := iw.h.Get(vocab.HeaderSessionID); sid != "" {
			s.mu.Lock()
			s.upstream = sid
			s.mu.Unlock()
		}
	}
	if iw.status/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(pr, MaxBody))
		if isRequest {
			s.send(ctx, failure(m.ID, iw.status, b))
		}
		return
	}
	ct, _, _ := mime.ParseMediaType(iw.h.Get("Content-Type"))
	if ct != "text/event-stream" {
		b, err := io.ReadAll(io.LimitReader(pr, MaxBody+1))
		if b = bytes.TrimSpace(b); err == nil && len(b) <= MaxBody && json.Valid(b) {
			s.settle(m, b)
			s.send(ctx, b)
		}
		return
	}
	rd := client.NewSSEReader(pr, MaxBody)
	for {
		data, err := rd.Next()
		if err != nil {
			return // the end, or the handler's own stream over the bound
		}
		data = append([]byte(nil), data...)
		s.settle(m, data)
		if !s.send(ctx, data) {
			return
		}
	}
}

// settle notes the protocol version of initialize's answer.
func (s *sseSession) settle(m *message, data []byte) {
	if v := initializeVersion(m, data); v != "" {
		s.mu.Lock()
		s.version = v
		s.mu.Unlock()
	}
}

// failure is the JSON-RPC error for request id whose answer was HTTP
// status with body: the body's own error when it is one, else -32603.
func failure(id json.RawMessage, status int, body []byte) []byte {
	var e struct {
		Error struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Code != nil {
		return rpcError(id, *e.Error.Code, e.Error.Message)
	}
	return rpcError(id, -32603, fmt.Sprintf("mcpchaos proxy: the upstream answered HTTP %d", status))
}

// cancelCall ends the proxy's side of a request in flight.
func (s *sseSession) cancelCall(key string) {
	s.mu.Lock()
	c := s.calls[key]
	s.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// innerWriter is the ResponseWriter of a message the HTTP+SSE front
// hands to the proxy's handler: the status and headers, then the body
// through a pipe to pump. Taking its connection (the disconnect fault)
// takes the session's event stream.
type innerWriter struct {
	h      http.Header
	status int
	wrote  chan struct{} // closed by WriteHeader
	once   sync.Once
	pw     *io.PipeWriter
	s      *sseSession
}

func (iw *innerWriter) Header() http.Header { return iw.h }

func (iw *innerWriter) WriteHeader(code int) {
	iw.once.Do(func() { iw.status = code; close(iw.wrote) })
}

func (iw *innerWriter) Write(b []byte) (int, error) {
	iw.WriteHeader(http.StatusOK)
	return iw.pw.Write(b)
}

// Flush does nothing: pump reads every write as it is made.
func (iw *innerWriter) Flush() {}

// Hijack gives the disconnect fault the session's stream to cut.
func (iw *innerWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return &streamCut{s: iw.s}, nil, nil
}

// streamCut is what cut closes for a call of the HTTP+SSE front: closing
// it cuts the session's event stream, with a reset after SetLinger(0).
// Only Close and SetLinger are used; the embedded Conn is nil.
type streamCut struct {
	net.Conn
	s   *sseSession
	rst bool
}

func (c *streamCut) SetLinger(sec int) error { c.rst = sec == 0; return nil }

func (c *streamCut) Close() error {
	select {
	case c.s.cut <- c.rst:
	default: // a cut is on its way already
	}
	return nil
}

// endOpen ends the open calls of client session with the given ids, as
// when the proxy cut their shared stream.
func (r *recorder) endOpen(session string, ids []json.RawMessage, reaction string, at time.Time) {
	r.mu.Lock()
	var ocs []*openCall
	for _, id := range ids {
		if oc := r.open[session+"\x00"+compactJSON(id)]; oc != nil {
			ocs = append(ocs, oc)
		}
	}
	r.mu.Unlock()
	for _, oc := range ocs {
		r.end(oc, reaction, "", at)
	}
}
