package client

import (
	"context"
	"net/http"
	"time"
)

// Reading a call's answer on an HTTP/2 stream with the goroutine that
// waits for it kept shallow (deep.go): it waits for the stream's headers
// and for each piece of its data in frames of its own, and hands the work
// that each brings (the headers' event, an SSE message's delivery) to a
// deep goroutine.

// h2Step is that work for one stream, kept in its httpConn.
type h2Step struct {
	t    *httpTransport
	call *Call
	conn *httpConn
	done chan struct{}
	head bool // the step reads the response's head, else an SSE message

	// the head's
	headConn *httpConn
	resp     *http.Response
	ct       string
	// an SSE message's
	src      lineSource
	st       sseState
	ready    time.Time // when the step was handed over
	over     bool      // the stream ended: reusable says what sseEnd said
	reusable bool
}

func (s *h2Step) runDeep() {
	if s.head {
		s.headConn, s.resp, s.ct = s.t.readHead(s.call)
		return
	}
	queued := time.Since(s.ready) // the hand-over's wait, not the stream's
	data, err := s.conn.sse.next()
	at := s.call.readAtFrom(time.Now().Add(-queued))
	if err != nil {
		s.over, s.reusable = true, s.t.sseEnd(s.call, err, at, &s.st)
		return
	}
	if !s.t.sseMessage(s.call, s.conn, s.src, data, at, &s.st) {
		s.over = true
	}
}

// readHeadH2 is readHead on an HTTP/2 stream: it waits for the answer's
// headers here, then reads them on a deep goroutine.
func (t *httpTransport) readHeadH2(call *Call, conn *httpConn) (*httpConn, *http.Response, string) {
	<-conn.h2.head
	st := &conn.step
	*st = h2Step{t: t, call: call, conn: conn, done: make(chan struct{}, 1), head: true}
	runDeep(st, st.done)
	if st.resp != nil && st.ct == "text/event-stream" {
		st.resp.Header = nil // read already; an open stream need not keep it
	}
	return st.headConn, st.resp, st.ct
}

// readSSEH2 is readSSE's loop on an HTTP/2 stream: the wait for data here,
// each message on a deep goroutine.
func (t *httpTransport) readSSEH2(call *Call, conn *httpConn, src lineSource) bool {
	st := &conn.step
	st.head, st.src, st.st = false, src, sseState{}
	for {
		call.waitGate(call.done)
		if conn.stream.Buffered() == 0 {
			// Nothing left to parse: the buffers go back to their pools
			// while the stream waits for its next message.
			conn.stream.release()
			conn.sse.shed()
			conn.h2.awaitData()
		}
		st.ready = time.Now()
		runDeep(st, st.done)
		if st.over {
			return st.reusable
		}
	}
}

// h2Conn returns the call's connection when it is an HTTP/2 stream.
func (call *Call) h2Conn() *httpConn {
	call.gateMu.Lock()
	defer call.gateMu.Unlock()
	if call.conn != nil && call.conn.h2 != nil {
		return call.conn
	}
	return nil
}

// startDeep sends the call (startOn) on a goroutine of its own: building
// and framing the request (and, for the first call of a kind or when every
// connection is full, its header map and a TLS handshake) is deeper than
// the rest of the call's life on the caller's goroutine, which then keeps a
// 4 KiB stack. Not on a deep goroutine: a send may wait for a connection to
// be dialed, and the deep goroutines must not wait behind it.
func (t *httpTransport) startDeep(ctx context.Context, call *Call) error {
	done := make(chan error, 1)
	go func() { done <- t.startOn(ctx, call) }()
	return <-done
}
