package client

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// maxHeaderBytes bounds a response's status line and headers.
const maxHeaderBytes = 1 << 20

// countingReader counts the bytes read from a connection, so a stale
// keep-alive connection (closed before answering anything) can be told
// from one that failed mid-response.
type countingReader struct {
	r io.Reader
	n int64
	// max, while above 0, stops reading at max bytes (set while reading
	// response headers, which http.ReadResponse would read without bound).
	max int64
}

// errHeadersTooLarge reports response headers over maxHeaderBytes.
var errHeadersTooLarge = fmt.Errorf("response headers exceed %d bytes", maxHeaderBytes)

func (r *countingReader) Read(p []byte) (int, error) {
	if r.max > 0 {
		if r.n >= r.max {
			return 0, errHeadersTooLarge
		}
		p = p[:min(int64(len(p)), r.max-r.n)]
	}
	n, err := r.r.Read(p)
	r.n += int64(n)
	return n, err
}

// wait reads a call's response: on 2026 HTTP on the calling goroutine,
// on a 2025 session on one of its own (see waitLegacy).
func (t *httpTransport) wait(call *Call) {
	if t.c.era.Modern() {
		t.read(call)
		return
	}
	t.waitLegacy(call)
}

// read reads a call's response: headers, then a JSON body or an SSE
// stream, delivering events as they arrive.
//
// A goroutine blocks in read (in readSSE) for every open call, and its
// stack is sized by the frames on it when it blocks: the work that builds
// events is kept in helpers (readHead, badContentType, sseEnd,
// sseMessage) that are off the stack while it waits, so 10,000 open calls
// cost 8 KiB of stack each rather than 16 KiB (docs/performance.md).
func (t *httpTransport) read(call *Call) {
	defer t.untrack(call)
	var conn *httpConn
	var resp *http.Response
	var ct string
	if c := call.h2Conn(); c != nil {
		conn, resp, ct = t.readHeadH2(call, c)
	} else {
		conn, resp, ct = t.readHead(call)
	}
	if resp == nil {
		return
	}
	var reusable bool
	switch {
	case resp.StatusCode/100 != 2:
		reusable = t.readErrorBody(call, conn, resp)
	case ct == "text/event-stream":
		reusable = t.readSSE(call, conn, resp)
	case ct == "application/json":
		reusable = t.readJSON(call, conn, resp, true)
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		reusable = t.readJSON(call, conn, resp, false)
	default:
		t.badContentType(call, resp, ct)
	}
	// Detach the connection from the call before pooling it, under the lock
	// Cancel and Abort take, so stopping a call that has already ended can
	// never close (or set a deadline on) a connection another call now uses.
	call.gateMu.Lock()
	reuse := reusable && !resp.Close && !conn.partial && !call.stopped() && conn.h2 == nil
	if reuse {
		call.conn = nil
	}
	call.gateMu.Unlock()
	if reuse {
		t.put(conn)
		return
	}
	conn.nc.Close()
	t.unwatch(conn)
}

// readHead reads the response's headers and delivers EvHeaders; a nil
// response means the call ended (its connection is closed).
//
//go:noinline (off read's frame: see read)
func (t *httpTransport) readHead(call *Call) (*httpConn, *http.Response, string) {
	call.gateMu.Lock()
	conn := call.conn
	call.gateMu.Unlock()
	if conn == nil {
		call.end(time.Now(), errors.New("call was never sent"))
		return nil, nil, ""
	}
	resp, err := t.readHeaders(call, &conn)
	if err != nil {
		conn.nc.Close()
		call.end(time.Now(), t.endErr(call, err))
		return nil, nil, ""
	}
	if call.closedAt.Load() != 0 {
		// We closed the connection (a cancel or an abort) while the headers
		// were on their way: what the read got was in flight, answering our
		// close. It ends the call as the failed read would have a moment
		// later, so the outcome does not hang on which came first.
		conn.nc.Close()
		call.end(time.Now(), nil)
		return nil, nil, ""
	}
	at := time.Now()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	call.emit(Event{Kind: EvHeaders, At: at, Status: resp.StatusCode, ContentType: ct,
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), at), RateLimitReset: rateLimitReset(resp.Header, at),
		RateLimit: rateLimitClaim(resp.Header)})
	if call.method == vocab.MethodInitialize && resp.StatusCode/100 == 2 {
		if sid := resp.Header.Get(vocab.HeaderSessionID); sid != "" {
			t.mu.Lock()
			t.session = sid
			t.mu.Unlock()
		}
	}
	return conn, resp, ct
}

// badContentType ends a call whose answer is neither JSON nor SSE.
//
//go:noinline (off read's frame: see read)
func (t *httpTransport) badContentType(call *Call, resp *http.Response, ct string) {
	at := time.Now()
	call.emit(Event{Kind: EvViolation, At: at, Violation: ViolContentType, Detail: "answer has Content-Type " + strconv.Quote(resp.Header.Get("Content-Type"))})
	call.end(at, &protocolError{msg: "unexpected Content-Type " + strconv.Quote(ct) + bodyStart(resp)})
}

