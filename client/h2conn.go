package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Conn is one HTTP/2 client connection of mcpchaos's own, framed with
// golang.org/x/net/http2's Framer. One goroutine reads its frames and
// hands each stream's data to the stream (h2Stream), which its caller
// reads. Frames are framed into a buffer in memory, under wmu, by whoever
// sends them (a request by its caller, a WINDOW_UPDATE by a reader, an
// acknowledgement by the reading goroutine), and one more goroutine writes
// that buffer to the connection (flushLoop). No goroutine, read buffer or
// timer is kept per stream, so an open call costs its own goroutine and a
// few hundred bytes (docs/performance.md); and the caller's goroutine never
// runs the TLS writes, whose deep frames would grow its stack for as long
// as its call stays open.
//
// The writer's lock is never held across a write to the network: a
// reading goroutine that waited for a writer stuck on a server that is not
// reading would stop reading, and the server, stuck writing to us, would
// never read again.
type h2Conn struct {
	nc           net.Conn
	laddr, raddr net.Addr
	display      string // the target, for errors
	authority    string // :authority
	fr           *http2.Framer

	wmu     sync.Mutex    // the frames' buffer: fr's writes, out, henc, hbuf
	out     *bytes.Buffer // frames not yet handed to the flusher
	spare   *bytes.Buffer // the flusher's buffer, back from its last write
	drained chan struct{} // closed (and replaced) when the flusher takes out
	written chan struct{} // closed (and replaced) when what it took is written
	kick    chan struct{} // a token: out has frames to write
	done    chan struct{} // closed when the connection failed
	henc    *hpack.Encoder
	hbuf    bytes.Buffer

	mu         sync.Mutex
	streams    map[uint32]*h2Stream
	nextID     uint32
	active     int    // streams reserved or open
	maxStreams int    // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	initWin    int32  // the server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame   uint32 // the server's SETTINGS_MAX_FRAME_SIZE
	tableSize  uint32 // the server's SETTINGS_HEADER_TABLE_SIZE
	sendWin    int64  // the connection's send window
	winGrew    chan struct{}
	recvWin    int64 // what the server may still send on the connection
	unacked    int64 // bytes consumed, not yet given back to recvWin
	goAway     bool  // no new streams (GOAWAY, or stream ids used up)
	err        error // the connection failed
	settled    chan struct{}
	gotSettngs bool
}

// h2OutMax is how many bytes of frames may wait for the flusher before a
// request's writer waits for it to catch up.
const h2OutMax = 1 << 20

// h2OutLimit bounds the frames waiting for the flusher: past it (our
// acknowledgements of a server's PINGs and SETTINGS piling up while it
// reads nothing), the connection fails.
const h2OutLimit = 16 << 20

// h2OutKeep is the largest frames' buffer kept for the next writes.
const h2OutKeep = 64 << 10

// h2Out is the Framer's writer: the frames' buffer of the moment.
type h2Out struct{ cc *h2Conn }

func (o h2Out) Write(p []byte) (int, error) { return o.cc.out.Write(p) }

// h2WriteTimeout bounds each write of frames: a server that takes no
// bytes for that long fails the connection.
const h2WriteTimeout = 10 * time.Second

// h2UpdateAt is how much of the connection's receive window is consumed
// before it is given back in one WINDOW_UPDATE.
const h2UpdateAt = 16 << 20

// errH2Gone says a connection took no new stream: it failed, or the server
// sent GOAWAY. Nothing of the request was written.
var errH2Gone = errors.New("the HTTP/2 connection takes no new streams")

// newH2Conn starts HTTP/2 on a connection whose TLS handshake chose h2:
// it writes the preface and settings, starts the reader, and waits (within
// ctx) for the server's first SETTINGS, which say how many streams it takes.
func newH2Conn(ctx context.Context, nc net.Conn, display, authority string) (*h2Conn, error) {
	cc := &h2Conn{nc: nc, laddr: nc.LocalAddr(), raddr: nc.RemoteAddr(), display: display, authority: authority,
		streams: map[uint32]*h2Stream{}, nextID: 1, maxStreams: 100, initWin: 65535, maxFrame: 16384,
		tableSize: 4096, sendWin: 65535, winGrew: make(chan struct{}), recvWin: h2ConnWindow,
		settled: make(chan struct{}), out: new(bytes.Buffer), spare: new(bytes.Buffer),
		drained: make(chan struct{}), written: make(chan struct{}), kick: make(chan struct{}, 1),
		done: make(chan struct{})}
	cc.fr = http2.NewFramer(h2Out{cc}, bufio.NewReaderSize(nc, 16<<10))
	cc.fr.SetReuseFrames()
	cc.fr.SetMaxReadFrameSize(h2MaxFrame)
	cc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	cc.fr.MaxHeaderListSize = maxHeaderBytes
	cc.henc = hpack.NewEncoder(&cc.hbuf)

	cc.out.WriteString(http2.ClientPreface)
	_ = cc.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2StreamWindow},
		http2.Setting{ID: http2.SettingMaxFrameSize, Val: h2MaxFrame},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: maxHeaderBytes},
		http2.Setting{ID: http2.SettingHeaderTableSize, Val: 4096})
	_ = cc.fr.WriteWindowUpdate(0, h2ConnWindow-65535)
	cc.kick <- struct{}{}
	go cc.flushLoop()
	go cc.readLoop()
	timer := time.NewTimer(h2WriteTimeout)
	defer timer.Stop()
	select {
	case <-cc.settled:
	case <-ctx.Done():
		cc.fail(ctx.Err())
	case <-timer.C:
		cc.fail(errors.New("no SETTINGS from the server"))
	}
	if err := cc.Err(); err != nil {
		return nil, fmt.Errorf("HTTP/2 with %s: %w", display, err)
	}
	return cc, nil
}

