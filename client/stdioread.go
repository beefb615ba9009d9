package client

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// read is the one goroutine that reads the server's stdout.
func (t *stdioTransport) read() {
	defer close(t.readEnd)
	lr := lineReader{br: newStdoutReader(t.stdout), max: t.c.cfg.MaxMessageBytes}
	var sc scanner
	var m inMsg
	for {
		t.waitGate()
		line, err := lr.next(true, oversizeHead)
		at := time.Now()
		if IsOversize(err) {
			t.oversize(&sc, line, at, err)
			continue
		}
		if err != nil {
			t.fail(at, err)
			return
		}
		if err := decodeMessage(&sc, line, &m); err != nil {
			if errors.Is(err, errTooDeep) && t.tooDeep(&sc, line, at) {
				continue
			}
			t.notJSONRPC(&m, err, at)
			continue
		}
		t.route(&sc, &m, at)
	}
}

func (t *stdioTransport) lookup(id int64) *Call {
	t.mu.Lock()
	call := t.calls[id]
	t.mu.Unlock()
	return call
}

// deliverShared hands an answer read from a stream every call shares
// (stdio, the HTTP+SSE transport) to its call: an answer that breaks the
// call ends it and drops it from the table; a final one lingers, so late
// messages are still told from strays.
func deliverShared(call *Call, sc *scanner, m *inMsg, at time.Time, forget func(int64), linger func(*Call)) {
	final, broken := call.deliver(sc, m, at)
	switch {
	case broken != nil:
		forget(call.id)
		call.end(at, broken)
	case final && !call.stopped():
		linger(call)
	}
}

// route hands one message to the call it belongs to, or counts it.
func (t *stdioTransport) route(sc *scanner, m *inMsg, at time.Time) {
	switch m.kind {
	case kindResult, kindError:
		var call *Call
		switch {
		case m.idIsNum:
			call = t.lookup(m.idNum)
		case m.kind == kindError && m.idNull:
			call = t.nextUnreadable()
		}
		switch {
		case call != nil:
			if call.method == vocab.MethodPing {
				// Noted here, before the next message is read: an
				// answer read after this one was written after it.
				t.c.fenced.note(call.sent, at)
			}
			deliverShared(call, sc, m, at, t.forget, t.linger)
		case m.idIsNum && t.c.ids.issued(m.idNum):
			t.c.stats.stale.Add(1)
			// An answer read late may have waited in the pipe or the
			// server's write queue since before it saw our cancel (a
			// starved server, or our starved reader): only one written
			// after a fence sent after the stop proves work ran on.
			if stopped, ok := t.takeUnanswered(m.idNum); ok {
				if t.c.fenced.writtenAfter(stopped, at) {
					t.c.stats.staleAnswers.Add(1)
				}
				t.c.staleAnswer(sc, m, at)
			}
		default:
			t.c.stats.unknownResponses.Add(1)
		}
	case kindNotification:
		t.routeNotification(sc, m, at)
	case kindRequest:
		if t.c.inputRequest(m, nil, at, t.sendAnswer) {
			return
		}
		t.c.stats.serverRequests.Add(1)
		t.answerRequest(m)
	}
}

func (t *stdioTransport) routeNotification(sc *scanner, m *inMsg, at time.Time) {
	if call := listenOf(t.lookup, sc, m); call != nil {
		call.notification(sc, m, at)
		if m.methodIs(vocab.MethodCancelled) {
			// The server ended the subscription: no answer follows.
			t.forget(call.id)
			call.end(at, errStreamEnded)
		}
		return
	}
	routeNotification(t.c, t.lookup, sc, m, at)
}

// routeNotification hands a notification read from a stream that every
// call shares (stdio, the HTTP+SSE transport) to its call: progress by
// token, a server-sent cancel by request id (a violation of the 2026
// rules for tool calls); what belongs to no live call is counted.
func routeNotification(c *Client, lookup func(int64) *Call, sc *scanner, m *inMsg, at time.Time) {
	switch {
	case m.methodIs(vocab.MethodProgress):
		var p progressMsg
		if err := decodeProgress(sc, m.params, &p); err != nil {
			c.stats.notJSONRPC.Add(1)
			return
		}
		id, ours := tokenID(p.token, p.tokenIsStr)
		var call *Call
		if ours {
			call = lookup(id)
		}
		switch {
		case call != nil && call.tok == id:
			call.emit(Event{Kind: EvProgress, At: at, Progress: p.progress, Total: p.total, HasTotal: p.hasTotal})
		case call == nil && ours && c.ids.issued(id):
			c.stats.stale.Add(1)
		default:
			c.stats.unknownTokens.Add(1)
		}
	case m.methodIs(vocab.MethodCancelled):
		c.stats.serverCancels.Add(1)
		if id, ok := decodeCancelledID(sc, m.params); ok {
			if call := lookup(id); call != nil {
				call.emit(Event{Kind: EvViolation, At: at, Violation: ViolServerCancel, Detail: "server sent notifications/cancelled for this call"})
			}
		}
	}
}

