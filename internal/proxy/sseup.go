package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// sseUpstream is an upstream that speaks the 2024-11-05 HTTP+SSE
// transport, behind the same forwarding code as a Streamable HTTP one: it
// is the proxy's http.RoundTripper, and answers each forwarded request as
// a Streamable HTTP server would.
//
// A 2025 client's initialize opens an upstream session of its own (a GET
// whose event stream names the URL to POST to), and the answer gives the
// client an Mcp-Session-Id that names it; the client's later requests go
// to that session, ids and progress tokens as they are (one client's ids
// do not collide). A request without a session id (a 2026-07-28 client)
// gets a session of its own, which the proxy initializes itself and
// closes when the request ends. Every answer and progress comes on the
// session's one stream and is routed to its request's SSE answer by id or
// token. When the client closes a request's stream (the 2026 cancel,
// or the proxy's own cut), the proxy POSTs notifications/cancelled for it:
// the 2024-11-05 cancel. A client's notifications/cancelled passes as it
// came. GET has no equivalent (405); DELETE ends the session. With
// transport auto, autoUpstream (sseauto.go) decides whether to use it.
type sseUpstream struct {
	url    *url.URL
	client *http.Client // the HTTP transport to the server
	// answers bounds the answers to the server's requests in flight, over
	// every session: at most client.MaxAnswering POSTs; the requests beyond
	// are left unanswered, as mcpchaos run leaves them.
	answers client.ServerAnswers

	mu       sync.Mutex
	sessions map[string]*upSession // by the Mcp-Session-Id given to the client
}

// Bounds of the HTTP+SSE upstream.
const (
	maxUpSessions   = 256              // upstream sessions open; one more initialize gets 503
	upOpenTimeout   = 10 * time.Second // GET until the endpoint event, and the proxy's own initialize
	maxUpPostAnswer = 64 << 10         // the body of the server's answer to a POST, read and dropped
	upInitID        = `"mcpchaos-proxy-initialize"`
)

func newSSEUpstream(u *url.URL, rt http.RoundTripper) *sseUpstream {
	return &sseUpstream{url: u, client: &http.Client{Transport: rt}, sessions: map[string]*upSession{}}
}

// RoundTrip answers one forwarded request from the upstream session it
// belongs to.
func (u *sseUpstream) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	sid := req.Header.Get(vocab.HeaderSessionID)
	switch req.Method {
	case http.MethodPost:
	case http.MethodDelete:
		if s := u.take(sid); s != nil {
			s.close()
			return answer(req, http.StatusOK, "", nil), nil
		}
		return answer(req, http.StatusNotFound, "application/json", rpcError(nil, -32600, "mcpchaos proxy: no such session")), nil
	default:
		return answer(req, http.StatusMethodNotAllowed, "application/json", rpcError(nil, -32600, "mcpchaos proxy: the HTTP+SSE upstream has no stream for GET")), nil
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read forwarded request: %w", err)
	}
	var m message
	if len(body) > MaxBody || json.Unmarshal(body, &m) != nil {
		return answer(req, http.StatusBadRequest, "application/json", rpcError(nil, -32600, "an HTTP+SSE upstream takes one JSON-RPC message per request")), nil
	}
	isRequest := m.Method != "" && len(m.ID) > 0
	var s *upSession
	own := false // a session for this one request
	switch {
	case isRequest && m.Method == vocab.MethodInitialize:
		if s, err = u.open(req.Context(), req.Header, false); err != nil {
			return u.failed(req, m.ID, err)
		}
		sid = rand.Text()
		if !u.add(sid, s) {
			s.close()
			return answer(req, http.StatusServiceUnavailable, "application/json",
				rpcError(m.ID, -32000, fmt.Sprintf("mcpchaos proxy: %d HTTP+SSE upstream sessions open already", maxUpSessions))), nil
		}
	case sid != "":
		if s = u.lookup(sid); s == nil {
			return answer(req, http.StatusNotFound, "application/json", rpcError(m.ID, -32600, fmt.Sprintf("mcpchaos proxy: unknown session %q", clip(sid)))), nil
		}
	case !isRequest:
		return answer(req, http.StatusAccepted, "", nil), nil // nothing to tell a session that is not there
	default:
		if s, err = u.open(req.Context(), req.Header, true); err != nil {
			return u.failed(req, m.ID, err)
		}
		own = true
	}
	if !isRequest {
		if m.Method == vocab.MethodCancelled {
			s.cancelledByClient(m.Params)
		}
		status, _, err := s.post(req.Context(), body)
		if own {
			s.close()
		}
		if err != nil {
			return nil, err
		}
		return answer(req, status, "", nil), nil
	}
	resp, err := s.request(req, body, &m)
	if own {
		if err != nil {
			s.close()
		} else {
			resp.Body = closeAfter{resp.Body, s.close}
		}
	}
	if err == nil && m.Method == vocab.MethodInitialize {
		resp.Header.Set(vocab.HeaderSessionID, sid)
	}
	return resp, err
}

