package client

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// Our HTTP/2 connection (h2conn.go) against a server scripted frame by
// frame over TLS on loopback: what a broken or hostile server may do.

// rawH2 serves each connection it accepts with script, after the preface
// and its SETTINGS (settings).
type rawH2 struct {
	ln    net.Listener
	roots *x509.CertPool
	conns atomic.Int32
}

// h2Peer is the server's side of one connection.
type h2Peer struct {
	t    *testing.T
	conn net.Conn
	fr   *http2.Framer
	enc  *hpack.Encoder
	buf  bytes.Buffer
}

func startRawH2(t *testing.T, settings []http2.Setting, script func(p *h2Peer)) *rawH2 {
	t.Helper()
	cs := httptest.NewUnstartedServer(http.NotFoundHandler())
	cs.StartTLS() // for its certificate
	cert, leaf := cs.TLS.Certificates[0], cs.Certificate()
	cs.Close()
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r := &rawH2{ln: ln, roots: roots}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.conns.Add(1)
			go func() {
				defer c.Close()
				tc := tls.Server(c, cfg)
				preface := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(tc, preface); err != nil {
					return
				}
				p := &h2Peer{t: t, conn: tc, fr: http2.NewFramer(tc, tc)}
				p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
				p.enc = hpack.NewEncoder(&p.buf)
				if p.fr.WriteSettings(settings...) != nil {
					return
				}
				script(p)
			}()
		}
	}()
	return r
}

// dial opens our connection to the server.
func (r *rawH2) dial(t *testing.T) *h2Conn {
	t.Helper()
	cc, err := newH2Conn(ctxT(t), r.handshake(t), "raw", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cc.close)
	return cc
}

// handshake opens a TLS connection to the server that chose h2.
func (r *rawH2) handshake(t *testing.T) net.Conn {
	t.Helper()
	nc, err := tls.Dial("tcp", r.ln.Addr().String(), &tls.Config{RootCAs: r.roots, NextProtos: []string{"h2"}, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	return nc
}

// request sends a POST on a new stream of cc.
func request(t *testing.T, cc *h2Conn) *h2Stream {
	t.Helper()
	if !cc.reserve() {
		t.Fatal("the connection took no stream")
	}
	s, err := cc.send(ctxT(t), http.MethodPost, "/mcp", http.Header{"Content-Type": {"application/json"}}, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// next reads frames until one of the kinds wanted, acknowledging SETTINGS
// and skipping the rest; nil when the connection ended.
func (p *h2Peer) next(want ...http2.FrameType) http2.Frame {
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return nil
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			_ = p.fr.WriteSettingsAck()
		}
		for _, w := range want {
			if f.Header().Type == w {
				return f
			}
		}
	}
}

// answer writes response headers (status 200, content type ct) on id.
func (p *h2Peer) answer(id uint32, ct string, end bool) {
	p.buf.Reset()
	_ = p.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	_ = p.enc.WriteField(hpack.HeaderField{Name: "content-type", Value: ct})
	_ = p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: p.buf.Bytes(), EndHeaders: true, EndStream: end})
}

// readAll reads a stream's body to its end, within the test's wait.
func readAll(t *testing.T, s *h2Stream) ([]byte, error) {
	t.Helper()
	_ = s.SetReadDeadline(time.Now().Add(testutil.WaitLong))
	if _, err := s.response(); err != nil {
		return nil, err
	}
	return io.ReadAll(s)
}

// Our HTTP/2 connection against a server scripted frame by frame: the
// frames a server may send that the standard library's client used to
// handle for us.

// h2Answer is the body the scripted servers answer with.
var h2Answer = []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)

// TestH2ConnAnswersPing: answers a ping and reads the answer after it.
func TestH2ConnAnswersPing(t *testing.T) {
	t.Parallel()
	acked := make(chan [8]byte, 1)
	r := startRawH2(t, nil, func(p *h2Peer) {
		h := p.next(http2.FrameHeaders)
		_ = p.fr.WritePing(false, [8]byte{1, 2, 3})
		if f, ok := p.next(http2.FramePing).(*http2.PingFrame); ok && f.IsAck() {
			acked <- f.Data
		}
		p.answer(h.Header().StreamID, "application/json", false)
		_ = p.fr.WriteData(h.Header().StreamID, true, h2Answer)
		p.next() // until the client goes
	})
	got, err := readAll(t, request(t, r.dial(t)))
	if err != nil || !bytes.Equal(got, h2Answer) {
		t.Fatalf("body %q, %v", got, err)
	}
	select {
	case d := <-acked:
		if d != [8]byte{1, 2, 3} {
			t.Errorf("PING acknowledged with %v", d)
		}
	case <-time.After(testutil.WaitLong):
		t.Error("the PING was not acknowledged")
	}
}

