package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Sending a request on a new stream of an h2Conn.

// send frames a request (method, path, header and body: nil for none) on
// a new stream, for which reserve made room, and returns once its frames
// are written. errH2Gone says none of it was written: the connection takes
// no new streams, or failed before its frames went out. ctx bounds the
// waits for the server's flow-control window and for the flusher.
func (cc *h2Conn) send(ctx context.Context, method, path string, h http.Header, body []byte) (*h2Stream, error) {
	cc.wmu.Lock()
	if err := cc.roomForHeaders(ctx); err != nil {
		cc.mu.Lock()
		cc.active--
		cc.closeIfDoneLocked()
		cc.mu.Unlock()
		cc.wmu.Unlock()
		return nil, err
	}
	cc.mu.Lock()
	if cc.err != nil || cc.goAway {
		cc.active--
		cc.closeIfDoneLocked()
		cc.mu.Unlock()
		cc.wmu.Unlock()
		return nil, errH2Gone
	}
	s := newH2Stream(cc, cc.nextID)
	cc.nextID += 2
	if cc.nextID > 1<<31-1 {
		cc.goAway = true // stream ids used up: the next request goes elsewhere
	}
	cc.streams[s.id] = s
	s.sendWin = int64(cc.initWin)
	table, maxFrame := cc.tableSize, min(int(cc.maxFrame), h2MaxFrame)
	cc.mu.Unlock()

	cc.henc.SetMaxDynamicTableSizeLimit(table)
	cc.writeHeaders(s.id, method, path, h, body, maxFrame)
	// headersOut closes when the flusher takes the HEADERS: from then on
	// the request may have reached the server, and is never sent again.
	headersOut := cc.drained
	var err error
	if len(body) > 0 {
		err = cc.writeBody(ctx, s, body, maxFrame)
	}
	written := cc.written
	cc.wmu.Unlock()
	cc.flush()
	select {
	case <-written:
	case <-cc.done:
		select {
		case <-headersOut: // taken by the flusher: it may have reached the server
		default:
			return nil, errH2Gone // the stream failed with its connection
		}
	case <-ctx.Done():
		err = fmt.Errorf("write to %s: %w", cc.display, ctx.Err())
	}
	switch {
	case err == errAnsweredEarly:
		return s, nil // read the answer; the rest of the body is not needed
	case err != nil:
		s.localFail(err, true)
		return nil, err
	}
	s.mu.Lock()
	s.sentEnd = true
	done := s.ended
	s.mu.Unlock()
	if done {
		cc.release(s)
	}
	return s, nil
}

// roomForHeaders waits (wmu let go meanwhile) while more than h2OutMax of
// frames wait for the flusher, for at most h2WriteTimeout.
func (cc *h2Conn) roomForHeaders(ctx context.Context) error {
	if cc.out.Len() <= h2OutMax {
		return nil
	}
	timer := time.NewTimer(h2WriteTimeout)
	defer timer.Stop()
	deadline := time.Now().Add(h2WriteTimeout)
	for cc.out.Len() > h2OutMax {
		drained := cc.drained
		cc.wmu.Unlock()
		cc.flush()
		select {
		case <-drained:
		case <-cc.done:
		case <-ctx.Done():
		case <-timer.C:
		}
		cc.wmu.Lock()
		if cc.Err() != nil {
			return errH2Gone
		}
		if ctx.Err() != nil {
			return fmt.Errorf("write to %s: %w", cc.display, ctx.Err())
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("write to %s: the frames before this request were not written in %v", cc.display, h2WriteTimeout)
		}
	}
	return nil
}

