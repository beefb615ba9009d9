package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
)

// upstreamMsg is one message read from the upstream's answer, or the
// error that ended it.
type upstreamMsg struct {
	data []byte
	err  error
}

// readUpstream sends each message of resp (one JSON body, or SSE events)
// on out, then closes it; it stops when ctx ends.
func readUpstream(ctx context.Context, resp *http.Response, out chan<- upstreamMsg) {
	defer close(out)
	send := func(m upstreamMsg) bool {
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
		switch {
		case err != nil:
			send(upstreamMsg{err: fmt.Errorf("read upstream body: %w", err)})
		case len(b) > MaxBody:
			send(upstreamMsg{err: fmt.Errorf("read upstream body: over %d bytes", MaxBody)})
		case len(bytes.TrimSpace(b)) > 0:
			send(upstreamMsg{data: b})
		}
		return
	}
	sse := client.NewSSEReader(resp.Body, MaxBody)
	for {
		data, err := sse.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			send(upstreamMsg{err: fmt.Errorf("read upstream stream: %w", err)})
			return
		}
		if !send(upstreamMsg{data: append([]byte(nil), data...)}) {
			return
		}
	}
}

// sseWriter writes the proxy's own SSE stream to the client.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// event writes one message as an event and flushes it.
func (s sseWriter) event(data []byte) error {
	if bytes.ContainsAny(data, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
		data = b.Bytes()
	}
	if _, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("flush event: %w", err)
	}
	return nil
}

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

	var hold <-chan time.Time
	if pl.holds() {
		t := time.NewTimer(p.file.Hold.Std() - time.Since(start))
		defer t.Stop()
		hold = t.C
	}
	var tick <-chan time.Time
	token := cp.Meta.ProgressToken
	if pl.endless && len(token) > 0 {
		t := time.NewTicker(pl.endlessTick)
		defer t.Stop()
		tick = t.C
	}
	var flood <-chan time.Time
	if pl.floodEvery > 0 && len(token) > 0 {
		t := time.NewTicker(pl.floodEvery)
		defer t.Stop()
		flood = t.C
	}
	var cancelAt <-chan time.Time
	if pl.serverCancel {
		t := time.NewTimer(pl.serverCancelAfter - time.Since(start))
		defer t.Stop()
		cancelAt = t.C
	}
	var pending []byte // a delayed final response
	var release <-chan time.Time
	sendCancel := func() error {
		cancelAt, pl.serverCancel = nil, false
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": m.ID, "reason": "mcpchaos proxy: server_cancel"}})
		return out.event(b)
	}
	var stallAt, regressAt, cutAt <-chan time.Time
	disconnectNow := func() (string, string, time.Time) { return p.cutNow(w, oc, pl.disconnectRST) }
	if pl.disconnect && pl.disconnectAfter <= 0 {
		return disconnectNow()
	}
	if pl.disconnect {
		t := time.NewTimer(pl.disconnectAfter - time.Since(start))
		defer t.Stop()
		cutAt = t.C
	}
	stalled, regressArmed := pl.stall && pl.stallAfter <= 0, pl.regress && pl.regressAfter <= 0
	if pl.stall && !stalled {
		t := time.NewTimer(pl.stallAfter - time.Since(start))
		defer t.Stop()
		stallAt = t.C
	}
	if pl.regress && !regressArmed {
		t := time.NewTimer(pl.regressAfter - time.Since(start))
		defer t.Stop()
		regressAt = t.C
	}
	progress := 0 // the last progress the proxy numbered (endless, flood)
	last := 0.0   // the last progress value the client got for its token
	writeProgress := func(value float64, msg string) error {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
			"params": map[string]any{"progressToken": token, "progress": value, "message": msg}})
		return out.event(b)
	}
	sendProgress := func(msg string) error {
		progress++
		last = float64(progress)
		return writeProgress(last, msg)
	}
	// deliver writes the final response, and after it, for
	// progress_after_response, one more progress.
	deliver := func(data []byte) (string, string, time.Time) {
		if out.event(data) != nil {
			return clientGone()
		}
		if pl.afterResponse && len(token) > 0 {
			_ = writeProgress(last+1, "mcpchaos proxy: progress_after_response") // the client may be gone: no matter
		}
		return reactAnswered, "", time.Now()
	}
	wantID, wantToken := compactJSON(m.ID), compactJSON(token)
	for {
		select {
		case <-ctx.Done():
			return clientGone()
		case <-oc.cancel:
			return reactCancelled, cancelNotification, time.Now()
		case <-p.stopping:
			return reactOpenAtStop, "", time.Now()
		case <-hold:
			return reactNeverCancelled, "", time.Now()
		case <-tick:
			if sendProgress("mcpchaos proxy: progress_endless") != nil {
				return clientGone()
			}
		case <-flood:
			if sendProgress("mcpchaos proxy: progress_flood") != nil {
				return clientGone()
			}
		case <-cancelAt:
			if sendCancel() != nil {
				return clientGone()
			}
		case <-cutAt:
			return disconnectNow()
		case <-stallAt:
			stalled = true
		case <-regressAt:
			regressArmed = true
		case <-release:
			return deliver(pending)
		case um, ok := <-msgs:
			if !ok || um.err != nil {
				msgs = nil
				if pl.holds() || pending != nil {
					continue // held: the client's move
				}
				err := errors.New("upstream stream ended without a response")
				if um.err != nil {
					err = um.err
				}
				if tooLarge(err) {
					_ = answerTooLarge(w, m.ID) // the client may be gone: no matter
					err = errAnswerTooLarge
				}
				p.rec.fail(oc, err, time.Now())
				return reactUpstreamError, "", time.Now()
			}
			var in message
			isFinal := json.Unmarshal(um.data, &in) == nil && in.isResponse() && compactJSON(in.ID) == wantID
			switch {
			case pl.endless, stalled, (pl.drop || pl.stall) && isFinal:
				continue // withheld
			case !isFinal:
				if flood != nil {
					if b, ok := renumber(um.data, wantToken, progress+1); ok {
						progress++
						um.data = b
					}
				}
				v, isProgress := progressValue(um.data, wantToken)
				if isProgress {
					last = v
				}
				if out.event(um.data) != nil {
					return clientGone()
				}
				if isProgress && regressArmed {
					regressArmed, pl.regress = false, false
					if writeProgress(max(0, last-1), "mcpchaos proxy: progress_regress") != nil {
						return clientGone()
					}
				}
				continue
			}
			if pl.serverCancel && sendCancel() != nil {
				return clientGone()
			}
			if wait := pl.delay - time.Since(start); wait > 0 {
				pending = um.data
				t := time.NewTimer(wait)
				defer t.Stop()
				release = t.C
				continue
			}
			return deliver(um.data)
		}
	}
}
