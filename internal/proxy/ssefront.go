package proxy

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// The 2024-11-05 HTTP+SSE transport toward clients. A GET of /sse opens a
// session: an event stream whose first event, "endpoint", names the URL
// the client POSTs its messages to (/messages?sessionId=ID). Each POST is
// accepted with 202 and handled by the proxy's own Streamable HTTP side,
// in process, so every fault and record applies as on /mcp; every message
// of its answer is written on the session's stream (ssebridge.go).
//
// What has no equivalent on this transport: a call has no stream of its
// own, so the client cancels with notifications/cancelled; a client that
// drops its event stream ends its session and every call in it (recorded
// as cancelled, stream_closed). The throttle fault answers the POST itself
// (429 or 503, Retry-After, the JSON-RPC error as its body), and
// disconnect cuts the session's event stream.

// Bounds of the HTTP+SSE front.
const (
	maxSSESessions   = 256 // open event streams; one more GET gets 503
	maxSessionCalls  = 64  // requests, and apart notifications, of one session in flight; one more POST gets 503
	maxQueuedEvents  = 64  // messages waiting for the stream; senders wait beyond it
	sseSessionParam  = "sessionId"
	sseMessagesPath  = "/messages"
	sseStreamPath    = "/sse"
	sseDeleteTimeout = 5 * time.Second
)

// sseFront is the proxy's set of HTTP+SSE sessions.
type sseFront struct {
	p        *Proxy
	mu       sync.Mutex
	sessions map[string]*sseSession
}

// sseSession is one client's event stream and what goes on it.
type sseSession struct {
	id     string
	events chan []byte   // messages for the stream
	cut    chan bool     // a disconnect fault: cut the stream (true: with a reset)
	done   chan struct{} // closed when the stream has ended
	ctx    context.Context
	cancel context.CancelFunc // ends every call of the session

	running sync.WaitGroup // messages being handled

	mu       sync.Mutex
	ended    bool                // the stream ended: no more messages
	upstream string              // the upstream's Mcp-Session-Id (2025)
	version  string              // the protocol version initialize settled
	calls    map[string]*sseCall // requests in flight, by id (compact JSON)
	requests int                 // requests in flight (an id used twice counts twice)
	notes    int                 // notifications in flight
}

func newSSEFront(p *Proxy) *sseFront { return &sseFront{p: p, sessions: map[string]*sseSession{}} }

// register routes the transport's two paths on mux.
func (f *sseFront) register(mux *http.ServeMux) {
	mux.HandleFunc(sseStreamPath, localOnly(f.serveStream))
	mux.HandleFunc(sseMessagesPath, localOnly(f.serveMessage))
}

// localOnly refuses a request whose Origin is not on this machine (403),
// as the 2024-11-05 transport asks of servers against DNS rebinding; a
// request without Origin (not from a browser) passes.
func localOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			writeRPCError(w, http.StatusForbidden, nil, -32600, fmt.Sprintf("mcpchaos proxy: Origin %q is not this machine", clip(o)))
			return
		}
		h(w, r)
	}
}

// loopbackOrigin reports whether origin names localhost or a loopback IP.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// open makes a session, or returns nil when maxSSESessions are open.
func (f *sseFront) open() *sseSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sessions) >= maxSSESessions {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &sseSession{id: rand.Text(), events: make(chan []byte, maxQueuedEvents), cut: make(chan bool, 1),
		done: make(chan struct{}), ctx: ctx, cancel: cancel, calls: map[string]*sseCall{}}
	f.sessions[s.id] = s
	return s
}

func (f *sseFront) lookup(id string) *sseSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

// serveStream serves GET /sse: the session's event stream, until the
// client closes it, a disconnect fault cuts it or the proxy stops.
func (f *sseFront) serveStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		writeRPCError(w, http.StatusMethodNotAllowed, nil, -32600, "method "+r.Method+" not allowed on "+sseStreamPath)
		return
	}
	s := f.open()
	if s == nil {
		writeRPCError(w, http.StatusServiceUnavailable, nil, -32000, fmt.Sprintf("mcpchaos proxy: %d HTTP+SSE sessions open already", maxSSESessions))
		return
	}
	defer f.end(s)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	out := sseWriter{w: w, rc: http.NewResponseController(w)}
	if _, err := fmt.Fprintf(w, "event: endpoint\ndata: %s?%s=%s\n\n", sseMessagesPath, sseSessionParam, s.id); err != nil {
		return
	}
	if out.rc.Flush() != nil {
		return
	}
	for {
		select {
		case data := <-s.events:
			if out.event(data) != nil {
				return
			}
		case rst := <-s.cut:
			f.p.rec.endOpen(sseClient(s.id), s.open(), reactDisconnected, time.Now())
			_ = cut(w, rst) // the call that asked is recorded already
			return
		case <-r.Context().Done():
			return
		case <-f.p.stopping:
			return
		}
	}
}

// end forgets a session whose stream ended, ends its calls (their
// upstream requests close) and ends its upstream 2025 session.
func (f *sseFront) end(s *sseSession) {
	f.mu.Lock()
	delete(f.sessions, s.id)
	f.mu.Unlock()
	close(s.done)
	s.cancel()
	s.mu.Lock()
	s.ended = true
	up, version := s.upstream, s.version
	s.mu.Unlock()
	if up == "" {
		return
	}
	// The calls' cancels go up before the session ends: wait for them
	// (each is bounded), then the DELETE gets a bound of its own, so that
	// a long wait leaves it time (it cancels what is still in flight).
	wait, cancelWait := context.WithTimeout(context.Background(), sseDeleteTimeout)
	defer cancelWait()
	finished := make(chan struct{})
	go func() { s.running.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-wait.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), sseDeleteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, sseStreamPath, nil)
	if err != nil {
		return
	}
	req.Header.Set(vocab.HeaderSessionID, up)
	if version != "" {
		req.Header.Set(vocab.HeaderProtocolVersion, version)
	}
	f.p.forward(discard{h: http.Header{}}, req, nil)
}

// serveMessage serves POST /messages?sessionId=ID: one message of the
// session's client.
func (f *sseFront) serveMessage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeRPCError(w, http.StatusMethodNotAllowed, nil, -32600, "method "+r.Method+" not allowed on "+sseMessagesPath)
		return
	}
	id := r.URL.Query().Get(sseSessionParam)
	if id == "" {
		writeRPCError(w, http.StatusBadRequest, nil, -32600, "mcpchaos proxy: POST "+sseMessagesPath+" without "+sseSessionParam)
		return
	}
	s := f.lookup(id)
	if s == nil {
		writeRPCError(w, http.StatusNotFound, nil, -32600, fmt.Sprintf("mcpchaos proxy: unknown session %q", clip(id)))
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	f.dispatch(w, r, s, body)
}

// open returns the ids of the session's requests in flight.
func (s *sseSession) open() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]json.RawMessage, 0, len(s.calls))
	for k := range s.calls {
		ids = append(ids, json.RawMessage(k))
	}
	return ids
}

// send queues a message for the stream; false when the stream ended or
// ctx did first.
func (s *sseSession) send(ctx context.Context, data []byte) bool {
	select {
	case s.events <- data:
		return true
	case <-s.done:
	case <-ctx.Done():
	}
	return false
}

// offer queues a message for the stream without waiting; false when the
// queue is full or the stream ended.
func (s *sseSession) offer(data []byte) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	select {
	case s.events <- data:
		return true
	default:
		return false
	}
}

// clip bounds a client's value quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// discard is a ResponseWriter that keeps nothing, for the DELETE that
// ends an upstream session nobody waits for.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
