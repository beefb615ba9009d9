package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// call handles one tools/call: it draws the faults, records the call,
// and answers it itself (throttle), forwards it untouched, or forwards it
// and rewrites the answer's stream (see rewrite); a call beyond the
// calls in flight the proxy takes (admit) gets HTTP 503. The proxy's stop ends
// r's context (Serve's base context), and a call it ends is open_at_stop.
func (p *Proxy) call(w http.ResponseWriter, r *http.Request, body []byte, m *message, cp *callParams) {
	client, ok := p.admitCall(w, r, m)
	if !ok {
		return
	}
	start := time.Now()
	var closedAt atomic.Pointer[time.Time]
	stopStamp := context.AfterFunc(r.Context(), func() { t := time.Now(); closedAt.Store(&t) })
	defer stopStamp()
	seq := p.seq.Add(1)
	pl := p.draw(seq, cp.Name)
	oc := p.rec.start(callRecord(r, body, m, cp, &pl, seq, client, start), cp.Arguments)
	gone := func() (reaction, how string, at time.Time) { return p.gone(closedAt.Load()) }
	if pl.throttle != nil {
		p.answerThrottled(w, m, pl.throttle, oc)
		return
	}
	accepted(r.Context()) // an HTTP+SSE client's POST gets its 202 now
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	resp, settled, err := p.forwardCall(ctx, w, r, body, &pl, oc, start, cancel)
	if settled {
		return
	}
	if err == nil {
		defer resp.Body.Close()
		if !pl.rewrites() || resp.StatusCode != http.StatusOK {
			p.passOn(w, r, resp, m, oc, gone)
			return
		}
		reaction, how, at := p.rewrite(ctx, w, resp, m, cp, &pl, oc, start, gone)
		p.rec.end(oc, reaction, how, at)
		return
	}
	if r.Context().Err() != nil {
		reaction, how, at := gone()
		p.rec.end(oc, reaction, how, at)
		return
	}
	writeRPCError(w, http.StatusBadGateway, m.ID, -32603, fmt.Sprintf("mcpchaos proxy: upstream %s: %v", p.Upstream(), err))
	p.rec.fail(oc, err, time.Now())
}

// admitCall names the call's client and takes the call in, or answers it
// with HTTP 503 and says so: after the proxy's stop (a call then would
// miss the flush), or beyond the calls in flight it takes (admit).
func (p *Proxy) admitCall(w http.ResponseWriter, r *http.Request, m *message) (client string, ok bool) {
	if p.stopAt.Load() != nil {
		writeRPCError(w, http.StatusServiceUnavailable, m.ID, -32000, "mcpchaos proxy: stopping")
		return "", false
	}
	client = p.clientOf(r)
	if !p.rec.admit(client) {
		writeRPCError(w, http.StatusServiceUnavailable, m.ID, -32000, fmt.Sprintf(
			"mcpchaos proxy: %d calls of client %q (or %d of all clients) in flight already", maxClientCalls, clip(client), maxOpenCalls))
		return "", false
	}
	return client, true
}

// callRecord is the record a call starts with: its ids, its client and
// tool, the request (clipped to maxRecordedRequest), and the faults drawn.
func callRecord(r *http.Request, body []byte, m *message, cp *callParams, pl *plan, seq uint64, client string, start time.Time) *CallRecord {
	req := string(body)
	if len(req) > maxRecordedRequest {
		req = req[:maxRecordedRequest]
	}
	rec := &CallRecord{Seq: seq, ID: append(json.RawMessage(nil), m.ID...), Session: r.Header.Get(vocab.HeaderSessionID),
		Client: client, Tool: cp.Name, Request: req, Injected: pl.kinds, Start: start, legacy: legacyStream(r)}
	if pl.throttle != nil {
		rec.RetryAfterMs = ms(pl.throttle.retryAfter)
	}
	return rec
}

// gone is how a call ends when its client side closed at closed (nil:
// not yet): open_at_stop when the proxy's stop came first (it closes
// every request), else the client's cancel by closing its stream, when it
// closed.
func (p *Proxy) gone(closed *time.Time) (reaction, how string, at time.Time) {
	if p.stopFirst(closed) {
		return reactOpenAtStop, "", time.Now()
	}
	if closed == nil {
		return reactCancelled, cancelStreamClosed, time.Now()
	}
	return reactCancelled, cancelStreamClosed, *closed
}

// answerThrottled answers a call with the throttle fault's error (and its
// Retry-After), recording it first.
func (p *Proxy) answerThrottled(w http.ResponseWriter, m *message, t *throttleReply, oc *openCall) {
	if t.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterHeader(t.retryAfter)))
	}
	// Settled before the answer leaves, so the client's next call
	// finds it.
	p.rec.end(oc, reactThrottled, "", time.Now())
	writeRPCError(w, t.status, m.ID, t.code, "mcpchaos proxy: throttled (rate limit)")
}

// passOn copies the upstream's answer to a call to the client as it is,
// and records how that ended. An answer copied to its end was delivered,
// whatever ended the request after it (the proxy's stop, say); a copy cut
// short was ended by the client or the stop.
func (p *Proxy) passOn(w http.ResponseWriter, r *http.Request, resp *http.Response, m *message, oc *openCall,
	gone func() (string, string, time.Time)) {
	err := copyResponse(w, resp)
	switch {
	case err == nil:
		p.rec.end(oc, reactAnswered, "", time.Now())
	case r.Context().Err() != nil:
		reaction, how, at := gone()
		p.rec.end(oc, reaction, how, at)
	case tooLarge(err):
		_ = answerTooLarge(w, m.ID) // the client may be gone: no matter
		p.rec.fail(oc, errAnswerTooLarge, time.Now())
	default:
		p.rec.fail(oc, err, time.Now())
	}
}

// stopFirst reports whether the proxy stopped before a call's client
// side closed at closed (nil: not closed): the stop, not the client,
// ended the call.
func (p *Proxy) stopFirst(closed *time.Time) bool {
	at := p.stopAt.Load()
	return at != nil && (closed == nil || !closed.Before(*at))
}

// legacyStream reports whether closing r's stream is no cancel: a request
// of a 2025 Streamable HTTP session (it carries Mcp-Session-Id). The
// HTTP+SSE front's requests are not: there the client drops the session's
// one event stream, which ends the session and every call of it.
func legacyStream(r *http.Request) bool {
	_, sse := r.Context().Value(sseClientKey{}).(string)
	return r.Header.Get(vocab.HeaderSessionID) != "" && !sse
}