// TestH2ConnStreamPastItsWindow: a stream past its window fails alone.
func TestH2ConnStreamPastItsWindow(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, nil, func(p *h2Peer) {
		first := p.next(http2.FrameHeaders).Header().StreamID
		second := p.next(http2.FrameHeaders).Header().StreamID
		p.answer(first, "text/event-stream", false)
		chunk := bytes.Repeat([]byte("x"), 16<<10)
		for range h2StreamWindow/len(chunk) + 1 { // one frame past the window
			if p.fr.WriteData(first, false, chunk) != nil {
				return
			}
		}
		p.answer(second, "application/json", false)
		_ = p.fr.WriteData(second, true, h2Answer)
		p.next()
	})
	cc := r.dial(t)
	flooded, fine := request(t, cc), request(t, cc)
	if _, err := flooded.response(); err != nil {
		t.Fatalf("the flooded stream's headers: %v", err)
	}
	_ = flooded.SetReadDeadline(time.Now().Add(testutil.WaitLong))
	testutil.Poll(testutil.WaitLong, func() bool { return streamErr(flooded) != nil })
	if err := streamErr(flooded); err == nil || !strings.Contains(err.Error(), "flow-control window") {
		t.Errorf("the flooded stream failed with %v, want its flow-control window named", err)
	}
	if got, err := readAll(t, fine); err != nil || !bytes.Equal(got, h2Answer) {
		t.Errorf("the other stream read %q, %v", got, err)
	}
	if err := cc.Err(); err != nil {
		t.Errorf("the connection failed: %v", err)
	}
}

// TestH2ConnGoAway: GOAWAY fails the streams it did not take, and no new one starts.
func TestH2ConnGoAway(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, nil, func(p *h2Peer) {
		first := p.next(http2.FrameHeaders).Header().StreamID
		p.next(http2.FrameHeaders)
		_ = p.fr.WriteGoAway(first, http2.ErrCodeNo, nil)
		p.answer(first, "application/json", false)
		_ = p.fr.WriteData(first, true, h2Answer)
		p.next()
	})
	cc := r.dial(t)
	taken, dropped := request(t, cc), request(t, cc)
	if got, err := readAll(t, taken); err != nil || !bytes.Equal(got, h2Answer) {
		t.Errorf("the stream GOAWAY kept read %q, %v", got, err)
	}
	if _, err := dropped.response(); err == nil || !strings.Contains(err.Error(), "GOAWAY") {
		t.Errorf("the stream past GOAWAY: %v, want a GOAWAY error", err)
	}
	if cc.reserve() {
		t.Error("a connection after GOAWAY took a new stream")
	}
}

// TestH2ConnStreamLimit: the server's stream limit holds a connection to its streams.
func TestH2ConnStreamLimit(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 1}}, func(p *h2Peer) {
		p.next() // never answers
	})
	cc := r.dial(t)
	s := request(t, cc)
	if cc.reserve() {
		t.Fatal("a second stream was reserved past SETTINGS_MAX_CONCURRENT_STREAMS 1")
	}
	s.Close()
	if !cc.reserve() {
		t.Error("no stream could be reserved after the first was closed")
	}
}

// TestH2ConnDataBeforeHeaders: data before the headers fails the stream, not hangs it.
func TestH2ConnDataBeforeHeaders(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, nil, func(p *h2Peer) {
		id := p.next(http2.FrameHeaders).Header().StreamID
		_ = p.fr.WriteData(id, true, h2Answer)
		p.next()
	})
	if _, err := readAll(t, request(t, r.dial(t))); err == nil || !strings.Contains(err.Error(), "before the response's headers") {
		t.Errorf("read: %v, want the data before the headers named", err)
	}
}

