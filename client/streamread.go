package client

import (
	"bufio"
	"io"
	"sync"
)

// lineSource is what the SSE reader reads from: a *bufio.Reader on an
// HTTP/1.1 connection, a *streamReader on an HTTP/2 stream. Buffered and
// Peek let answerAhead look at what was received behind a message.
type lineSource interface {
	ReadSlice(delim byte) ([]byte, error)
	Buffered() int
	Peek(n int) ([]byte, error)
}

// streamReadSize is a streamReader's buffer: the same as an HTTP/1.1
// connection's bufio buffer.
const streamReadSize = 4096

// streamBufs are the read buffers of HTTP/2 streams, shared: a stream
// holds one only while it has bytes received and not yet parsed.
var streamBufs = sync.Pool{New: func() any { b := make([]byte, streamReadSize); return &b }}

// streamReader is a buffered reader over one HTTP/2 stream whose buffer
// comes from streamBufs and goes back as soon as every byte in it was
// parsed: a call waiting for its next event holds no read buffer, so 10,000
// open streams cost 4 KiB for each stream being parsed at that moment, not
// 40 MiB. It reads like bufio.Reader (ReadSlice, Buffered, Peek); a line
// longer than the buffer comes in pieces (bufio.ErrBufferFull), as from
// bufio, so every read stays bounded by the SSE reader's own limits.
//
// The wait for data without a buffer relies on a read of no bytes blocking
// until the stream has data or has ended, which the standard library's
// HTTP/2 response body does; were it to return at once, the read that
// follows would block holding the buffer, which costs memory, not
// correctness.
type streamReader struct {
	src  io.Reader
	buf  *[]byte // nil while empty
	r, w int     // unparsed bytes are (*buf)[r:w]
	err  error   // the source's error, returned once the buffer is empty
	// size, when set, is the size of a buffer made for each use instead
	// of a pooled one (tests read with small buffers).
	size int
}

// reset makes the reader read src from its start, returning any buffer.
func (s *streamReader) reset(src io.Reader) {
	s.release()
	s.src, s.err = src, nil
}

// release returns the buffer to the pool, dropping what it holds.
func (s *streamReader) release() {
	if s.buf != nil && s.size == 0 {
		streamBufs.Put(s.buf)
	}
	s.buf = nil
	s.r, s.w = 0, 0
}

// Buffered returns how many bytes were received and not yet read.
func (s *streamReader) Buffered() int { return s.w - s.r }

// Peek returns the next n bytes without reading them; n must not exceed
// Buffered (answerAhead's use), else it returns what there is and
// bufio.ErrBufferFull.
func (s *streamReader) Peek(n int) ([]byte, error) {
	if n > s.w-s.r {
		return s.bytes()[s.r:s.w], bufio.ErrBufferFull
	}
	return s.bytes()[s.r : s.r+n], nil
}

func (s *streamReader) bytes() []byte {
	if s.buf == nil {
		return nil
	}
	return *s.buf
}

// ReadSlice reads up to and including delim, as bufio.Reader.ReadSlice
// does: the slice is valid until the next read; a full buffer without
// delim returns the buffer and bufio.ErrBufferFull; at the source's end,
// what is left and its error.
func (s *streamReader) ReadSlice(delim byte) ([]byte, error) {
	search := 0 // bytes of (*buf)[r:w] already searched for delim
	for {
		if s.buf != nil {
			b := (*s.buf)[s.r:s.w]
			for i := search; i < len(b); i++ {
				if b[i] == delim {
					s.r += i + 1
					return b[:i+1], nil
				}
			}
			search = len(b)
			if s.err != nil {
				s.r = s.w
				return b, s.err
			}
			if s.r == 0 && s.w == len(*s.buf) {
				s.r = s.w
				return b, bufio.ErrBufferFull
			}
		} else if s.err != nil {
			return nil, s.err
		}
		s.fill()
	}
}

// fill reads more from the source: with nothing unread, first waiting for
// data without a buffer, then taking one; with a partial line unread,
// into the room after it (moved to the buffer's start).
func (s *streamReader) fill() {
	if s.buf != nil && s.r == s.w {
		s.release()
	}
	if s.buf == nil {
		if _, err := s.src.Read(nil); err != nil {
			s.err = err
			return
		}
		s.buf = s.take()
	}
	b := *s.buf
	if s.r > 0 {
		s.w = copy(b, b[s.r:s.w])
		s.r = 0
	}
	// A source that keeps returning no bytes and no error is read a few
	// times, then taken as stuck, like bufio's io.ErrNoProgress.
	for range 100 {
		n, err := s.src.Read(b[s.w:])
		s.w += n
		if err != nil {
			s.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	s.err = io.ErrNoProgress
}

// take returns an empty buffer: the pool's, or one of s.size.
func (s *streamReader) take() *[]byte {
	if s.size > 0 {
		b := make([]byte, s.size)
		return &b
	}
	return streamBufs.Get().(*[]byte)
}