// readHeaders reads the status line and headers, re-sending once on a
// fresh connection when a reused one was stale.
func (t *httpTransport) readHeaders(call *Call, conn **httpConn) (*http.Response, error) {
	if s := (*conn).h2; s != nil {
		return s.response()
	}
	for attempt := 0; ; attempt++ {
		c := *conn
		c.lim.n, c.lim.max = 0, maxHeaderBytes
		resp, err := http.ReadResponse(c.br, nil)
		c.lim.max = 0
		if err == nil {
			return resp, nil
		}
		if attempt > 0 || !c.reused || c.lim.n > 0 || call.stopped() || !staleErr(err) {
			return nil, err
		}
		nc, rerr := t.retry(call, c)
		if rerr != nil {
			return nil, err
		}
		*conn = nc
	}
}

func staleErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// endErr turns a read error into the call's end: nil when we stopped the
// call ourselves, else what happened.
func (t *httpTransport) endErr(call *Call, err error) error {
	if call.stopped() {
		return nil
	}
	if errors.Is(err, io.EOF) {
		return errStreamEnded
	}
	return err
}

// readJSON reads a JSON body holding one message (or, for 202/204, none).
func (t *httpTransport) readJSON(call *Call, conn *httpConn, resp *http.Response, want bool) bool {
	var body []byte
	var err error
	if resp.ContentLength > int64(t.c.cfg.MaxMessageBytes) {
		err = errOversize{max: t.c.cfg.MaxMessageBytes} // known before reading any of it
	} else {
		body, err = readBounded(resp.Body, &conn.jbuf, t.c.cfg.MaxMessageBytes)
	}
	at := time.Now()
	switch {
	case IsOversize(err):
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolOversize, Detail: err.Error()})
		call.end(at, err)
		return false
	case err != nil:
		call.end(at, t.endErr(call, err))
		return false
	case len(body) == 0 && !want:
		// 202 to a request: the answer will never come on this stream.
		call.end(at, errStreamEnded)
		return true
	}
	if err := decodeMessage(&conn.sc, body, &conn.msg); err != nil {
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolNotJSONRPC, Detail: "JSON body: " + err.Error()})
		broken := call.brokenAnswer(&conn.msg, err)
		if broken == nil {
			broken = &protocolError{msg: "JSON body is not a JSON-RPC message: " + err.Error()}
		}
		call.end(at, broken)
		return true
	}
	final, broken := call.deliver(&conn.sc, &conn.msg, at)
	switch {
	case broken != nil:
		call.end(at, broken)
	case !final && !call.stopped():
		what := cmp.Or(stray(&conn.msg, nil), "a message that is no response")
		call.end(at, &protocolError{msg: errStreamEnded.Error() + ": the JSON body held " + what, err: errStreamEnded})
	default:
		call.end(at, nil)
	}
	return true
}

// readErrorBody reads the body of a non-2xx answer (bounded) and delivers
// the JSON-RPC error it carries, if any.
func (t *httpTransport) readErrorBody(call *Call, conn *httpConn, resp *http.Response) bool {
	limit := min(t.c.cfg.MaxMessageBytes, 1<<20)
	body, err := readBounded(resp.Body, &conn.jbuf, limit)
	at := time.Now()
	if err == nil && len(body) > 0 && decodeMessage(&conn.sc, body, &conn.msg) == nil && conn.msg.kind == kindError {
		call.emit(Event{Kind: EvRPCError, At: at, Code: conn.msg.errCode, Message: conn.msg.errMessage, Raw: conn.msg.errData})
	}
	call.end(at, nil)
	return err == nil
}

// readBounded reads r to its end into *buf, failing past max bytes.
func readBounded(r io.Reader, buf *[]byte, max int) ([]byte, error) {
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > max {
			*buf = nil
			return nil, errOversize{max: max}
		}
		if err == io.EOF {
			if cap(b) <= 64<<10 {
				*buf = b
			} else {
				*buf = nil
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
}

// retryAfter parses a Retry-After header (seconds or an HTTP date); -1 when
// absent or unreadable. A number of seconds too large for a Duration (over
// 292 years) is the largest Duration, not a wrapped negative one.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return -1
	}
	const most = uint64(math.MaxInt64 / int64(time.Second))
	if n, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || n > most {
			return math.MaxInt64
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// bodyStartBytes is how much of an unexpected answer an error shows.
const bodyStartBytes = 120

// bodyStart says what an answer that is not MCP holds: its status and its
// first bytes (an HTML page from a proxy, say), read within a bound.
func bodyStart(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, bodyStartBytes+1))
	s := " (HTTP status " + strconv.Itoa(resp.StatusCode)
	if len(b) > 0 {
		s += "; the body begins " + quoteFew(b, bodyStartBytes)
	}
	return s + ")"
}