// Err returns why the connection failed, or nil.
func (cc *h2Conn) Err() error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.err
}

// reserve takes a stream of the connection for a request, if it has room.
func (cc *h2Conn) reserve() bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.err != nil || cc.goAway || cc.active >= cc.maxStreams {
		return false
	}
	cc.active++
	return true
}

// close ends the connection and fails its streams.
func (cc *h2Conn) close() { cc.fail(errors.New("the client is closed")) }

// fail ends the connection with err: its streams fail, and no new stream
// starts on it.
func (cc *h2Conn) fail(err error) {
	cc.mu.Lock()
	if cc.err != nil {
		cc.mu.Unlock()
		return
	}
	cc.err = err
	close(cc.done)
	streams := cc.streams
	cc.streams = map[uint32]*h2Stream{}
	close(cc.winGrew)
	cc.winGrew = make(chan struct{})
	if !cc.gotSettngs {
		cc.gotSettngs = true
		close(cc.settled)
	}
	cc.mu.Unlock()
	cc.nc.Close()
	for _, s := range streams {
		s.remoteFail(fmt.Errorf("HTTP/2 connection with %s: %w", cc.display, err))
	}
}

// closeIfDoneLocked closes a connection that takes no new streams once its
// last stream is over.
func (cc *h2Conn) closeIfDoneLocked() {
	if cc.goAway && cc.active == 0 && cc.err == nil {
		go cc.fail(errors.New("closed after GOAWAY"))
	}
}

// release forgets a stream that is over for both sides, once.
func (cc *h2Conn) release(s *h2Stream) {
	cc.mu.Lock()
	if cc.streams[s.id] == s {
		delete(cc.streams, s.id)
		cc.active--
		cc.closeIfDoneLocked()
	}
	cc.mu.Unlock()
}

func (cc *h2Conn) stream(id uint32) *h2Stream {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.streams[id]
}

// frame writes frames into the buffer (never blocking on the network)
// and has the flusher write them.
func (cc *h2Conn) frame(write func(fr *http2.Framer)) {
	cc.wmu.Lock()
	select {
	case <-cc.done: // failed: nothing more is written
		cc.wmu.Unlock()
		return
	default:
	}
	write(cc.fr)
	over := cc.out.Len() > h2OutLimit
	cc.wmu.Unlock()
	if over {
		cc.fail(fmt.Errorf("over %d bytes of frames wait to be written: the server sends more than it reads (a flood of PINGs or SETTINGS?)", h2OutLimit))
		return
	}
	cc.flush()
}

// flush has the flusher write the buffered frames.
func (cc *h2Conn) flush() {
	select {
	case cc.kick <- struct{}{}:
	default:
	}
}

// flushLoop writes the frames' buffer to the connection whenever there are
// frames in it, until the connection fails; a write that takes longer
// than h2WriteTimeout fails it.
func (cc *h2Conn) flushLoop() {
	for {
		select {
		case <-cc.kick:
		case <-cc.done:
			return
		}
		cc.wmu.Lock()
		select {
		case <-cc.done: // failed meanwhile: what is buffered never goes out
			cc.wmu.Unlock()
			return
		default:
		}
		buf := cc.out
		cc.out, cc.spare = cc.spare, nil
		drained, written := cc.drained, cc.written
		cc.drained, cc.written = make(chan struct{}), make(chan struct{})
		cc.wmu.Unlock()
		close(drained)
		if buf.Len() > 0 {
			_ = cc.nc.SetWriteDeadline(time.Now().Add(h2WriteTimeout))
			if _, err := cc.nc.Write(buf.Bytes()); err != nil {
				cc.fail(writeErr(err))
				return
			}
		}
		close(written)
		buf.Reset()
		if buf.Cap() > h2OutKeep {
			buf = new(bytes.Buffer) // a rush of requests or a large body passed: let its buffer go
		}
		cc.wmu.Lock()
		cc.spare = buf
		cc.wmu.Unlock()
	}
}

// writeErr names a failed write of frames. One that timed out found the
// server reading none of them for h2WriteTimeout: it sends more than it
// reads (a flood whose answers filled the socket's buffers before they
// filled ours, h2OutLimit), or has stopped reading.
func writeErr(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("write: the server read nothing for %v: it sends more than it reads, or has stopped reading: %w", h2WriteTimeout, err)
	}
	return fmt.Errorf("write: %w", err)
}

// consumed gives n bytes read (or dropped) back to the connection's
// receive window, in WINDOW_UPDATEs of at least h2UpdateAt.
func (cc *h2Conn) consumed(n int64) {
	if n <= 0 {
		return
	}
	cc.mu.Lock()
	cc.unacked += n
	give := cc.unacked
	if give < h2UpdateAt {
		cc.mu.Unlock()
		return
	}
	cc.unacked = 0
	cc.recvWin += give
	cc.mu.Unlock()
	cc.frame(func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(0, uint32(give)) })
}