// TestH2ConnInterimEnd: a stream ended on an interim answer fails.
func TestH2ConnInterimEnd(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, nil, func(p *h2Peer) {
		id := p.next(http2.FrameHeaders).Header().StreamID
		p.buf.Reset()
		_ = p.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "103"})
		_ = p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: p.buf.Bytes(), EndHeaders: true, EndStream: true})
		p.next()
	})
	if _, err := readAll(t, request(t, r.dial(t))); err == nil || !strings.Contains(err.Error(), "interim 103") {
		t.Errorf("read: %v, want the interim answer named", err)
	}
}

// TestH2ConnFrameSizeSetting: a frame size under 16384 fails the connection.
func TestH2ConnFrameSizeSetting(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, []http2.Setting{{ID: http2.SettingMaxFrameSize, Val: 0}}, func(p *h2Peer) { p.next() })
	if cc, err := newH2Conn(ctxT(t), r.handshake(t), "raw", "127.0.0.1"); err == nil {
		cc.close()
		t.Fatal("a connection whose server set SETTINGS_MAX_FRAME_SIZE 0 was taken")
	} else if !strings.Contains(err.Error(), "SETTINGS_MAX_FRAME_SIZE") {
		t.Errorf("error %v does not name the setting", err)
	}
}

// TestH2ConnPingFlood: a server that floods PINGs and reads nothing fails its connection.
func TestH2ConnPingFlood(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, nil, func(p *h2Peer) {
		bw := bufio.NewWriterSize(p.conn, 64<<10)
		flood := http2.NewFramer(bw, nil)
		for range (h2OutLimit/17)*2 + 1 { // twice the acknowledgements the bound holds
			if flood.WritePing(false, [8]byte{}) != nil {
				return
			}
		}
		_ = bw.Flush()
		time.Sleep(testutil.WaitLong) // never reading
	})
	cc := r.dial(t)
	most := 0
	testutil.Poll(testutil.WaitLong, func() bool {
		cc.wmu.Lock()
		most = max(most, cc.out.Len())
		cc.wmu.Unlock()
		return cc.Err() != nil
	})
	if err := cc.Err(); err == nil || !strings.Contains(err.Error(), "sends more than it reads") {
		t.Errorf("the connection's error: %v, want the flood named", err)
	}
	// A few acknowledgements may follow the one that passed the bound.
	if most > h2OutLimit+4<<10 {
		t.Errorf("%d bytes of frames waited, over the bound %d", most, h2OutLimit)
	}
}

// TestH2ConnHeaderListBound: a header list over the bound fails its stream.
func TestH2ConnHeaderListBound(t *testing.T) {
	t.Parallel()
	r := startRawH2(t, nil, func(p *h2Peer) {
		id := p.next(http2.FrameHeaders).Header().StreamID
		p.buf.Reset()
		_ = p.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		for i := range 40 {
			_ = p.enc.WriteField(hpack.HeaderField{Name: "x-big-" + string(rune('a'+i%26)), Value: strings.Repeat("v", 32<<10)})
		}
		blk := p.buf.Bytes()
		_ = p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: blk[:16<<10]})
		for blk = blk[16<<10:]; len(blk) > 0; {
			n := min(len(blk), 16<<10)
			_ = p.fr.WriteContinuation(id, n == len(blk), blk[:n])
			blk = blk[n:]
		}
		p.next()
	})
	_, err := readAll(t, request(t, r.dial(t)))
	if err == nil {
		t.Fatal("a 1.3 MB header list was taken")
	}
}

func streamErr(s *h2Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// TestH2WriteErr: a write of frames that timed out names a server that
// reads nothing, as the flood's bound does (TestH2ConnPingFlood: on a
// slow machine the socket's buffers may take the flood's answers until
// the write times out, before ours pass h2OutLimit); another error is
// only the write's.
func TestH2WriteErr(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"timed out", "sends more than it reads", &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}},
		{"reset", "write: connection reset", errors.New("connection reset")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := writeErr(tc.err)
			if !strings.Contains(got.Error(), tc.want) || !errors.Is(got, tc.err) {
				t.Errorf("writeErr(%v) = %v, want it to say %q and wrap the error", tc.err, got, tc.want)
			}
		})
	}
}
