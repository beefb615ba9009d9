package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// HTTP/2 on https:// targets whose server picks h2 on ALPN, with the
// standard library's HTTP/2 client driving connections mcpchaos dials and
// hands over one at a time (http.Transport.NewClientConn). Many calls then
// share one connection, each on its own stream, so what acts on "a call's
// connection" over HTTP/1.1 acts on the call's stream here:
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
	t1 *http.Transport // makes client connections of the conns we dial
	on atomic.Bool     // the last handshake chose h2: new calls go here

	dialMu sync.Mutex // one dial at a time when every connection is full
	mu     sync.Mutex
	conns  []*http.ClientConn
	addrs  map[*http.ClientConn][2]net.Addr
	closed bool
}

// dialedKey carries a connection mcpchaos dialed and handshook to
// h2Conns.t1's DialTLSContext, which hands it over: t1 never dials.
type dialedKey struct{}

func newH2Conns(t *httpTransport) (*h2Conns, error) {
	protos := new(http.Protocols)
	protos.SetHTTP2(true)
	t1 := &http.Transport{Protocols: protos, MaxResponseHeaderBytes: maxHeaderBytes, DisableCompression: true,
		HTTP2: &http.HTTP2Config{MaxReceiveBufferPerStream: h2StreamWindow,
			MaxReceiveBufferPerConnection: h2ConnWindow, MaxReadFrameSize: h2MaxFrame,
			MaxDecoderHeaderTableSize: 4096, WriteByteTimeout: 10 * time.Second},
		DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			if nc, ok := ctx.Value(dialedKey{}).(net.Conn); ok {
				return nc, nil
			}
			return nil, errors.New("mcp http: no connection to hand over")
		}}
	return &h2Conns{t: t, t1: t1, addrs: map[*http.ClientConn][2]net.Addr{}}, nil
}

func isH2(nc net.Conn) bool {
	tc, ok := nc.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}

// adopt makes a handshaken h2 connection one of the transport's. With
// reserve, a stream of it is reserved for the caller before other calls
// can see it: they would take its streams first under a rush of calls
// (seen once in 10,000 calls ramped in at 2,500/s).
func (p *h2Conns) adopt(ctx context.Context, nc net.Conn, reserve bool) (*http.ClientConn, error) {
	cc, err := p.t1.NewClientConn(context.WithValue(ctx, dialedKey{}, nc), "https", p.t.addr)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("HTTP/2 with %s: %w", p.t.display, err)
	}
	if reserve && cc.Reserve() != nil {
		cc.Close()
		return nil, fmt.Errorf("HTTP/2 with %s: a new connection takes no request", p.t.display)
	}
	p.on.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		cc.Close()
		return nil, fmt.Errorf("HTTP/2 with %s: the client is closed", p.t.display)
	}
	p.conns = append(p.conns, cc)
	p.addrs[cc] = [2]net.Addr{nc.LocalAddr(), nc.RemoteAddr()}
	return cc, nil
}

