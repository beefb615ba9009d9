package client

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Stale answers on a 2025 HTTP session. A legacy cancel is a POSTed
// notifications/cancelled: the call's own stream stays open, and a server
// that ignores the cancel still answers on it when its work ends, however
// late. The call is over for the client at the late window after the
// cancel (Wait returns and EvEnd is delivered then, as before), but the
// stream is read on for up to staleWatch more, and whatever still arrives
// on it is counted like a stale message on stdio: Stats.Stale, and
// Stats.StaleAnswers for the call's answer, evidence that the server
// worked on the call long after the cancel. On 2026 HTTP a cancel closes
// the stream, so no answer can arrive at all.

const (
	// staleWatch bounds how long a stopped call's stream is read after its
	// late window.
	staleWatch = 10 * time.Minute
	// maxWatched bounds the streams read that way at once (each holds a
	// connection); past it, a stopped call's stream is closed at the late
	// window, as on 2026 HTTP.
	maxWatched = 1024
)

// waitLegacy reads a 2025 call's response on a goroutine of its own, and
// returns when the reading ends or when the call is released at the late
// window after our cancel, whichever comes first: the stream may be read
// on after that (see release).
func (t *httpTransport) waitLegacy(call *Call) {
	rel := make(chan struct{})
	call.gateMu.Lock()
	call.release = rel
	released := call.state.Load()&stReleased != 0 // released before Wait
	call.gateMu.Unlock()
	if released {
		close(rel)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.read(call)
	}()
	select {
	case <-done:
	case <-rel:
	}
}

// armRelease releases the call once the late window after our cancel has
// passed; until then its stream is read with a deadline staleWatch past
// the window.
func (t *httpTransport) armRelease(call *Call) {
	call.gateMu.Lock()
	if call.conn != nil {
		_ = call.conn.nc.SetReadDeadline(time.Now().Add(call.lateWindow() + staleWatch))
	}
	call.gateMu.Unlock()
	time.AfterFunc(call.lateWindow(), func() { t.release(call) })
}

// release ends a cancelled call that has had no answer within the late
// window, and lets its Wait return, while its stream is still read (up to
// maxWatched at once) so that a late answer is counted as stale.
func (t *httpTransport) release(call *Call) {
	if call.state.Load()&(stFinal|stEnded) != 0 {
		return // answered, or the stream is over: nothing to watch
	}
	// Released before its end is seen: an answer read once the caller
	// has the end must count as stale (TestHTTPLegacyLateWindowFromCancel
	// lost it when stReleased came after EvEnd).
	call.endReleased(time.Now())
	call.gateMu.Lock()
	conn, rel := call.conn, call.release
	call.gateMu.Unlock()
	if conn != nil && !t.watch(conn) {
		conn.nc.Close()
	}
	if rel != nil {
		close(rel)
	}
}

// watch adds conn to the streams read past their call's end; false when
// there are maxWatched already or the transport is closed.
func (t *httpTransport) watch(conn *httpConn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || len(t.watched) >= maxWatched {
		return false
	}
	if t.watched == nil {
		t.watched = make(map[*httpConn]struct{})
	}
	t.watched[conn] = struct{}{}
	return true
}

// unwatch forgets conn once its reading has ended.
func (t *httpTransport) unwatch(conn *httpConn) {
	t.mu.Lock()
	delete(t.watched, conn)
	t.mu.Unlock()
}

// closeWatched closes every stream still read past its call's end.
func (t *httpTransport) closeWatched() {
	t.mu.Lock()
	w := t.watched
	t.watched = nil
	t.mu.Unlock()
	for conn := range w {
		conn.nc.Close()
	}
}

// stale counts a message read on a released call's stream and reports
// whether it was the call's answer (the stream should end after it).
func (call *Call) stale(sc *scanner, m *inMsg, at time.Time) (answer bool) {
	s := &call.c.stats
	switch m.kind {
	case kindResult, kindError:
		if !call.answers(m) {
			s.unknownResponses.Add(1)
			return false
		}
		s.stale.Add(1)
		if !call.setState(stFinal) {
			s.staleAnswers.Add(1)
			call.c.staleAnswer(sc, m, at)
		}
		return true
	case kindNotification:
		if m.methodIs(vocab.MethodProgress) {
			s.stale.Add(1)
		}
	}
	return false
}
