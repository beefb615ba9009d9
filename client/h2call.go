package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// The calls of an httpTransport on HTTP/2 streams (see h2.go).

// startH2 sends a call on a stream of its own.
func (t *httpTransport) startH2(ctx context.Context, call *Call) error {
	s, err := t.sendH2(ctx, call.method, call.name, call.headers, call.body)
	if err != nil {
		if err == errUseH1 {
			return err
		}
		return fmt.Errorf("send %s: %w", call.method, err)
	}
	call.sent = time.Now()
	// No bufio buffer: the stream's SSE is read through conn.stream, which
	// holds a shared buffer only while it has bytes to parse.
	conn := &httpConn{nc: s, h2: s}
	conn.sse = newSSEReader(&conn.stream, t.c.cfg.MaxMessageBytes)
	call.gateMu.Lock()
	call.conn = conn
	call.gateMu.Unlock()
	return nil
}

// exchangeH2 is exchange on a stream: the answer's status, its body read
// (bounded) and dropped.
func (t *httpTransport) exchangeH2(ctx context.Context, method string, body []byte) (int, error) {
	s, err := t.sendH2(ctx, method, "", nil, body)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	_ = s.SetReadDeadline(deadline)
	resp, err := s.response()
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// onH2 reports whether new requests go on HTTP/2 streams.
func (t *httpTransport) onH2() bool { return t.h2 != nil && t.h2.on.Load() }

// httpVersion is the HTTP version new requests use: "HTTP/2" once the
// server picked h2 on ALPN, else "HTTP/1.1".
func (t *httpTransport) httpVersion() string {
	if t.onH2() {
		return "HTTP/2"
	}
	return "HTTP/1.1"
}

// sendH2 sends on a stream the request writeRequest would write over
// HTTP/1.1: the same headers, for method (a DELETE when body is nil).
func (t *httpTransport) sendH2(ctx context.Context, method, name string, extra, body []byte) (*h2Stream, error) {
	verb := http.MethodPost
	if body == nil {
		verb = http.MethodDelete
	}
	return t.h2.send(ctx, verb, t.h2Header(method, name, extra), body)
}

// maxH2Headers bounds the header maps kept for reuse (h2Header).
const maxH2Headers = 64

// h2Header returns the header of a request for method, tool name and extra
// header lines. The header is only read (h2Conn.writeHeaders): requests
// with the same header share one map (up to maxH2Headers of them), built
// once for them all.
func (t *httpTransport) h2Header(method, name string, extra []byte) http.Header {
	sid := t.sessionID()
	var kb [256]byte
	key := append(kb[:0], method...)
	key = append(append(key, 0), name...)
	key = append(append(key, 0), extra...)
	key = append(append(key, 0), sid...)
	key = append(append(key, 0), t.c.era...)
	t.mu.Lock()
	h, ok := t.h2Headers[string(key)]
	t.mu.Unlock()
	if ok {
		return h
	}
	h = t.newH2Header(method, name, extra, sid)
	t.mu.Lock()
	if t.h2Headers == nil {
		t.h2Headers = make(map[string]http.Header)
	}
	if len(t.h2Headers) < maxH2Headers {
		t.h2Headers[string(key)] = h
	}
	t.mu.Unlock()
	return h
}

// newH2Header builds a request header: the static headers, the era's and
// the method's, extra, and the 2025 session id sid. The era is part of
// h2Header's key: it is settled while the first requests are sent.
func (t *httpTransport) newH2Header(method, name string, extra []byte, sid string) http.Header {
	h := make(http.Header, len(t.headers)+6)
	for _, kv := range t.headers {
		h[kv[0]] = []string{kv[1]}
	}
	era := t.c.era
	if era.Modern() || method != vocab.MethodInitialize {
		h.Set(vocab.HeaderProtocolVersion, string(era))
	}
	if era.Modern() && method != "" {
		h.Set(vocab.HeaderMethod, method)
		if name != "" {
			h.Set(vocab.HeaderName, headerValue(name))
		}
		for len(extra) > 0 {
			line, rest, _ := bytes.Cut(extra, []byte("\r\n"))
			extra = rest
			if k, v, ok := bytes.Cut(line, []byte(": ")); ok {
				h[http.CanonicalHeaderKey(string(k))] = []string{string(v)}
			}
		}
	}
	if sid != "" && !era.Modern() {
		h.Set(vocab.HeaderSessionID, sid)
	}
	return h
}