// reserve returns a connection with a stream reserved for a request,
// dialing a new one when every connection is at the server's limit of
// concurrent streams.
func (p *h2Conns) reserve(ctx context.Context) (*http.ClientConn, error) {
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
// the connections that are closed.
func (p *h2Conns) reserveIdle() *http.ClientConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	live := p.conns[:0]
	var got *http.ClientConn
	for _, cc := range p.conns {
		if cc.Err() != nil {
			delete(p.addrs, cc)
			continue
		}
		live = append(live, cc)
		if got == nil && cc.Reserve() == nil {
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
		cc.Close()
	}
}

// send sends one request on its own stream and returns once it is written
// (or answered first). ctx bounds the writing, not the stream.
func (p *h2Conns) send(ctx context.Context, req *http.Request) (*h2Stream, error) {
	for attempt := 0; ; attempt++ {
		cc, err := p.reserve(ctx)
		if err != nil {
			return nil, err
		}
		s, err := p.sendOn(ctx, cc, req)
		// A connection the server closed (GOAWAY, idle close) before the
		// request got out: once more on another.
		if err != nil && attempt == 0 && s == nil && cc.Err() != nil && ctx.Err() == nil {
			continue
		}
		return s, err
	}
}

func (p *h2Conns) sendOn(ctx context.Context, cc *http.ClientConn, req *http.Request) (*h2Stream, error) {
	rctx, stop := context.WithCancel(context.Background())
	s := &h2Stream{stop: stop, answer: make(chan h2Answer, 1)}
	p.mu.Lock()
	a := p.addrs[cc]
	p.mu.Unlock()
	s.laddr, s.raddr = a[0], a[1]
	wrote := make(chan error, 1)
	rctx = httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		select {
		case wrote <- i.Err:
		default:
		}
	}})
	req = req.WithContext(rctx)
	go func() {
		resp, err := cc.RoundTrip(req)
		s.answer <- h2Answer{resp, err}
	}()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case err := <-wrote:
		if err != nil {
			stop()
			return nil, err
		}
		return s, nil
	case a := <-s.answer:
		if a.err != nil {
			stop()
			return nil, a.err
		}
		s.answer <- a // answered before the request was all written
		return s, nil
	case <-ctx.Done():
		stop()
		return s, ctx.Err()
	case <-timer.C:
		stop()
		return s, fmt.Errorf("write to %s: timed out", p.t.display)
	}
}

type h2Answer struct {
	resp *http.Response
	err  error
}

// h2Stream is one request's stream, standing in for the connection of an
// HTTP/1.1 call (httpConn.nc): Read reads the response body, Close resets
// the stream, SetReadDeadline resets it when the deadline passes.
type h2Stream struct {
	stop   context.CancelFunc // ends the request: RST_STREAM(CANCEL) if it is not over
	answer chan h2Answer

	mu       sync.Mutex
	body     io.ReadCloser
	timer    *time.Timer
	timedOut atomic.Bool

	laddr, raddr net.Addr
}

// response waits for the response's headers; its Body reads the stream.
func (s *h2Stream) response() (*http.Response, error) {
	a := <-s.answer
	if a.err != nil {
		if s.timedOut.Load() {
			return nil, os.ErrDeadlineExceeded
		}
		return nil, a.err
	}
	s.mu.Lock()
	s.body = a.resp.Body
	s.mu.Unlock()
	a.resp.Body = s
	return a.resp, nil
}

func (s *h2Stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	body := s.body
	s.mu.Unlock()
	if body == nil {
		return 0, errors.New("read HTTP/2 stream: its response has not come yet")
	}
	n, err := body.Read(p)
	if err != nil && err != io.EOF && s.timedOut.Load() {
		err = os.ErrDeadlineExceeded
	}
	return n, err
}

func (s *h2Stream) Write([]byte) (int, error) {
	return 0, errors.New("write HTTP/2 stream: the request is already sent")
}

// Close resets the stream unless it is over, and frees its buffers.
func (s *h2Stream) Close() error {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	body := s.body
	s.mu.Unlock()
	s.stop()
	if body != nil {
		body.Close()
	}
	return nil
}

func (s *h2Stream) LocalAddr() net.Addr  { return s.laddr }
func (s *h2Stream) RemoteAddr() net.Addr { return s.raddr }

func (s *h2Stream) SetDeadline(t time.Time) error { return s.SetReadDeadline(t) }

func (s *h2Stream) SetWriteDeadline(time.Time) error { return nil }

// SetReadDeadline resets the stream when t passes (the zero time: never);
// reads then fail with os.ErrDeadlineExceeded.
func (s *h2Stream) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if t.IsZero() {
		return nil
	}
	if d := time.Until(t); d > 0 {
		s.timer = time.AfterFunc(d, s.expire)
	} else {
		s.expire()
	}
	return nil
}

func (s *h2Stream) expire() {
	s.timedOut.Store(true)
	s.stop()
}