// writeHeaders writes the request's HEADERS (and CONTINUATIONs past the
// server's frame size); without a body they end the stream.
func (cc *h2Conn) writeHeaders(id uint32, method, path string, h http.Header, body []byte, maxFrame int) {
	cc.hbuf.Reset()
	field := func(k, v string) { _ = cc.henc.WriteField(hpack.HeaderField{Name: k, Value: v}) }
	field(":method", method)
	field(":scheme", "https")
	field(":authority", cc.authority)
	field(":path", path)
	for k, vs := range h {
		lk := h2Lower(k)
		switch lk {
		case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "content-length":
			continue
		}
		for _, v := range vs {
			field(lk, v)
		}
	}
	if body != nil {
		field("content-length", strconv.Itoa(len(body)))
	}
	blk := cc.hbuf.Bytes()
	for first := true; first || len(blk) > 0; first = false {
		chunk := blk[:min(len(blk), maxFrame)]
		blk = blk[len(chunk):]
		if first {
			_ = cc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: chunk,
				EndStream: len(body) == 0, EndHeaders: len(blk) == 0})
		} else {
			_ = cc.fr.WriteContinuation(id, len(blk) == 0, chunk)
		}
	}
}

// h2Lower is a header name as HTTP/2 sends it, in lower case; the common
// names are kept, so a request allocates none.
func h2Lower(k string) string {
	switch k {
	case "Accept":
		return "accept"
	case "Content-Type":
		return "content-type"
	case "User-Agent":
		return "user-agent"
	case "Mcp-Protocol-Version":
		return "mcp-protocol-version"
	case "Mcp-Method":
		return "mcp-method"
	case "Mcp-Name":
		return "mcp-name"
	case "Mcp-Session-Id":
		return "mcp-session-id"
	}
	return strings.ToLower(k)
}

// writeBody frames the body in DATA frames of at most maxFrame (the
// server's frame size, but no more than h2MaxFrame, so the frames' buffer
// stays far under h2OutLimit) as the server's windows allow,
// the last one ending the stream; it is called and returns with wmu held.
// While it waits (for a window, or for the flusher to take more than
// h2OutMax buffered) it lets wmu go, for at most h2WriteTimeout.
func (cc *h2Conn) writeBody(ctx context.Context, s *h2Stream, body []byte, maxFrame int) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for len(body) > 0 {
		if err := s.over(); err != nil {
			return err
		}
		cc.mu.Lock()
		n := min(int64(len(body)), int64(maxFrame), cc.sendWin, s.sendWin)
		if cc.out.Len() > h2OutMax {
			n = 0
		}
		if cc.err != nil {
			n = 0
		}
		var wait <-chan struct{}
		if n <= 0 {
			wait = cc.winGrew
		} else {
			cc.sendWin -= n
			s.sendWin -= n
		}
		cc.mu.Unlock()
		if wait == nil {
			_ = cc.fr.WriteData(s.id, int(n) == len(body), body[:n])
			body = body[n:]
			continue
		}
		if err := cc.Err(); err != nil {
			return err
		}
		if timer == nil {
			timer = time.NewTimer(h2WriteTimeout)
		}
		drained := cc.drained
		cc.wmu.Unlock()
		cc.flush()
		err := cc.waitRoom(ctx, s, wait, drained, timer.C)
		cc.wmu.Lock()
		if err != nil {
			return err
		}
	}
	return nil
}

// waitRoom waits for a window to grow, the flusher to take the buffer, the
// stream's answer or failure (over says which), the connection's failure,
// ctx, or the timer.
func (cc *h2Conn) waitRoom(ctx context.Context, s *h2Stream, grew, drained <-chan struct{}, timer <-chan time.Time) error {
	select {
	case <-grew:
	case <-drained:
	case <-s.head:
	case <-cc.done:
	case <-ctx.Done():
		return fmt.Errorf("write to %s: %w", cc.display, ctx.Err())
	case <-timer:
		return fmt.Errorf("write to %s: no room for the request's body in %v", cc.display, h2WriteTimeout)
	}
	return nil
}

// errAnsweredEarly says the server answered before the request's body was
// all written: the request counts as sent (as on HTTP/1.1, writeWatching).
var errAnsweredEarly = errors.New("answered before the whole body was written")

// over says whether to stop writing the request's body: the stream failed,
// or its answer came already.
func (s *h2Stream) over() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp != nil {
		return errAnsweredEarly
	}
	return s.err
}
