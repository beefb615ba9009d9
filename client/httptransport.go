package client

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// httpTransport is Streamable HTTP over our own HTTP/1.1 connections, so a
// call can be cut with a FIN or an RST, or left unread, at an exact moment.
// Connections are kept alive and reused when a response ended cleanly.
// When an https:// server picks h2 on ALPN, calls go on HTTP/2 streams
// instead (h2.go).
type httpTransport struct {
	c       *Client
	addr    string // host:port to dial
	path    string // request target
	display string // the URL for messages: no credentials, no query
	tls     *tls.Config
	tlsH1   *tls.Config // ALPN http/1.1 only (the HTTP+SSE transport)
	static  string      // header lines every request carries
	dialer  net.Dialer
	maxIdle int
	url     *url.URL    // the request URL, without credentials (HTTP/2)
	headers [][2]string // static as pairs, without Host (HTTP/2)
	h2      *h2Conns    // nil: HTTP/2 is not offered

	mu      sync.Mutex
	idle    []*httpConn
	session string // legacy Mcp-Session-Id
	closed  bool
	watched map[*httpConn]struct{} // streams read past their call's end (httpstale.go)
	byTok   map[int64]*Call        // calls whose stream is read, by progress token (otherstream.go)
	listen  *listener              // a 2025 session's standalone GET stream (httpget.go)
	// answering bounds the answers to server requests in flight
	// (serverreq.go).
	answering ServerAnswers
	// h2Headers are request headers shared by HTTP/2 requests (h2Header).
	h2Headers map[string]http.Header
}

// httpConn is one keep-alive connection and the buffers its responses are
// read with, reused from call to call.
type httpConn struct {
	nc     net.Conn
	tcp    *net.TCPConn
	lim    countingReader
	br     *bufio.Reader
	body   *bufio.Reader
	sse    *sseReader
	sc     scanner
	msg    inMsg
	wbuf   []byte
	jbuf   []byte
	reused bool
	h2     *h2Stream // the call's HTTP/2 stream (then nc is h2)
	// stream reads an HTTP/2 stream's SSE in place of body.
	stream streamReader
	// partial: the server answered before the request's body was all
	// written, so the connection cannot carry another request.
	partial bool
	// step is the deep work of reading an HTTP/2 stream (httpreadh2.go).
	step h2Step
}

func newHTTPTransport(c *Client, cfg *HTTPConfig) (*httpTransport, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it repeats the URL, credentials and all
		}
		return nil, fmt.Errorf("mcp http: parse url %q: %w", redact.URL(cfg.URL), err)
	}
	t := &httpTransport{c: c, path: u.RequestURI(), maxIdle: cfg.MaxIdleConns}
	if t.maxIdle <= 0 {
		t.maxIdle = 10000
	}
	port := u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
		h2 := cfg.HTTP2 == "" || cfg.HTTP2 == HTTP2Auto
		if !h2 && cfg.HTTP2 != HTTP2Off {
			return nil, fmt.Errorf("mcp http: http2 %q: want auto or off", cfg.HTTP2)
		}
		if t.tls, err = tlsConfig(u.Hostname(), cfg.TLS, h2); err != nil {
			return nil, fmt.Errorf("mcp http: %s: %w", cfg.URL, err)
		}
		t.tlsH1 = t.tls
		if h2 {
			t.tlsH1 = t.tls.Clone()
			t.tlsH1.NextProtos = []string{"http/1.1"}
			if t.h2, err = newH2Conns(t); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("mcp http: url %q: scheme must be http or https", redact.URL(cfg.URL))
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("mcp http: url %q has no host", redact.URL(cfg.URL))
	}
	t.addr = net.JoinHostPort(u.Hostname(), port)
	t.display = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	t.url = &url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	t.dialer.Timeout = cfg.DialTimeout
	if t.dialer.Timeout <= 0 {
		t.dialer.Timeout = 5 * time.Second
	}
	var h strings.Builder
	fmt.Fprintf(&h, "Host: %s\r\n", u.Host)
	t.headers = [][2]string{{"User-Agent", c.cfg.ClientInfo.Name + "/" + c.cfg.ClientInfo.Version},
		{"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"}}
	for k, v := range cfg.Header {
		if strings.ContainsAny(k, "\r\n: ") || strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("mcp http: invalid header %q", k)
		}
		t.headers = append(t.headers, [2]string{k, v})
	}
	for _, kv := range t.headers {
		fmt.Fprintf(&h, "%s: %s\r\n", kv[0], kv[1])
	}
	t.static = h.String()
	return t, nil
}

func (t *httpTransport) name() string { return "http" }

// dial returns a new HTTP/1.1 connection, or errUseH2 when the server
// picked HTTP/2 (the connection then joined t.h2).
func (t *httpTransport) dial(ctx context.Context) (*httpConn, error) {
	nc, err := t.connect(ctx, t.tls)
	if err != nil {
		return nil, err
	}
	if t.h2 != nil {
		if isH2(nc) {
			if _, err := t.h2.adopt(ctx, nc, false); err != nil {
				return nil, err
			}
			return nil, errUseH2
		}
		t.h2.on.Store(false)
	}
	return t.newConn(nc), nil
}

// dialH1 returns a new HTTP/1.1 connection, not offering HTTP/2.
func (t *httpTransport) dialH1(ctx context.Context) (*httpConn, error) {
	nc, err := t.connect(ctx, t.tlsH1)
	if err != nil {
		return nil, err
	}
	return t.newConn(nc), nil
}