// listenOf is the subscriptions/listen call a notification on stdio
// belongs to: one naming a live listen request in _meta's
// subscription id, or a notifications/cancelled naming one (the server's
// legitimate end of the stream). Nil for anything else.
func listenOf(lookup func(int64) *Call, sc *scanner, m *inMsg) *Call {
	var id int64
	var ok bool
	if m.methodIs(vocab.MethodCancelled) {
		id, ok = decodeCancelledID(sc, m.params)
	} else {
		id, ok = decodeSubscriptionID(sc, m.params)
	}
	if !ok {
		return nil
	}
	if call := lookup(id); call != nil && call.listen {
		return call
	}
	return nil
}

// answerRequest answers a server-initiated request: ping gets its empty
// result (legacy servers may ping), anything else method-not-found. The
// write runs off the reader goroutine so a server that does not read its
// stdin cannot stall the reader.
func (t *stdioTransport) answerRequest(m *inMsg) {
	msg := serverRequestAnswer(m)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
		defer cancel()
		_ = t.write(ctx, msg)
	}()
}

// sendAnswer writes an answer to a server request.
func (t *stdioTransport) sendAnswer(ctx context.Context, msg []byte) { _ = t.write(ctx, msg) }

// oversize ends the call an oversize line belongs to, when its id came
// early enough in the line to be read. The line is counted once: as the
// call's violation, or else as the connection's.
func (t *stdioTransport) oversize(sc *scanner, prefix []byte, at time.Time, err error) {
	var call *Call
	if id, ok := prefixID(sc, prefix); ok {
		call = t.lookup(id)
	}
	if call == nil {
		t.c.stats.oversize.Add(1)
		return
	}
	call.emit(Event{Kind: EvViolation, At: at, Violation: ViolOversize, Detail: err.Error()})
	call.setState(stFinal)
	call.end(at, err)
	t.forget(call.id)
}

// tooDeep ends the call a line nested deeper than mcpchaos reads answers,
// when its id comes before the depth is reached: the call fails at once
// with the cause (as over HTTP), not after its timeout for an answer that
// was read and dropped. It reports whether it found the call.
func (t *stdioTransport) tooDeep(sc *scanner, line []byte, at time.Time) bool {
	id, ok := prefixID(sc, line)
	var call *Call
	if ok {
		call = t.lookup(id)
	}
	if call == nil || call.setState(stFinal) || call.stopped() {
		return false
	}
	msg := "the answer to request " + strconv.FormatInt(id, 10) + " is not a JSON-RPC message: " + errTooDeep.Error()
	call.emit(Event{Kind: EvViolation, At: at, Violation: ViolNotJSONRPC, Detail: msg})
	call.finish()
	t.forget(call.id)
	call.end(at, &protocolError{msg: msg})
	return true
}

// notJSONRPC counts a line that is not a JSON-RPC message, once: as the
// violation of the call it answers when it is a response to a call in
// flight but for text that is not valid UTF-8 (the call then ends with a
// protocol error), or else as the connection's.
func (t *stdioTransport) notJSONRPC(m *inMsg, err error, at time.Time) {
	var call *Call
	if errors.Is(err, errInvalidUTF8) && m.idIsNum && (m.kind == kindResult || m.kind == kindError) {
		call = t.lookup(m.idNum)
	}
	if call == nil {
		t.c.stats.notJSONRPC.Add(1)
		return
	}
	call.emit(Event{Kind: EvViolation, At: at, Violation: ViolNotJSONRPC, Detail: err.Error()})
	if broken := call.brokenAnswer(m, err); broken != nil {
		t.forget(call.id)
		call.end(at, broken)
	}
}

// prefixID reads the top-level "id" from the start of a truncated message.
func prefixID(sc *scanner, prefix []byte) (int64, bool) {
	sc.Reset(prefix)
	var id int64
	var found bool
	_ = sc.Object(func(key []byte, esc bool) error {
		if keyIs(key, esc, "id") && sc.Peek() != '"' {
			v, err := sc.Number()
			if err != nil {
				return err
			}
			n, err := parseInt(v)
			if err == nil {
				id, found = n, true
			}
			return err
		}
		_, err := sc.Value()
		return err
	})
	return id, found
}

// fail ends every call when stdout closes or the process dies.
func (t *stdioTransport) fail(at time.Time, readErr error) {
	err := t.gone(100*time.Millisecond, readErr)
	t.mu.Lock()
	calls := t.calls
	t.calls = make(map[int64]*Call)
	t.mu.Unlock()
	for _, call := range calls {
		if call.stopped() || call.state.Load()&stFinal != 0 {
			call.end(at, nil)
		} else {
			call.end(at, err)
		}
	}
}

// nextUnreadable returns the oldest call sent as broken JSON that is still
// waiting: a null-id error answers it.
func (t *stdioTransport) nextUnreadable() *Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.unreadable) > 0 {
		call := t.unreadable[0]
		t.unreadable = t.unreadable[1:]
		if t.calls[call.id] == call {
			return call
		}
	}
	return nil
}
