package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// HTTP/2 on https:// targets whose server picks h2 on ALPN, on connections
// mcpchaos dials and frames itself (h2Conn, with golang.org/x/net/http2's
// Framer and HPACK). Many calls then share one connection, each on its own
// stream, so what acts on "a call's connection" over HTTP/1.1 acts on the
// call's stream here:
//
//   - closing the call (a 2026 cancel, a disconnect fault in either mode)
//     sends RST_STREAM(CANCEL) for its stream; the request half of the
//     stream was already closed by END_STREAM when the request was sent,
//     so there is no FIN left to send, and the connection and the other
//     calls on it go on;
//   - a stalled reader stops reading its stream: once the stream's
//     receive window (h2StreamWindow) is full, no WINDOW_UPDATE is sent for
//     it and the server's writes to that stream block; the connection's
//     window is large enough that other streams are not held up;
//   - a read deadline (the late window, the 2025 stale watch) that passes
//     resets the stream too: it cannot be extended afterwards, which no
//     caller needs.
//
// The frames and header lists read are bounded (h2MaxFrame,
// maxHeaderBytes); bodies are bounded by the same readers as on HTTP/1.1.

const (
	// h2StreamWindow is what one stream may have buffered unread: the
	// receive window advertised for each stream.
	h2StreamWindow = 256 << 10
	// h2ConnWindow is the connection's receive window: large enough that
	// stalled streams (at most h2StreamWindow each) never hold up others.
	h2ConnWindow = 1 << 30
	// h2MaxFrame bounds a frame read (the SETTINGS_MAX_FRAME_SIZE sent).
	h2MaxFrame = 64 << 10
)

// Offering HTTP/2 on ALPN (HTTPConfig.HTTP2).
const (
	HTTP2Auto = "auto" // offer h2 and http/1.1; the server picks (the default)
	HTTP2Off  = "off"  // offer http/1.1 only
)

// errUseH2 says that a dial found the server speaking HTTP/2: the
// connection joined the transport's HTTP/2 connections.
var errUseH2 = errors.New("the server chose HTTP/2")

// errUseH1 says that a dial for HTTP/2 found the server speaking HTTP/1.1
// only: the connection joined the HTTP/1.1 pool.
var errUseH1 = errors.New("the server chose HTTP/1.1")

// h2Conns are a transport's HTTP/2 connections.
type h2Conns struct {
	t  *httpTransport
	on atomic.Bool // the last handshake chose h2: new calls go here

	dialMu sync.Mutex // one dial at a time when every connection is full
	mu     sync.Mutex
	conns  []*h2Conn
	closed bool
}

func newH2Conns(t *httpTransport) (*h2Conns, error) {
	return &h2Conns{t: t}, nil
}

func isH2(nc net.Conn) bool {
	tc, ok := nc.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}

// adopt makes a handshaken h2 connection one of the transport's. With
// reserve, a stream of it is reserved for the caller before other calls
// can see it: they would take its streams first under a rush of calls
// (seen once in 10,000 calls ramped in at 2,500/s).
func (p *h2Conns) adopt(ctx context.Context, nc net.Conn, reserve bool) (*h2Conn, error) {
	cc, err := newH2Conn(ctx, nc, p.t.display, p.t.url.Host)
	if err != nil {
		return nil, err
	}
	if reserve && !cc.reserve() {
		cc.close()
		return nil, fmt.Errorf("HTTP/2 with %s: a new connection takes no request", p.t.display)
	}
	p.on.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		cc.close()
		return nil, fmt.Errorf("HTTP/2 with %s: the client is closed", p.t.display)
	}
	p.conns = append(p.conns, cc)
	return cc, nil
}

// reserve returns a connection with a stream reserved for a request,
// dialing a new one when every connection is at the server's limit of
// concurrent streams.
func (p *h2Conns) reserve(ctx context.Context) (*h2Conn, error) {
	if cc := p.reserveIdle(); cc != nil {
		return cc, nil
	}
	p.dialMu.Lock()
	defer p.dialMu.Unlock()
	if cc := p.reserveIdle(); cc != nil {
		return cc, nil // another caller's dial made room
	}
	nc, err := p.t.connect(ctx, p.t.tls)
	if err != nil {
		return nil, err
	}
	if !isH2(nc) {
		p.on.Store(false)
		p.t.put(p.t.newConn(nc))
		return nil, errUseH1
	}
	return p.adopt(ctx, nc, true)
}

// reserveIdle reserves a stream on a connection that has room, forgetting
// the connections that failed.
func (p *h2Conns) reserveIdle() *h2Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	live := p.conns[:0]
	var got *h2Conn
	for _, cc := range p.conns {
		if cc.Err() != nil {
			continue
		}
		live = append(live, cc)
		if got == nil && cc.reserve() {
			got = cc
		}
	}
	clear(p.conns[len(live):])
	p.conns = live
	return got
}

func (p *h2Conns) close() {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, cc := range conns {
		cc.close()
	}
}

// send sends one request (method, header, body: nil for none) on its own
// stream and returns once it is written. ctx bounds the writing, not the
// stream.
func (p *h2Conns) send(ctx context.Context, method string, h http.Header, body []byte) (*h2Stream, error) {
	for attempt := 0; ; attempt++ {
		cc, err := p.reserve(ctx)
		if err != nil {
			return nil, err
		}
		s, err := cc.send(ctx, method, p.t.path, h, body)
		// A connection that failed or got GOAWAY before the request went
		// out: once more on another.
		if err == errH2Gone && attempt == 0 && ctx.Err() == nil {
			continue
		}
		return s, err
	}
}