// connect opens a connection to the server and, when cfg is set, completes
// the TLS handshake.
func (t *httpTransport) connect(ctx context.Context, cfg *tls.Config) (net.Conn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", t.display, err)
	}
	if !raceBuild { // race_on.go
		nc = rawSockets(nc)
	}
	if cfg == nil {
		return nc, nil
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("tls handshake with %s: %w", t.display, explainTLS(err, cfg.ServerName))
	}
	return tc, nil
}

// newConn wraps an HTTP/1.1 connection and its buffers.
func (t *httpTransport) newConn(nc net.Conn) *httpConn {
	conn := &httpConn{nc: nc}
	raw := nc
	if tc, ok := nc.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	conn.tcp = tcpOf(raw)
	conn.lim.r = conn.nc
	conn.br = bufio.NewReaderSize(&conn.lim, 4096)
	conn.body = bufio.NewReaderSize(nil, 4096)
	conn.sse = newSSEReader(conn.body, t.c.cfg.MaxMessageBytes)
	return conn
}

// get returns an idle connection or dials a new one.
func (t *httpTransport) get(ctx context.Context) (*httpConn, error) {
	t.mu.Lock()
	if n := len(t.idle); n > 0 {
		conn := t.idle[n-1]
		t.idle[n-1] = nil
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		conn.reused = true
		return conn, nil
	}
	t.mu.Unlock()
	return t.dial(ctx)
}

// put returns a connection whose last response ended cleanly.
func (t *httpTransport) put(conn *httpConn) {
	_ = conn.nc.SetDeadline(time.Time{})
	t.mu.Lock()
	if !t.closed && len(t.idle) < t.maxIdle {
		t.idle = append(t.idle, conn)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	conn.nc.Close()
}

func (t *httpTransport) sessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session
}

// writeRequest writes one POST (or DELETE when body is nil) for method.
func (t *httpTransport) writeRequest(ctx context.Context, conn *httpConn, method, name string, extra, body []byte) error {
	b := conn.wbuf[:0]
	if body == nil {
		b = append(b, "DELETE "...)
	} else {
		b = append(b, "POST "...)
	}
	b = append(b, t.path...)
	b = append(b, " HTTP/1.1\r\n"...)
	b = append(b, t.static...)
	era := t.c.era
	if era.Modern() || method != vocab.MethodInitialize {
		b = append(b, vocab.HeaderProtocolVersion+": "...)
		b = append(b, era...)
		b = append(b, "\r\n"...)
	}
	if era.Modern() && method != "" {
		b = append(b, vocab.HeaderMethod+": "...)
		b = append(b, method...)
		b = append(b, "\r\n"...)
		if name != "" {
			b = append(b, vocab.HeaderName+": "...)
			b = append(b, headerValue(name)...)
			b = append(b, "\r\n"...)
		}
		b = append(b, extra...)
	}
	if sid := t.sessionID(); sid != "" && !era.Modern() {
		b = append(b, vocab.HeaderSessionID+": "...)
		b = append(b, sid...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	large := len(body) > maxCopiedBody
	if !large {
		b = append(b, body...)
	}
	conn.wbuf = b
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	_ = conn.nc.SetWriteDeadline(deadline)
	var err error
	if large {
		err = conn.writeWatching(b, body)
	} else {
		_, err = conn.nc.Write(b)
	}
	_ = conn.nc.SetWriteDeadline(time.Time{})
	return err
}

// maxCopiedBody is the largest body copied into a connection's write
// buffer behind the headers; a larger one is written from where it is.
const maxCopiedBody = 32 << 10

func (t *httpTransport) start(ctx context.Context, call *Call) error {
	t.track(call) // before the request: its progress may come on another stream at once
	var err error
	if t.onH2() {
		err = t.startDeep(ctx, call) // httpreadh2.go
	} else {
		err = t.startOn(ctx, call)
	}
	if err != nil {
		t.forgetToken(call)
	}
	return err
}

// startOn sends the call on an HTTP/2 stream or an HTTP/1.1 connection.
func (t *httpTransport) startOn(ctx context.Context, call *Call) error {
	if t.onH2() {
		if err := t.startH2(ctx, call); !errors.Is(err, errUseH1) {
			return err
		}
	}
	conn, err := t.get(ctx)
	if errors.Is(err, errUseH2) {
		return t.startH2(ctx, call)
	}
	if err != nil {
		return err
	}
	err = t.writeRequest(ctx, conn, call.method, call.name, call.headers, call.body)
	if err != nil && conn.reused {
		conn.nc.Close() // a stale keep-alive connection: try once on a new one
		if conn, err = t.dial(ctx); err == nil {
			err = t.writeRequest(ctx, conn, call.method, call.name, call.headers, call.body)
		}
	}
	if err != nil {
		if conn != nil {
			conn.nc.Close()
		}
		return fmt.Errorf("send %s: %w", call.method, err)
	}
	call.sent = time.Now()
	conn.lim.n = 0
	call.gateMu.Lock()
	call.conn = conn
	call.gateMu.Unlock()
	return nil
}

// retry re-sends a call on a fresh connection after its reused one turned
// out to be stale (closed by the server before any byte of an answer).
func (t *httpTransport) retry(call *Call, old *httpConn) (*httpConn, error) {
	old.nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), t.dialer.Timeout)
	defer cancel()
	conn, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.writeRequest(ctx, conn, call.method, call.name, call.headers, call.body); err != nil {
		conn.nc.Close()
		return nil, err
	}
	call.gateMu.Lock()
	defer call.gateMu.Unlock()
	if call.stopped() {
		conn.nc.Close()
		return nil, errors.New("call stopped")
	}
	call.conn = conn
	return conn, nil
}

func (t *httpTransport) pause(*Call, bool) {}
