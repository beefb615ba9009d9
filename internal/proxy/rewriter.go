package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// rewrite answers a call whose plan changes the stream: it answers with
// its own SSE stream, passes on, withholds or delays what the upstream
// sends, and adds its own progress or cancel, until the call ends. It
// returns the reaction, how the client cancelled, and when; clientGone
// says it when the client's side closed.
func (p *Proxy) rewrite(ctx context.Context, w http.ResponseWriter, resp *http.Response, m *message, cp *callParams,
	pl *plan, oc *openCall, start time.Time, clientGone func() (string, string, time.Time)) (reaction, how string, at time.Time) {
	msgs := make(chan upstreamMsg)
	go readUpstream(ctx, resp, msgs)
	copyHeaders(w.Header(), resp.Header, "Content-Type")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	out := sseWriter{w: w, rc: http.NewResponseController(w)}
	if err := out.rc.Flush(); err != nil {
		return clientGone()
	}
	rw := &rewriter{p: p, w: w, out: out, m: m, pl: pl, oc: oc, start: start, clientGone: clientGone,
		token: cp.Meta.ProgressToken, wantID: compactJSON(m.ID), wantToken: compactJSON(cp.Meta.ProgressToken)}
	defer rw.stopTimers()
	if pl.disconnect && pl.disconnectAfter <= 0 {
		return rw.disconnectNow()
	}
	rw.arm()
	e := rw.loop(ctx, msgs)
	return e.reaction, e.how, e.at
}

// callEnd is how a rewritten call ended: its reaction, how the client
// cancelled, and when.
type callEnd struct {
	reaction, how string
	at            time.Time
}

// ended makes a callEnd of the three values the recorder takes.
func ended(reaction, how string, at time.Time) *callEnd {
	return &callEnd{reaction: reaction, how: how, at: at}
}

// rewriter is one rewritten call: where its stream goes, what its plan
// does, and the timers and progress numbers of the plan's faults.
type rewriter struct {
	p          *Proxy
	w          http.ResponseWriter
	out        sseWriter
	m          *message
	pl         *plan
	oc         *openCall
	start      time.Time
	clientGone func() (string, string, time.Time)

	token             json.RawMessage // the call's progress token, or none
	wantID, wantToken string          // the call's id and token, compacted

	timers  []*time.Timer
	tickers []*time.Ticker
	// The plan's moments: hold's end, endless and flood progress, the
	// server's cancel, the cut, the stall, the regress, and the release
	// of a delayed final response; nil when the plan has none.
	hold, tick, flood, cancelAt, cutAt, stallAt, regressAt, release <-chan time.Time

	stalled, regressArmed bool
	progress              int     // the last progress the proxy numbered (endless, flood)
	last                  float64 // the last progress value the client got for its token
	pending               []byte  // a delayed final response
}

// timer is a timer of d that stopTimers stops.
func (rw *rewriter) timer(d time.Duration) <-chan time.Time {
	t := time.NewTimer(d)
	rw.timers = append(rw.timers, t)
	return t.C
}

// after is a timer that fires d after the call's start.
func (rw *rewriter) after(d time.Duration) <-chan time.Time {
	return rw.timer(d - time.Since(rw.start))
}

// every is a ticker of d that stopTimers stops.
func (rw *rewriter) every(d time.Duration) <-chan time.Time {
	t := time.NewTicker(d)
	rw.tickers = append(rw.tickers, t)
	return t.C
}

// stopTimers stops every timer and ticker of the call.
func (rw *rewriter) stopTimers() {
	for _, t := range rw.timers {
		t.Stop()
	}
	for _, t := range rw.tickers {
		t.Stop()
	}
}

// arm sets the timers of the plan's faults; a stall or regress due from
// the start is on at once.
func (rw *rewriter) arm() {
	pl := rw.pl
	if pl.holds() {
		rw.hold = rw.after(rw.p.file.Hold.Std())
	}
	if pl.endless && len(rw.token) > 0 {
		rw.tick = rw.every(pl.endlessTick)
	}
	if pl.floodEvery > 0 && len(rw.token) > 0 {
		rw.flood = rw.every(pl.floodEvery)
	}
	if pl.serverCancel {
		rw.cancelAt = rw.after(pl.serverCancelAfter)
	}
	if pl.disconnect {
		rw.cutAt = rw.after(pl.disconnectAfter)
	}
	rw.stalled, rw.regressArmed = pl.stall && pl.stallAfter <= 0, pl.regress && pl.regressAfter <= 0
	if pl.stall && !rw.stalled {
		rw.stallAt = rw.after(pl.stallAfter)
	}
	if pl.regress && !rw.regressArmed {
		rw.regressAt = rw.after(pl.regressAfter)
	}
}

