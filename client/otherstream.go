package client

import "time"

// Progress on another stream. On Streamable HTTP each call's progress
// belongs on its own POST stream, but a gateway in front of a 2025 server
// may deliver it on another stream of the session: the stream of another
// POST, or the standalone GET stream (httpget.go). The 2025 revisions say
// only that messages on a POST stream SHOULD relate to its request and
// that those on the GET stream SHOULD be unrelated to any request in
// flight, so this goes against a SHOULD, not a MUST; 2026-07-28 scopes
// each SSE response stream to its one request. Either way the progress
// reached the client, so it is credited to the call it names by its token
// (the call does not look stalled, and faults waiting for its progress
// act), and counted apart as Stats.OtherStream. On 2026 HTTP the carrying
// call also records ViolWrongStream.

// track registers a call with a progress token while its stream is read,
// so that its progress is found wherever it arrives.
func (t *httpTransport) track(call *Call) {
	if call.tok == 0 {
		return
	}
	t.mu.Lock()
	if t.byTok == nil {
		t.byTok = make(map[int64]*Call)
	}
	t.byTok[call.tok] = call
	t.mu.Unlock()
}

// untrack forgets a call the late window after its stream was read to
// its end: progress that a server sends after the response through the
// session (on the GET stream) is still the call's, late.
func (t *httpTransport) untrack(call *Call) {
	if call.tok == 0 {
		return
	}
	time.AfterFunc(t.c.cfg.LateWindow, func() { t.forgetToken(call) })
}

// forgetToken forgets a call at once (a request that was never sent).
func (t *httpTransport) forgetToken(call *Call) {
	if call.tok == 0 {
		return
	}
	t.mu.Lock()
	if t.byTok[call.tok] == call {
		delete(t.byTok, call.tok)
	}
	t.mu.Unlock()
}

// byToken returns the call whose stream is read and whose token is tok.
func (t *httpTransport) byToken(tok int64) *Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byTok[tok]
}

// creditElsewhere delivers progress that arrived on call's stream but
// names another call's token to that call, marked OtherStream; false when
// no call in flight on this transport has the token.
func (call *Call) creditElsewhere(tok int64, p *progressMsg, at time.Time) bool {
	t, ok := call.c.tr.(*httpTransport)
	if !ok {
		return false
	}
	return t.creditProgress(tok, p, at)
}

// creditProgress delivers progress read on a stream that is not its
// call's own (another call's, or the GET stream) to the call whose token
// it names; false when there is none.
func (t *httpTransport) creditProgress(tok int64, p *progressMsg, at time.Time) bool {
	owner := t.byToken(tok)
	if owner == nil {
		return false
	}
	t.c.stats.otherStream.Add(1)
	owner.emit(Event{Kind: EvProgress, At: at, Progress: p.progress, Total: p.total, HasTotal: p.hasTotal, OtherStream: true})
	return true
}
