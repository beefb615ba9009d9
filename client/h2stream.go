package client

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

// h2Stream is one request's stream on an h2Conn, standing in for the
// connection of an HTTP/1.1 call (httpConn.nc): Read reads the response
// body, Close resets the stream, SetReadDeadline resets it when the
// deadline passes. The connection's reader puts the stream's data in its
// buffer (take) and wakes the one goroutine that reads it; the buffer is
// the pool's while it holds data and given back once it is read, so a
// stream waiting for its next event holds none.
type h2Stream struct {
	cc   *h2Conn
	id   uint32
	head chan struct{} // closed once the response's headers came, or the stream failed
	wake chan struct{} // a token when data, the end or a failure came

	mu       sync.Mutex
	resp     *http.Response
	headDone bool
	data     *[]byte // received and unread: (*data)[r:]
	r        int
	ended    bool // the server's END_STREAM came
	// endedNs is when it came, deadlineNs the read deadline (both since
	// clockBase; 0: none): expire weighs the one against the other.
	endedNs, deadlineNs int64
	sentEnd             bool  // the request was written whole (END_STREAM sent)
	err                 error // the stream failed (after the data received, unless ours)
	unacked             int64 // bytes read, not yet given back to the stream's window
	timer               *time.Timer
	timedOut            atomic.Bool

	sendWin int64 // our send window on the stream: under cc.mu
}

func newH2Stream(cc *h2Conn, id uint32) *h2Stream {
	return &h2Stream{cc: cc, id: id, head: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// errStreamClosed is a read of a stream we closed.
var errStreamClosed = errors.New("read HTTP/2 stream: closed")

func (s *h2Stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// growSend adds to the stream's send window (under cc.mu), held at
// 2^31-1: a server that takes it past that (its flow-control error) only
// gets no more room than the protocol allows.
func (s *h2Stream) growSend(d int64) {
	s.sendWin = min(s.sendWin+d, 1<<31-1)
}

func (s *h2Stream) hasResponse() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resp != nil
}

// answered takes the response's headers.
func (s *h2Stream) answered(resp *http.Response, end bool) {
	s.mu.Lock()
	s.resp = resp
	s.noteEnd(end)
	s.ended = s.ended || end
	s.closeHeadLocked()
	done := s.ended && s.sentEnd
	s.mu.Unlock()
	s.signal()
	if done {
		s.cc.release(s)
	}
}

func (s *h2Stream) closeHeadLocked() {
	if !s.headDone {
		s.headDone = true
		close(s.head)
	}
}

// take adds a DATA frame's bytes (n counted against the stream's window)
// and, with end, the server's END_STREAM. It reports false when the
// stream is over and the bytes were dropped, or when they were past the
// stream's window (the stream then fails).
func (s *h2Stream) take(data []byte, n int64, end bool) bool {
	s.mu.Lock()
	if s.err != nil || s.ended {
		s.mu.Unlock()
		return false
	}
	if int64(s.buffered())+s.unacked+n > h2StreamWindow {
		s.mu.Unlock()
		s.localFail(errors.New("the server sent past the stream's flow-control window"), true)
		return false
	}
	if s.resp == nil {
		s.mu.Unlock()
		s.localFail(errors.New("the server sent data before the response's headers"), true)
		return false
	}
	if len(data) > 0 {
		s.append(data)
	}
	s.unacked += n - int64(len(data)) // padding: given back with the next reads
	s.noteEnd(end)
	s.ended = end
	done := end && s.sentEnd
	s.mu.Unlock()
	s.signal()
	if done {
		s.cc.release(s)
	}
	return true
}

func (s *h2Stream) buffered() int {
	if s.data == nil {
		return 0
	}
	return len(*s.data) - s.r
}

// h2SmallBuf is the size of the buffer a stream takes for what it
// received while that fits (a progress notification does): after a burst
// in which thousands of streams each had a message waiting, the pool keeps
// as many buffers until collections drop them, so they are kept small.
const h2SmallBuf = 512

var h2SmallBufs = sync.Pool{New: func() any { b := make([]byte, h2SmallBuf); return &b }}

// append adds data to the buffer: a small pooled one, a pooled one of
// streamReadSize, or a larger one while a reader that fell behind (or
// stalled) has more unread.
func (s *h2Stream) append(data []byte) {
	if s.data == nil {
		s.data, s.r = h2Buf(len(data)), 0
	}
	b := *s.data
	if len(b)+len(data) > cap(b) && s.r > 0 {
		b = b[:copy(b, b[s.r:])]
		s.r = 0
	}
	if len(b)+len(data) > cap(b) {
		nb := h2Buf(max(2*cap(b), len(b)+len(data)))
		*nb = append(*nb, b...)
		s.dropData()
		s.data = nb
		b = *nb
	}
	*s.data = append(b, data...)
}

// h2Buf returns an empty buffer with room for n bytes.
func h2Buf(n int) *[]byte {
	var b *[]byte
	switch {
	case n <= h2SmallBuf:
		b = h2SmallBufs.Get().(*[]byte)
	case n <= streamReadSize:
		b = streamBufs.Get().(*[]byte)
	default:
		nb := make([]byte, 0, n)
		return &nb
	}
	*b = (*b)[:0]
	return b
}

// dropData gives the buffer back to its pool (if it is a pool's).
func (s *h2Stream) dropData() {
	if s.data != nil {
		switch cap(*s.data) {
		case h2SmallBuf:
			h2SmallBufs.Put(s.data)
		case streamReadSize:
			*s.data = (*s.data)[:streamReadSize]
			streamBufs.Put(s.data)
		}
	}
	s.data, s.r = nil, 0
}

// Read reads the response body; a read of no bytes waits until there are
// some, or the stream ended or failed (streamReader relies on it).
func (s *h2Stream) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		switch {
		case s.buffered() > 0:
			if len(p) == 0 {
				s.mu.Unlock()
				return 0, nil
			}
			n := copy(p, (*s.data)[s.r:])
			s.r += n
			if s.r == len(*s.data) {
				s.dropData()
			}
			give := s.readDone(int64(n))
			s.mu.Unlock()
			s.giveBack(give, int64(n))
			return n, nil
		case s.err != nil:
			err := s.err
			s.mu.Unlock()
			return 0, err
		case s.ended:
			s.mu.Unlock()
			return 0, io.EOF
		case s.resp == nil:
			s.mu.Unlock()
			return 0, errors.New("read HTTP/2 stream: its response has not come yet")
		}
		s.mu.Unlock()
		<-s.wake
	}
}

