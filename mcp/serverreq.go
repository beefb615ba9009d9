package mcp

import (
	"context"
	"time"
)

// Answers to server requests on the HTTP transports: the server's request
// (a ping, or anything else, which gets method-not-found) comes on a
// stream we read, and its answer is POSTed on a connection of its own, off
// the reader goroutine.

const (
	// maxAnswering bounds the answers in flight per transport: a server
	// that floods requests gets at most this many connections from us;
	// the requests beyond are left unanswered (they are all counted in
	// protocol.connection.server_requests).
	maxAnswering = 16
	// answerTimeout bounds one answer's POST.
	answerTimeout = 5 * time.Second
)

// answerServerRequest POSTs the answer to m unless maxAnswering answers
// are already in flight.
func (t *httpTransport) answerServerRequest(m *inMsg) {
	t.mu.Lock()
	if t.answering == nil {
		t.answering = make(chan struct{}, maxAnswering)
	}
	slots := t.answering
	t.mu.Unlock()
	select {
	case slots <- struct{}{}:
	default:
		return
	}
	msg := serverRequestAnswer(m)
	go func() {
		defer func() { <-slots }()
		ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
		defer cancel()
		_, _ = t.exchange(ctx, "", msg)
	}()
}
