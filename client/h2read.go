package client

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"golang.org/x/net/http2"
)

// The reading goroutine of an h2Conn: every frame the server sends.

func (cc *h2Conn) readLoop() {
	for {
		f, err := cc.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				if s := cc.stream(se.StreamID); s != nil {
					s.localFail(fmt.Errorf("HTTP/2 stream error from %s: %v", cc.display, se.Code), true)
				}
				continue
			}
			cc.fail(fmt.Errorf("read: %w", err))
			return
		}
		if err := cc.onFrame(f); err != nil {
			cc.fail(err)
			return
		}
	}
}

func (cc *h2Conn) onFrame(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		return cc.onData(f)
	case *http2.MetaHeadersFrame:
		cc.onHeaders(f)
	case *http2.RSTStreamFrame:
		if s := cc.stream(f.StreamID); s != nil {
			s.remoteFail(fmt.Errorf("the server reset the stream (%v)", f.ErrCode))
			cc.release(s)
		}
	case *http2.SettingsFrame:
		return cc.onSettings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			data := f.Data
			cc.frame(func(fr *http2.Framer) { _ = fr.WritePing(true, data) })
		}
	case *http2.GoAwayFrame:
		cc.onGoAway(f)
	case *http2.WindowUpdateFrame:
		return cc.onWindowUpdate(f)
	case *http2.PushPromiseFrame:
		return errors.New("the server pushed a stream, which mcpchaos disabled (a protocol error)")
	}
	return nil
}

// onData hands a DATA frame's bytes to its stream; a frame past the
// receive windows fails its stream (or, past the connection's, the
// connection), so a server never makes us hold more than we advertised.
func (cc *h2Conn) onData(f *http2.DataFrame) error {
	n := int64(f.Length)
	cc.mu.Lock()
	cc.recvWin -= n
	over := cc.recvWin < 0
	s := cc.streams[f.StreamID]
	cc.mu.Unlock()
	if over {
		return errors.New("the server sent past the connection's flow-control window")
	}
	data := f.Data()
	if s == nil || !s.take(data, n, f.StreamEnded()) {
		cc.consumed(n) // a stream that is over: dropped, its bytes given back
		return nil
	}
	cc.consumed(n - int64(len(data))) // padding
	return nil
}

// onHeaders takes a response's headers (interim 1xx answers skipped) or
// its trailers (dropped; END_STREAM on them ends the stream).
func (cc *h2Conn) onHeaders(f *http2.MetaHeadersFrame) {
	s := cc.stream(f.StreamID)
	if s == nil {
		return
	}
	if s.hasResponse() {
		if f.StreamEnded() {
			s.take(nil, 0, true)
		}
		return
	}
	if f.Truncated {
		s.localFail(fmt.Errorf("the response's header list is over %d bytes", maxHeaderBytes), true)
		return
	}
	status := f.PseudoValue("status")
	code, err := strconv.Atoi(status)
	if err != nil || code < 100 || code > 999 {
		s.localFail(fmt.Errorf("the response's :status is %q", status), true)
		return
	}
	if code < 200 {
		if f.StreamEnded() {
			s.localFail(fmt.Errorf("the stream ended on an interim %d answer", code), true)
		}
		return // an interim answer (100 Continue, 103 Early Hints)
	}
	regular := f.RegularFields()
	h := make(http.Header, len(regular))
	for _, hf := range regular {
		k := http.CanonicalHeaderKey(hf.Name)
		h[k] = append(h[k], hf.Value)
	}
	resp := &http.Response{Status: status + " " + http.StatusText(code), StatusCode: code,
		Proto: "HTTP/2.0", ProtoMajor: 2, Header: h, ContentLength: -1, Body: s}
	if v := h.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			resp.ContentLength = n
		}
	}
	s.answered(resp, f.StreamEnded())
}

func (cc *h2Conn) onSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	cc.mu.Lock()
	err := f.ForeachSetting(func(st http2.Setting) error {
		switch st.ID {
		case http2.SettingMaxConcurrentStreams:
			cc.maxStreams = int(min(st.Val, 1<<20))
		case http2.SettingInitialWindowSize:
			if st.Val > 1<<31-1 {
				return errors.New("the server's SETTINGS_INITIAL_WINDOW_SIZE is over 2^31-1")
			}
			delta := int64(st.Val) - int64(cc.initWin)
			cc.initWin = int32(st.Val)
			for _, s := range cc.streams {
				s.growSend(delta)
			}
			cc.windowGrewLocked()
		case http2.SettingMaxFrameSize:
			if st.Val < 1<<14 || st.Val > 1<<24-1 {
				return fmt.Errorf("the server's SETTINGS_MAX_FRAME_SIZE is %d, outside 16384 to 16777215", st.Val)
			}
			cc.maxFrame = st.Val
		case http2.SettingHeaderTableSize:
			cc.tableSize = st.Val
		}
		return nil
	})
	// A bad setting fails the connection (readLoop), and fail closes
	// settled once the error is set: closed here first, newH2Conn could
	// read no error yet and take the connection.
	if err == nil && !cc.gotSettngs {
		cc.gotSettngs = true
		close(cc.settled)
	}
	cc.mu.Unlock()
	if err != nil {
		return err
	}
	cc.frame(func(fr *http2.Framer) { _ = fr.WriteSettingsAck() })
	return nil
}

// windowGrewLocked wakes the senders waiting for a send window.
func (cc *h2Conn) windowGrewLocked() {
	close(cc.winGrew)
	cc.winGrew = make(chan struct{})
}

func (cc *h2Conn) onWindowUpdate(f *http2.WindowUpdateFrame) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if f.StreamID == 0 {
		cc.sendWin += int64(f.Increment)
		if cc.sendWin > 1<<31-1 {
			return errors.New("the server's WINDOW_UPDATEs took the connection's window over 2^31-1")
		}
	} else if s := cc.streams[f.StreamID]; s != nil {
		s.growSend(int64(f.Increment))
	}
	cc.windowGrewLocked()
	return nil
}

// onGoAway stops new streams on the connection; the streams the server
// will not answer fail at once, the others run to their end.
func (cc *h2Conn) onGoAway(f *http2.GoAwayFrame) {
	cc.mu.Lock()
	cc.goAway = true
	var lost []*h2Stream
	for id, s := range cc.streams {
		if id > f.LastStreamID {
			lost = append(lost, s)
		}
	}
	cc.mu.Unlock()
	for _, s := range lost {
		s.remoteFail(fmt.Errorf("the server sent GOAWAY (%v) before taking the stream", f.ErrCode))
		cc.release(s)
	}
	cc.mu.Lock()
	cc.closeIfDoneLocked()
	cc.mu.Unlock()
}
