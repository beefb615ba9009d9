package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// The 2025 revisions' sessions in front of a stdio upstream. One server
// process can be initialized once, but every 2025 client (2025-03-26,
// 2025-06-18, 2025-11-25) starts with its own initialize. So the proxy
// initializes the server itself, once, when the first 2025 client asks:
// with that client's protocolVersion, no capabilities (the proxy answers
// no server request) and the proxy as clientInfo, followed by
// notifications/initialized. It then answers each client's initialize
// from the server's own result (serverInfo, capabilities, instructions
// and the version the server negotiated with the proxy: a client that
// asked for another one gets that one and may disconnect, as the
// lifecycle lets it), with an Mcp-Session-Id of the proxy's, and takes
// the client's notifications/initialized without passing it on.
//
// A session's GET stream is served: an SSE stream that carries each
// notification of the server that belongs to no call (a list change, a
// log message), one copy per session; it stays open until the session
// ends, the client closes it or the server exits. DELETE ends a session
// and writes notifications/cancelled for each of its calls still open.
// A request with a session id the proxy does not know gets 404, as after
// the end of a session. At most maxSessions sessions are kept: a newer
// one ends the oldest.

// maxSessions bounds the 2025 sessions a stdio upstream keeps.
const maxSessions = 1024

// handshakeTimeout bounds the wait for the server's initialize result.
const handshakeTimeout = 30 * time.Second

// stdioSessions are the sessions of a stdio upstream.
type stdioSessions struct {
	initMu sync.Mutex
	result json.RawMessage // the server's InitializeResult, once it gave one

	mu   sync.Mutex
	byID *boundedIndex[*stdioSession]
}

// stdioSession is one 2025 client's session.
type stdioSession struct {
	id     string
	ended  chan struct{} // closed by DELETE or eviction
	stream chan []byte   // the GET stream's messages, while one is open
}

func newStdioSessions() stdioSessions {
	return stdioSessions{byID: newBoundedIndex[*stdioSession](maxSessions)}
}

// legacyVersion reports whether an MCP-Protocol-Version header names a
// revision with sessions (none given: 2025-03-26 is assumed).
func legacyVersion(v string) bool {
	return vocab.IsLegacy(vocab.HeaderRevision(v))
}

// session returns the open session named by req's Mcp-Session-Id.
func (u *stdioUpstream) session(req *http.Request) (*stdioSession, bool) {
	u.sessions.mu.Lock()
	defer u.sessions.mu.Unlock()
	return u.sessions.byID.Get(req.Header.Get(vocab.HeaderSessionID))
}

// sessionMessage handles what a POST of a 2025 session needs from the
// proxy itself: initialize, notifications/initialized, and a session id
// it does not know. It returns nil for everything else, which goes to
// the server.
func (u *stdioUpstream) sessionMessage(req *http.Request, m map[string]json.RawMessage) *http.Response {
	var method string
	_ = json.Unmarshal(m["method"], &method)
	sid := req.Header.Get(vocab.HeaderSessionID)
	switch {
	case method == vocab.MethodInitialize:
		return u.initialize(req, m)
	case sid == "" || !legacyVersion(req.Header.Get(vocab.HeaderProtocolVersion)):
		return nil // a 2026 request: no session
	}
	if _, ok := u.session(req); !ok {
		return answer(req, http.StatusNotFound, "application/json", rpcError(m["id"], -32600, fmt.Sprintf("mcpchaos proxy: no session %q (ended, or never begun)", cutIdentity(sid))))
	}
	if method == vocab.MethodInitialized {
		return answer(req, http.StatusAccepted, "", nil) // the proxy sent the server its own
	}
	return nil
}

// initialize answers a 2025 client's initialize from the server's own
// result, initializing the server first if no client did yet.
func (u *stdioUpstream) initialize(req *http.Request, m map[string]json.RawMessage) *http.Response {
	id := m["id"]
	if len(id) == 0 {
		return answer(req, http.StatusBadRequest, "application/json", rpcError(nil, -32600, "initialize must be a request (it has no id)"))
	}
	result, rpcErr, err := u.handshake(req.Context(), m["params"])
	if err != nil {
		return answer(req, http.StatusBadGateway, "application/json", rpcError(id, -32603, "mcpchaos proxy: initialize the stdio upstream: "+err.Error()))
	}
	if rpcErr != nil {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcErr})
		return answer(req, http.StatusOK, "application/json", b)
	}
	s := &stdioSession{id: newSessionID(), ended: make(chan struct{})}
	u.sessions.mu.Lock()
	evicted := u.sessions.byID.Put(s.id, s)
	u.sessions.mu.Unlock()
	for _, old := range evicted {
		u.endSession(old, "its session was evicted (more than 1024 sessions)")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	resp := answer(req, http.StatusOK, "application/json", b)
	resp.Header.Set(vocab.HeaderSessionID, s.id)
	return resp
}