// awaitData waits until the stream has data to read, has ended or has
// failed. readSSE waits here, in its own frame, rather than in a read deep
// under the SSE parser: the goroutine of an open call then blocks with few
// frames under it, and its stack is 4 KiB rather than 8 KiB
// (docs/performance.md).
func (s *h2Stream) awaitData() {
	for {
		s.mu.Lock()
		ready := s.buffered() > 0 || s.err != nil || s.ended || s.resp == nil
		s.mu.Unlock()
		if ready {
			return
		}
		<-s.wake
	}
}

// readDone counts n bytes read and returns how much of the stream's
// window to give back now (a quarter of it at a time), or 0.
func (s *h2Stream) readDone(n int64) int64 {
	s.unacked += n
	if s.unacked < h2StreamWindow/4 || s.ended {
		return 0
	}
	give := s.unacked
	s.unacked = 0
	return give
}

func (s *h2Stream) giveBack(stream, conn int64) {
	if stream > 0 {
		s.cc.frame(func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(s.id, uint32(stream)) })
	}
	s.cc.consumed(conn)
}

// localFail ends the stream from our side (a close, a deadline, a
// server's fault): unread data is dropped and given back, reads fail with
// err, and, with reset, RST_STREAM(CANCEL) goes out unless the stream was
// already over for both sides.
func (s *h2Stream) localFail(err error, reset bool) {
	s.mu.Lock()
	over := s.ended && s.sentEnd
	first := s.err == nil
	if first {
		s.err = err
	}
	dropped := int64(s.buffered())
	s.dropData()
	s.closeHeadLocked()
	s.mu.Unlock()
	s.signal()
	s.cc.consumed(dropped)
	if first && reset && !over {
		s.cc.frame(func(fr *http2.Framer) { _ = fr.WriteRSTStream(s.id, http2.ErrCodeCancel) })
	}
	s.cc.release(s)
}

// remoteFail ends the stream from the server's side (its reset, GOAWAY,
// the connection's end): the data received is still read, then err.
func (s *h2Stream) remoteFail(err error) {
	s.mu.Lock()
	if s.err == nil && !s.ended {
		s.err = err
	}
	s.closeHeadLocked()
	s.mu.Unlock()
	s.signal()
}

// response waits for the response's headers; its Body reads the stream.
func (s *h2Stream) response() (*http.Response, error) {
	<-s.head
	s.mu.Lock()
	resp, err := s.resp, s.err
	s.mu.Unlock()
	if resp != nil {
		return resp, nil
	}
	if s.timedOut.Load() {
		return nil, os.ErrDeadlineExceeded
	}
	return nil, err
}

func (s *h2Stream) Write([]byte) (int, error) {
	return 0, errors.New("write HTTP/2 stream: the request is already sent")
}

// Close resets the stream unless it is over, and frees its buffer.
func (s *h2Stream) Close() error {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
	s.localFail(errStreamClosed, true)
	return nil
}

func (s *h2Stream) LocalAddr() net.Addr  { return s.cc.laddr }
func (s *h2Stream) RemoteAddr() net.Addr { return s.cc.raddr }

func (s *h2Stream) SetDeadline(t time.Time) error { return s.SetReadDeadline(t) }

func (s *h2Stream) SetWriteDeadline(time.Time) error { return nil }

// SetReadDeadline resets the stream when t passes (the zero time: never);
// reads then fail with os.ErrDeadlineExceeded.
func (s *h2Stream) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadlineNs = 0
	if !t.IsZero() {
		s.deadlineNs = int64(t.Sub(clockBase))
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	d := time.Until(t)
	if !t.IsZero() && d > 0 {
		s.timer = time.AfterFunc(d, s.expire)
	}
	s.mu.Unlock()
	if !t.IsZero() && d <= 0 {
		s.expire()
	}
	return nil
}

// noteEnd notes when the server's END_STREAM came (under s.mu).
func (s *h2Stream) noteEnd(end bool) {
	if end && s.endedNs == 0 {
		s.endedNs = max(int64(time.Since(clockBase)), 1)
	}
}

// expire fails the stream at its read deadline, unless the server ended
// it by then: then what it sent is read to its end. A reader (or this
// timer) that did not get the CPU between the end and the deadline must
// not take a stream the server closed in time for one it left open
// (stream_not_closed).
func (s *h2Stream) expire() {
	s.mu.Lock()
	ended := s.ended && s.err == nil && s.endedNs != 0 && s.endedNs <= s.deadlineNs
	s.mu.Unlock()
	if ended {
		return
	}
	s.timedOut.Store(true)
	s.localFail(os.ErrDeadlineExceeded, true)
}