// failed answers a request whose session could not be opened: 502 and a
// JSON-RPC error saying why.
func (u *sseUpstream) failed(req *http.Request, id json.RawMessage, err error) (*http.Response, error) {
	return answer(req, http.StatusBadGateway, "application/json", rpcError(id, -32603, "mcpchaos proxy: "+err.Error())), nil
}

func (u *sseUpstream) add(sid string, s *upSession) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.sessions) >= maxUpSessions {
		return false
	}
	u.sessions[sid] = s
	s.sid = sid
	return true
}

// lookup finds a session; nil when there is none, or its stream ended
// (then it is forgotten: the client's next request gets 404, as from a
// 2025 server whose session expired).
func (u *sseUpstream) lookup(sid string) *upSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.sessions[sid]
	if s == nil {
		return nil
	}
	select {
	case <-s.ended:
		delete(u.sessions, sid)
		return nil
	default:
		return s
	}
}

// take removes a session and returns it.
func (u *sseUpstream) take(sid string) *upSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.sessions[sid]
	delete(u.sessions, sid)
	return s
}

// stop closes every session.
func (u *sseUpstream) stop() {
	u.mu.Lock()
	all := u.sessions
	u.sessions = map[string]*upSession{}
	u.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// open GETs the server's URL and reads its endpoint event; with
// handshake, it also initializes the session itself (2024-11-05). The
// session's requests carry the headers of the request that opened it
// (the client's and the proxy file's), less those of Streamable HTTP.
func (u *sseUpstream) open(ctx context.Context, header http.Header, handshake bool) (*upSession, error) {
	sctx, cancel := context.WithCancel(context.Background())
	s := &upSession{u: u, header: sessionHeader(header), cancel: cancel, calls: map[string]*upCall{},
		tokens: map[string]*upCall{}, ended: make(chan struct{})}
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, u.url.String(), nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("HTTP+SSE upstream: GET %s: %w", u.url, err)
	}
	req.Header = s.header.Clone()
	req.Header.Set("Accept", "text/event-stream")
	opened := make(chan error, 1)
	go s.read(req, opened)
	t := time.NewTimer(upOpenTimeout)
	defer t.Stop()
	select {
	case err = <-opened:
	case <-t.C:
		err = fmt.Errorf("HTTP+SSE upstream: GET %s: no endpoint event within %v", u.url, upOpenTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil && handshake {
		err = s.initialize(ctx)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// sessionHeader is what of a forwarded request's headers goes with an
// HTTP+SSE session's requests: not the hop-by-hop ones, not those of
// Streamable HTTP (Mcp-*) nor those that describe one message.
func sessionHeader(h http.Header) http.Header {
	out := http.Header{}
	for k, vs := range h {
		if hopHeaders[k] || strings.HasPrefix(k, vocab.HeaderPrefix) || contains(messageHeaders, k) {
			continue
		}
		out[k] = vs
	}
	return out
}

var messageHeaders = []string{"Accept", "Accept-Encoding", "Content-Type", "Last-Event-Id"}

// closeAfter is a response body that runs done once it is closed.
type closeAfter struct {
	io.ReadCloser
	done func()
}

func (c closeAfter) Close() error {
	err := c.ReadCloser.Close()
	c.done()
	return err
}

// errSessionEnded ends the requests of an upstream session whose stream
// ended.
var errSessionEnded = errors.New("the HTTP+SSE upstream's event stream ended")

// post POSTs one message to the session's endpoint and returns the
// server's status (202 from a 2024-11-05 server) and headers; the body
// is dropped.
func (s *upSession) post(ctx context.Context, msg []byte) (int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint.String(), bytes.NewReader(msg))
	if err != nil {
		return 0, nil, fmt.Errorf("HTTP+SSE upstream: POST %s: %w", s.endpoint, err)
	}
	req.Header = s.header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.u.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("HTTP+SSE upstream: POST %s: %w", s.endpoint, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxUpPostAnswer))
	return resp.StatusCode, resp.Header, nil
}