// handshake initializes the server once and returns its result, or the
// error object it answered with (then the next initialize tries again).
func (u *stdioUpstream) handshake(ctx context.Context, clientParams json.RawMessage) (result, rpcErr json.RawMessage, err error) {
	u.sessions.initMu.Lock()
	defer u.sessions.initMu.Unlock()
	if u.sessions.result != nil {
		return u.sessions.result, nil, nil
	}
	var asked struct {
		Version string `json:"protocolVersion"`
	}
	if json.Unmarshal(clientParams, &asked) != nil || asked.Version == "" {
		asked.Version = vocab.Rev20251125
	}
	c := &stdioCall{events: make(chan []byte, 4), gone: make(chan struct{})}
	defer close(c.gone)
	u.mu.Lock()
	u.next++
	upID := u.next
	c.clientID = json.RawMessage(strconv.FormatInt(upID, 10))
	u.calls[upID] = c
	u.mu.Unlock()
	defer u.forget(upID)
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": upID, "method": "initialize", "params": map[string]any{
		"protocolVersion": asked.Version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpchaos-proxy", "version": "1"}}})
	if err := u.write(line); err != nil {
		return nil, nil, err
	}
	// Not the client's context: once the line is written the server is
	// being initialized, whether or not this client waits for it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handshakeTimeout)
	defer cancel()
	var b []byte
	select {
	case b = <-c.events:
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("no answer to initialize: %w", ctx.Err())
	case <-u.exited:
		return nil, nil, errors.New("the server exited")
	}
	var ans message
	if err := json.Unmarshal(b, &ans); err != nil {
		return nil, nil, fmt.Errorf("its answer %.200q: %w", b, err)
	}
	if len(ans.Error) > 0 {
		return nil, ans.Error, nil
	}
	if err := u.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		return nil, nil, err
	}
	u.sessions.result = ans.Result
	return ans.Result, nil, nil
}

// newSessionID is 128 random bits in hex: visible ASCII, as the spec asks.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// sessionStream answers a GET (the session's stream) or a DELETE (its
// end); anything else, or either without a session, gets 405.
func (u *stdioUpstream) sessionStream(req *http.Request) *http.Response {
	sid := req.Header.Get(vocab.HeaderSessionID)
	if (req.Method != http.MethodGet && req.Method != http.MethodDelete) || sid == "" {
		resp := answer(req, http.StatusMethodNotAllowed, "application/json", rpcError(nil, -32600, "mcpchaos proxy: "+req.Method+" needs a 2025 session in front of a stdio upstream"))
		resp.Header.Set("Allow", "GET, POST, DELETE")
		return resp
	}
	s, ok := u.session(req)
	if !ok {
		return answer(req, http.StatusNotFound, "application/json", rpcError(nil, -32600, fmt.Sprintf("mcpchaos proxy: no session %q (ended, or never begun)", cutIdentity(sid))))
	}
	if req.Method == http.MethodDelete {
		u.sessions.mu.Lock()
		got, ok := u.sessions.byID.Get(s.id)
		if ok = ok && got == s; ok {
			u.sessions.byID.Take(s.id)
		}
		u.sessions.mu.Unlock()
		if ok { // else a DELETE at the same moment ended it
			u.endSession(s, "the client ended its session")
		}
		return answer(req, http.StatusOK, "", nil)
	}
	ch := make(chan []byte, 64)
	u.sessions.mu.Lock()
	s.stream = ch // a newer GET takes the session's messages from an older one
	u.sessions.mu.Unlock()
	pr, pw := io.Pipe()
	go u.serveStream(req.Context(), s, ch, pw)
	resp := answer(req, http.StatusOK, "text/event-stream", nil)
	resp.Body = pr
	return resp
}

// serveStream writes the messages for s's GET stream until the client
// closes it, the session ends or the server exits.
func (u *stdioUpstream) serveStream(ctx context.Context, s *stdioSession, ch chan []byte, pw *io.PipeWriter) {
	defer func() {
		u.sessions.mu.Lock()
		if s.stream == ch {
			s.stream = nil
		}
		u.sessions.mu.Unlock()
	}()
	for {
		select {
		case b := <-ch:
			if _, err := fmt.Fprintf(pw, "event: message\ndata: %s\n\n", b); err != nil {
				return
			}
		case <-ctx.Done():
			pw.CloseWithError(ctx.Err())
			return
		case <-s.ended:
			pw.Close()
			return
		case <-u.exited:
			pw.CloseWithError(errors.New("the stdio upstream exited"))
			return
		}
	}
}

// endSession ends s and cancels its calls still open upstream.
func (u *stdioUpstream) endSession(s *stdioSession, reason string) {
	close(s.ended)
	u.mu.Lock()
	var open []int64
	for upID, c := range u.calls {
		if c.session == s.id {
			open = append(open, upID)
		}
	}
	u.mu.Unlock()
	for _, upID := range open {
		u.cancel(upID, reason)
	}
}

// broadcast puts a server notification that belongs to no call on each
// session's GET stream; a stream that is not keeping up misses it.
func (x *stdioSessions) broadcast(m map[string]json.RawMessage) {
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range x.byID.m {
		if ch := e.v.stream; ch != nil {
			select {
			case ch <- b:
			default:
			}
		}
	}
}
