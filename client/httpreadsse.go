package client

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"time"
)

// A call's answer read as an SSE stream on HTTP: each event's message
// delivered, the stream's end, and whether progress came in one piece with
// the answer (answerAhead).

// readSSE reads the call's event stream. After the final response it reads
// on for at most the late window to see whether the server closes the
// stream (it should) or sends more. Its goroutine waits in it for every
// open call: what it does with an event or an error is in sseMessage and
// sseEnd, off its frame (see read).
func (t *httpTransport) readSSE(call *Call, conn *httpConn, resp *http.Response) bool {
	src := conn.lines(resp.Body)
	defer conn.stream.release()
	if conn.h2 != nil {
		return t.readSSEH2(call, conn, src)
	}
	var st sseState
	for {
		call.waitGate(call.done)
		data, err := conn.sse.next()
		at := call.readAt()
		if err != nil {
			// A read past its deadline fails without reading: the end the
			// server sent in time may be waiting in our socket, for a
			// reader that did not get the CPU (HTTP/2: h2Stream.expire).
			st.endWaited = st.final && isTimeout(err) && conn.chunkedEndWaits()
			return t.sseEnd(call, err, at, &st)
		}
		if !t.sseMessage(call, conn, src, data, at, &st) {
			return false
		}
	}
}

// sseState is what readSSE keeps from one event to the next.
type sseState struct {
	final bool
	// strayMsg is the first message that was none of the call's answer.
	strayMsg string
	// endWaited: the late window passed with the stream's end waiting
	// unread in our socket (the server sent it; we read late).
	endWaited bool
}

// sseEnd ends the call when its stream failed or ended with err, and
// reports whether the connection may carry another request.
//
//go:noinline (off readSSE's frame: see read)
func (t *httpTransport) sseEnd(call *Call, err error, at time.Time, st *sseState) bool {
	switch {
	case errors.Is(err, io.EOF) && (st.final || call.ended()):
		call.end(at, nil)
		return true
	case IsOversize(err):
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolOversize, Detail: err.Error()})
		call.end(at, err)
	case st.final && isTimeout(err) && st.endWaited:
		call.end(at, nil) // not reusable: its body's reader failed
	case st.final && isTimeout(err) && !call.stopped():
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolStreamNotClosed, Detail: "stream still open " + t.c.cfg.LateWindow.String() + " after the final response"})
		call.end(at, nil)
	case errors.Is(err, io.EOF) && st.strayMsg != "" && !call.stopped():
		call.end(at, &protocolError{msg: errStreamEnded.Error() + ", after " + st.strayMsg, err: errStreamEnded})
	default:
		call.end(at, t.endErr(call, err))
	}
	return false
}

// chunkedEndWaits says whether the next bytes waiting unread in a plain
// HTTP/1.1 connection's socket are a chunked body's end ("0\r\n"): after
// the final answer, the stream's end, sent but not read. Over TLS the
// bytes waiting are records that say nothing: false.
func (conn *httpConn) chunkedEndWaits() bool {
	if _, tls := conn.nc.(*tls.Conn); tls || conn.h2 != nil {
		return false
	}
	var buf [3]byte
	return bytes.Equal(peekIn(conn.tcp, buf[:]), []byte("0\r\n"))
}

// sseMessage delivers one event's data; false when it ended the call.
//
//go:noinline (off readSSE's frame: see read)
func (t *httpTransport) sseMessage(call *Call, conn *httpConn, src lineSource, data []byte, at time.Time, st *sseState) bool {
	if err := decodeMessage(&conn.sc, data, &conn.msg); err != nil {
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolNotJSONRPC, Detail: "SSE data: " + err.Error()})
		if broken := call.brokenAnswer(&conn.msg, err); broken != nil {
			call.end(at, broken)
			return false
		}
		st.strayMsg = cmp.Or(st.strayMsg, stray(&conn.msg, err))
		return true
	}
	call.ahead = answerAhead(src)
	isFinal, broken := call.deliver(&conn.sc, &conn.msg, at)
	if broken != nil {
		call.end(at, broken)
		return false
	}
	if isFinal {
		st.final = true
		_ = conn.nc.SetReadDeadline(at.Add(t.c.cfg.LateWindow))
	} else if !st.final {
		st.strayMsg = cmp.Or(st.strayMsg, stray(&conn.msg, nil))
	}
	return true
}

// lines makes the connection's SSE reader read body: through its bufio
// buffer on HTTP/1.1, through its streamReader on an HTTP/2 stream.
func (conn *httpConn) lines(body io.Reader) lineSource {
	if conn.h2 != nil {
		conn.stream.reset(body)
		conn.sse.reset(&conn.stream)
		return &conn.stream
	}
	conn.body.Reset(body)
	conn.sse.reset(conn.body)
	return conn.body
}

// answerAhead says whether bytes already received behind the message just
// read hold an answer: a "result" or "error" member (in JSON text those
// bytes, quotes included, appear only as a key; inside a string the quotes
// would be escaped). Progress read with its call's answer already received
// came in one piece with it, as a buffering gateway releases held
// progress (Event.Burst). Progress merely queued behind a slow reader,
// with no answer among it, is not a burst: the call was still running.
// Only the reader's buffer is looked at (4 KiB), without allocating.
func answerAhead(r lineSource) bool {
	n := r.Buffered()
	if n == 0 {
		return false
	}
	ahead, _ := r.Peek(n)
	return bytes.Contains(ahead, []byte(`"result"`)) || bytes.Contains(ahead, []byte(`"error"`))
}
