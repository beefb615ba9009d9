package client

import (
	"errors"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// What a call makes of a message read from its stream (HTTP) or routed to
// it (stdio): its answer, a broken answer, a notification, a stray message.

// answers reports whether a response is addressed to the call: it carries
// the call's id, or null on an error (the answer to a request whose id the
// server could not read).
func (call *Call) answers(m *inMsg) bool {
	return m.kind == kindError && m.idNull || m.idIsNum && m.idNum == call.id
}

// deliver decodes one message read from the call's own stream (HTTP) or
// routed to it (stdio) and emits what it means. final reports that the
// message was the call's final response; broken, that this response is
// unusable, a protocol error that ends the call.
func (call *Call) deliver(sc *scanner, m *inMsg, at time.Time) (final bool, broken error) {
	if call.state.Load()&stReleased != 0 {
		return call.stale(sc, m, at), nil
	}
	switch m.kind {
	case kindResult, kindError:
		if !call.answers(m) {
			// A response for another id on this call's stream (HTTP; stdio
			// routes by id): it answers no call in flight here.
			call.c.stats.unknownResponses.Add(1)
			return false, nil
		}
		wasFinal := call.setState(stFinal)
		switch {
		case m.kind == kindError:
			call.emitAs(Event{Kind: EvRPCError, At: at, Code: m.errCode, Message: m.errMessage, Raw: m.errData}, wasFinal)
		case call.raw:
			call.emitAs(Event{Kind: EvResult, At: at, Raw: m.result}, wasFinal)
		default:
			var r Result
			if err := decodeCallResult(sc, m.result, &r); err != nil {
				call.emitAs(Event{Kind: EvViolation, At: at, Violation: ViolNotJSONRPC, Detail: "tools/call result: " + err.Error()}, wasFinal)
				if !wasFinal && !call.stopped() {
					call.finish()
					return true, &protocolError{msg: "the answer is not a tools/call result: " + err.Error()}
				}
			}
			call.emitAs(Event{Kind: EvResult, At: at, Result: r}, wasFinal)
		}
		call.finish()
		return !wasFinal, nil
	case kindNotification:
		call.notification(sc, m, at)
	case kindRequest:
		if h, ok := call.c.tr.(*httpTransport); ok && call.c.inputRequest(m, call, at, h.sendAnswer) {
			return false, nil
		}
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolServerRequest, Detail: "server sent request " + string(m.method)})
	}
	return false, nil
}

// brokenAnswer settles a message that failed to decode with err, after
// its violation was reported: when it is a well-formed response to the
// call but for text that is not valid UTF-8, it was the call's final
// answer, and unusable. It returns the protocol error that ends the call,
// or nil (not the call's answer, or the call already had one or was
// stopped by us).
func (call *Call) brokenAnswer(m *inMsg, err error) error {
	if !errors.Is(err, errInvalidUTF8) || m.kind != kindResult && m.kind != kindError || !call.answers(m) {
		return nil
	}
	if call.setState(stFinal) || call.stopped() {
		return nil
	}
	call.finish()
	return &protocolError{msg: "the answer to request " + strconv.FormatInt(call.id, 10) + " is not valid UTF-8"}
}

// stray describes a message on a call's stream that was none of its
// answer, for the error when the stream then ends without one.
func stray(m *inMsg, decodeErr error) string {
	switch {
	case decodeErr != nil:
		return "a message that is not JSON-RPC (" + decodeErr.Error() + ")"
	case m.idNull:
		return "a response for id null"
	case m.idIsStr:
		return "a response for id " + quoteFew([]byte(`"`+string(m.idRaw)+`"`), 40)
	case m.kind == kindResult || m.kind == kindError:
		return "a response for id " + quoteFew(m.idRaw, 40)
	}
	return ""
}

func (call *Call) notification(sc *scanner, m *inMsg, at time.Time) {
	switch {
	case m.methodIs(vocab.MethodProgress):
		var p progressMsg
		if err := decodeProgress(sc, m.params, &p); err != nil {
			call.emit(Event{Kind: EvViolation, At: at, Violation: ViolBadProgress, Detail: err.Error()})
			return
		}
		id, ours := tokenID(p.token, p.tokenIsStr)
		switch {
		case ours && id == call.tok && call.tok != 0:
			call.emit(Event{Kind: EvProgress, At: at, Progress: p.progress, Total: p.total, HasTotal: p.hasTotal, Burst: call.ahead})
		case ours && call.creditElsewhere(id, &p, at):
			// Another call's progress on this stream, credited to it; a
			// violation of the stream's scope in 2026 (see otherstream.go).
			if call.c.era.Modern() {
				call.emit(Event{Kind: EvViolation, At: at, Violation: ViolWrongStream, Detail: "progress for another request's token"})
			}
		case ours && call.c.ids.issued(id):
			call.emit(Event{Kind: EvViolation, At: at, Violation: ViolWrongStream, Detail: "progress for another request's token"})
		default:
			call.emit(Event{Kind: EvViolation, At: at, Violation: ViolUnknownToken, Detail: "progress for a token never sent"})
		}
	case m.methodIs(vocab.MethodCancelled):
		if id, ok := decodeCancelledID(sc, m.params); call.listen && ok && id == call.id {
			call.emit(Event{Kind: EvListen, At: at, Detail: vocab.MethodCancelled})
			return
		}
		call.emit(Event{Kind: EvViolation, At: at, Violation: ViolServerCancel, Detail: "server sent notifications/cancelled"})
	case call.listen:
		call.emit(Event{Kind: EvListen, At: at, Detail: string(m.method), Raw: m.params})
	}
}

// errStreamEnded is the end of a response stream before its final answer.
var errStreamEnded = errors.New("stream ended before the final response")