// loop runs the call until it ends: by the client, the proxy's stop, the
// hold, the cut, the upstream, or the final response delivered.
func (rw *rewriter) loop(ctx context.Context, msgs <-chan upstreamMsg) *callEnd {
	for {
		select {
		case <-ctx.Done():
			return rw.gone()
		case <-rw.oc.cancel:
			return ended(reactCancelled, cancelNotification, time.Now())
		case <-rw.p.stopping:
			return ended(reactOpenAtStop, "", time.Now())
		case <-rw.hold:
			return ended(reactNeverCancelled, "", time.Now())
		case <-rw.tick:
			if rw.sendProgress("mcpchaos proxy: progress_endless") != nil {
				return rw.gone()
			}
		case <-rw.flood:
			if rw.sendProgress("mcpchaos proxy: progress_flood") != nil {
				return rw.gone()
			}
		case <-rw.cancelAt:
			if rw.sendCancel() != nil {
				return rw.gone()
			}
		case <-rw.cutAt:
			return ended(rw.disconnectNow())
		case <-rw.stallAt:
			rw.stalled = true
		case <-rw.regressAt:
			rw.regressArmed = true
		case <-rw.release:
			return rw.deliver(rw.pending)
		case um, ok := <-msgs:
			if !ok || um.err != nil {
				msgs = nil
				if rw.pl.holds() || rw.pending != nil {
					continue // held: the client's move
				}
				return rw.upstreamFailed(um.err)
			}
			if e := rw.onMessage(um.data); e != nil {
				return e
			}
		}
	}
}

// gone is the call's end when its client side closed (clientGone).
func (rw *rewriter) gone() *callEnd {
	return ended(rw.clientGone())
}

// upstreamFailed records the call failed: the upstream's answer ended
// without a final response, or with err (an answer too large gets its
// JSON-RPC error).
func (rw *rewriter) upstreamFailed(err error) *callEnd {
	if err == nil {
		err = errors.New("upstream stream ended without a response")
	}
	if tooLarge(err) {
		_ = answerTooLarge(rw.w, rw.m.ID) // the client may be gone: no matter
		err = errAnswerTooLarge
	}
	rw.p.rec.fail(rw.oc, err, time.Now())
	return ended(reactUpstreamError, "", time.Now())
}

// onMessage handles one message of the upstream's answer: withheld (the
// plan's endless, stall or drop), passed on (renumbered for a flood, with
// a regress after a progress), or the final response, delayed or
// delivered; nil while the call goes on.
func (rw *rewriter) onMessage(data []byte) *callEnd {
	pl := rw.pl
	var in message
	isFinal := json.Unmarshal(data, &in) == nil && in.isResponse() && compactJSON(in.ID) == rw.wantID
	switch {
	case pl.endless, rw.stalled, (pl.drop || pl.stall) && isFinal:
		return nil // withheld
	case !isFinal:
		if rw.passOn(data) != nil {
			return rw.gone()
		}
		return nil
	}
	if pl.serverCancel && rw.sendCancel() != nil {
		return rw.gone()
	}
	if wait := pl.delay - time.Since(rw.start); wait > 0 {
		rw.pending = data
		rw.release = rw.timer(wait)
		return nil
	}
	return rw.deliver(data)
}

// passOn writes a message other than the final response to the client:
// renumbered when the plan floods progress, and followed by a lower
// progress when a regress is armed.
func (rw *rewriter) passOn(data []byte) error {
	if rw.flood != nil {
		if b, ok := renumber(data, rw.wantToken, rw.progress+1); ok {
			rw.progress++
			data = b
		}
	}
	v, isProgress := progressValue(data, rw.wantToken)
	if isProgress {
		rw.last = v
	}
	if err := rw.out.event(data); err != nil {
		return err
	}
	if isProgress && rw.regressArmed {
		rw.regressArmed, rw.pl.regress = false, false
		return rw.writeProgress(max(0, rw.last-1), "mcpchaos proxy: progress_regress")
	}
	return nil
}

// deliver writes the final response, and after it, for
// progress_after_response, one more progress.
func (rw *rewriter) deliver(data []byte) *callEnd {
	if rw.out.event(data) != nil {
		return rw.gone()
	}
	if rw.pl.afterResponse && len(rw.token) > 0 {
		_ = rw.writeProgress(rw.last+1, "mcpchaos proxy: progress_after_response") // the client may be gone: no matter
	}
	return ended(reactAnswered, "", time.Now())
}

// writeProgress writes a progress notification of the call's token.
func (rw *rewriter) writeProgress(value float64, msg string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
		"params": map[string]any{"progressToken": rw.token, "progress": value, "message": msg}})
	return rw.out.event(b)
}

// sendProgress writes the proxy's next numbered progress.
func (rw *rewriter) sendProgress(msg string) error {
	rw.progress++
	rw.last = float64(rw.progress)
	return rw.writeProgress(rw.last, msg)
}

// sendCancel writes the server_cancel fault's cancel notification, once.
func (rw *rewriter) sendCancel() error {
	rw.cancelAt, rw.pl.serverCancel = nil, false
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": rw.m.ID, "reason": "mcpchaos proxy: server_cancel"}})
	return rw.out.event(b)
}

// disconnectNow cuts the call's connection (cutNow: recorded first).
func (rw *rewriter) disconnectNow() (reaction, how string, at time.Time) {
	return rw.p.cutNow(rw.w, rw.oc, rw.pl.disconnectRST)
}
