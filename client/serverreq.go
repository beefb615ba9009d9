package client

import (
	"cmp"
	"context"
	"sync"
	"time"
)

// Answers to server requests on the HTTP transports: the server's request
// (a ping, or anything else, which gets method-not-found) comes on a
// stream we read, and its answer is POSTed on a connection of its own, off
// the reader goroutine.

const (
	// MaxAnswering bounds the answers in flight per transport (and per
	// upstream of the proxy, which shares ServerAnswers): a server that
	// floods requests gets at most this many connections from us; the
	// requests beyond are left unanswered (they are all counted in
	// protocol.connection.server_requests).
	MaxAnswering = 16
	// answerTimeout bounds one answer's POST.
	answerTimeout = 5 * time.Second
)

// ServerAnswers bounds the answers to a server's requests in flight, for
// a client that POSTs each one on a connection of its own, off the
// goroutine that reads the server's stream. Its zero value is ready.
type ServerAnswers struct {
	once  sync.Once
	slots chan struct{}
	limit int // 0: MaxAnswering
	// stop, when closed, drops the answers still waiting (the client
	// closed); nil: none is dropped.
	stop chan struct{}
}

// Go runs post in a goroutine of its own, with a context that ends after
// answerTimeout, unless MaxAnswering answers are in flight already; it
// reports whether it did.
func (a *ServerAnswers) Go(post func(ctx context.Context)) bool { return a.after(0, post) }

// after is Go, with post run after wait (the wait holds its slot); the
// context's answerTimeout starts after the wait.
func (a *ServerAnswers) after(wait time.Duration, post func(ctx context.Context)) bool {
	a.once.Do(func() { a.slots = make(chan struct{}, cmp.Or(a.limit, MaxAnswering)) })
	select {
	case a.slots <- struct{}{}:
	default:
		return false
	}
	go func() {
		defer func() { <-a.slots }()
		if wait > 0 {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-t.C:
			case <-a.stop:
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
		defer cancel()
		post(ctx)
	}()
	return true
}

// sendAnswer POSTs an answer to a server request.
func (t *httpTransport) sendAnswer(ctx context.Context, msg []byte) { _, _ = t.exchange(ctx, "", msg) }

// answerServerRequest POSTs the answer to m unless MaxAnswering answers
// are already in flight.
func (t *httpTransport) answerServerRequest(m *inMsg) {
	msg := serverRequestAnswer(m)
	t.answering.Go(func(ctx context.Context) { _, _ = t.exchange(ctx, "", msg) })
}
