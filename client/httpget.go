package client

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// The standalone GET stream of a 2025 session. After the handshake a
// legacy session GETs the endpoint with Accept: text/event-stream; the
// server answers with an event stream, or 405 when it offers none. The
// stream carries the server's own requests and notifications, and it is
// where a gateway may route a call's progress (or a server its progress
// sent after the response), so it is read like a POST's stream (the same
// bounded SSE reader) and what it carries is routed: progress to its call
// by token (otherstream.go), server requests answered, the rest counted in
// Stats. When it ends while the session is open (a proxy's read timeout,
// say) it is opened again after listenRetry. 2026-07-28 has no GET stream.

const (
	// listenWait bounds how long Dial waits for the GET's answer before
	// going on without it (the stream is still read when it comes).
	listenWait = time.Second
	// listenRetry is the pause before a GET stream that ended is opened
	// again.
	listenRetry = time.Second
)

// listener is the GET stream's state.
type listener struct {
	stop  chan struct{} // closed by close: open no more
	done  chan struct{} // closed when the reading goroutine returns
	ready chan struct{} // closed once the first GET was answered (or failed)
	conn  *httpConn     // the open GET's connection (t.mu)
}

// startListening opens the GET stream of a legacy session, waiting at most
// listenWait for the server's answer.
func (t *httpTransport) startListening() {
	l := &listener{stop: make(chan struct{}), done: make(chan struct{}), ready: make(chan struct{})}
	t.mu.Lock()
	if t.closed || t.listen != nil {
		t.mu.Unlock()
		return
	}
	t.listen = l
	t.mu.Unlock()
	go t.listenLoop(l)
	timer := time.NewTimer(listenWait)
	defer timer.Stop()
	select {
	case <-l.ready:
	case <-timer.C:
	}
}

// listenLoop opens the stream, reads it, and opens it again when it ends,
// until the server says it offers none or the transport closes.
func (t *httpTransport) listenLoop(l *listener) {
	defer close(l.done)
	first := true
	for {
		again := t.listenOnce(l, func() {
			if first {
				first = false
				close(l.ready)
			}
		})
		if first {
			first = false
			close(l.ready)
		}
		if !again {
			return
		}
		timer := time.NewTimer(listenRetry)
		select {
		case <-l.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// listenOnce GETs the stream and reads it to its end; answered is called
// once the server's answer (its headers) is in. It reports whether to open
// the stream again.
func (t *httpTransport) listenOnce(l *listener, answered func()) (again bool) {
	ctx, cancel := context.WithTimeout(context.Background(), t.dialer.Timeout)
	defer cancel()
	var conn *httpConn
	var err error
	if !t.onH2() {
		conn, err = t.dial(ctx)
	}
	if conn == nil && (t.onH2() || err == errUseH2) {
		conn, err = t.getH2(ctx)
	}
	if err != nil {
		return false
	}
	stopped := false
	t.mu.Lock()
	select {
	case <-l.stop:
		stopped = true
	default:
		l.conn = conn // stopListening closes it from now on
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		l.conn = nil
		t.mu.Unlock()
		conn.nc.Close()
	}()
	if stopped {
		return false
	}
	resp, err := t.listenAnswer(conn)
	answered()
	if err != nil {
		return false
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		return false // 405: not offered; anything else: not usable
	}
	_ = conn.nc.SetDeadline(time.Time{})
	t.c.stats.getStreams.Add(1)
	conn.lines(resp.Body)
	defer conn.stream.release()
	var m inMsg
	for {
		data, err := conn.sse.next()
		at := time.Now()
		if err != nil {
			if IsOversize(err) {
				t.c.stats.oversize.Add(1)
			}
			select {
			case <-l.stop:
				return false
			default:
				return true
			}
		}
		if len(conn.sse.event) > 0 && string(conn.sse.event) != "message" {
			continue
		}
		if err := decodeMessage(&conn.sc, data, &m); err != nil {
			t.c.stats.notJSONRPC.Add(1)
			continue
		}
		t.routeListened(&conn.sc, &m, at)
	}
}

// getH2 opens the GET stream as a stream of an HTTP/2 connection.
func (t *httpTransport) getH2(ctx context.Context) (*httpConn, error) {
	s, err := t.h2.send(ctx, http.MethodGet, t.h2Header("", "", nil), nil)
	if err != nil {
		return nil, err
	}
	conn := &httpConn{nc: s, h2: s}
	conn.sse = newSSEReader(&conn.stream, t.c.cfg.MaxMessageBytes)
	return conn, nil
}

// listenAnswer sends the GET (on HTTP/1.1; an HTTP/2 stream's is sent)
// and reads its answer's headers, within the dial timeout.
func (t *httpTransport) listenAnswer(conn *httpConn) (*http.Response, error) {
	_ = conn.nc.SetDeadline(time.Now().Add(t.dialer.Timeout))
	if conn.h2 != nil {
		return conn.h2.response()
	}
	req := "GET " + t.path + " HTTP/1.1\r\n" + t.static +
		"MCP-Protocol-Version: " + string(t.c.era) + "\r\n"
	if sid := t.sessionID(); sid != "" {
		req += "Mcp-Session-Id: " + sid + "\r\n"
	}
	req += "\r\n"
	if _, err := conn.nc.Write([]byte(req)); err != nil {
		return nil, err
	}
	conn.lim.n, conn.lim.max = 0, maxHeaderBytes
	resp, err := http.ReadResponse(conn.br, nil)
	conn.lim.max = 0
	return resp, err
}

// routeListened settles one message read on the GET stream.
func (t *httpTransport) routeListened(sc *scanner, m *inMsg, at time.Time) {
	s := &t.c.stats
	switch m.kind {
	case kindResult, kindError:
		// Allowed only when resuming a POST's stream, which we never ask.
		s.unknownResponses.Add(1)
	case kindRequest:
		if t.c.inputRequest(m, nil, at, t.sendAnswer) {
			return
		}
		s.serverRequests.Add(1)
		t.answerServerRequest(m)
	case kindNotification:
		switch {
		case m.methodIs(vocab.MethodProgress):
			var p progressMsg
			if err := decodeProgress(sc, m.params, &p); err != nil {
				s.notJSONRPC.Add(1)
				return
			}
			id, ours := tokenID(p.token, p.tokenIsStr)
			switch {
			case ours && t.creditProgress(id, &p, at):
			case ours && t.c.ids.issued(id):
				s.stale.Add(1)
			default:
				s.unknownTokens.Add(1)
			}
		case m.methodIs(vocab.MethodCancelled):
			s.serverCancels.Add(1)
		}
	}
}

// stopListening stops the GET stream: no reopening, its connection
// closed; it waits for the reader (bounded by ctx).
func (t *httpTransport) stopListening(ctx context.Context) {
	t.mu.Lock()
	l := t.listen
	var conn *httpConn
	if l != nil {
		conn = l.conn
		select {
		case <-l.stop:
		default:
			close(l.stop)
		}
	}
	t.mu.Unlock()
	if l == nil {
		return
	}
	if conn != nil {
		conn.nc.Close()
	}
	select {
	case <-l.done:
	case <-ctx.Done():
	}
}

// serverRequestAnswer is our answer to a server-initiated request: ping
// gets its empty result, anything else method-not-found.
func serverRequestAnswer(m *inMsg) []byte {
	id := json.RawMessage(idText(m))
	if m.methodIs(vocab.MethodPing) {
		return rpcmsg.AppendResult(nil, id, nil)
	}
	return rpcmsg.AppendError(nil, id, rpcmsg.CodeMethodNotFound, "mcpchaos answers no server requests", nil)
}
