package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// stdioUpstream is an upstream server that the proxy starts and speaks to
// over stdin and stdout, behind the same forwarding code as an HTTP one:
// it is the proxy's http.RoundTripper. A forwarded request becomes one
// line on stdin with an id of the proxy's own (the clients' ids may
// collide) and, when it has one, a progress token of the proxy's own; its
// progress and final response come back, with the client's id and token
// restored, as an SSE stream. A notification becomes a line and a 202.
// When the client goes away, the proxy writes notifications/cancelled for
// the request: the stdio cancel.
type stdioUpstream struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	wmu    sync.Mutex // one line at a time

	mu       sync.Mutex
	next     int64
	calls    map[int64]*stdioCall
	tokens   map[string]*stdioCall // by the proxy's token
	byClient map[string]int64      // the client's session and id (callKey) → the proxy's
	exited   chan struct{}

	sessions stdioSessions // the 2025 clients' sessions (stdiosession.go)
}

// stdioCall is one request in flight on the stdio upstream.
type stdioCall struct {
	clientID    json.RawMessage
	session     string          // the client's Mcp-Session-Id (2025); "" for 2026
	ended       <-chan struct{} // closed when its session ends; nil without one
	clientToken json.RawMessage
	upToken     string
	events      chan []byte   // messages for the client; closed after the final response
	gone        chan struct{} // closed when the client stopped reading
	// err, set before events is closed, ends the client's stream instead
	// of a final response (errAnswerTooLarge).
	err error
}

func newStdioUpstream(spec *scenarios.StdioTarget) *stdioUpstream {
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = os.Environ()
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = os.Stderr
	return &stdioUpstream{cmd: cmd, calls: map[int64]*stdioCall{}, tokens: map[string]*stdioCall{},
		byClient: map[string]int64{}, exited: make(chan struct{}), sessions: newStdioSessions()}
}

// start starts the server and the reader of its stdout.
func (u *stdioUpstream) start() error {
	var err error
	if u.stdin, err = u.cmd.StdinPipe(); err != nil {
		return fmt.Errorf("start stdio upstream %q: %w", u.cmd.Path, err)
	}
	if u.stdout, err = u.cmd.StdoutPipe(); err != nil {
		return fmt.Errorf("start stdio upstream %q: %w", u.cmd.Path, err)
	}
	if err := u.cmd.Start(); err != nil {
		return fmt.Errorf("start stdio upstream %q: %w", u.cmd.Args[0], err)
	}
	go u.read()
	return nil
}

// stop closes the server's stdin (a stdio server exits on EOF), and kills
// it when it has not exited within two seconds.
func (u *stdioUpstream) stop() {
	if u.cmd.Process == nil {
		return
	}
	u.stdin.Close()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-u.exited:
	case <-t.C:
		_ = u.cmd.Process.Kill()
	}
	_ = u.cmd.Wait()
}

func (u *stdioUpstream) write(line []byte) error {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	if _, err := u.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write to stdio upstream: %w", err)
	}
	return nil
}

// RoundTrip sends one forwarded request to the server.
func (u *stdioUpstream) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	if req.Method != http.MethodPost {
		return u.sessionStream(req), nil // GET or DELETE of a 2025 session
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read forwarded request: %w", err)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return answer(req, http.StatusBadRequest, "application/json", rpcError(nil, -32600, "a stdio upstream takes one JSON-RPC message per request")), nil
	}
	if resp := u.sessionMessage(req, m); resp != nil {
		return resp, nil // initialize and initialized of a 2025 client, or an ended session
	}
	id, isRequest := m["id"]
	if !isRequest {
		if string(m["method"]) == `"`+vocab.MethodCancelled+`"` && !u.rewriteCancel(req, m) {
			return answer(req, http.StatusAccepted, "", nil), nil // not open: nothing to cancel
		}
		line, _ := json.Marshal(m)
		if err := u.write(line); err != nil {
			return nil, err
		}
		return answer(req, http.StatusAccepted, "", nil), nil
	}
	c := &stdioCall{clientID: id, session: req.Header.Get(vocab.HeaderSessionID), events: make(chan []byte, 64), gone: make(chan struct{})}
	if s, ok := u.session(req); ok {
		c.ended = s.ended
	}
	u.mu.Lock()
	u.next++
	upID := u.next
	u.calls[upID] = c
	u.byClient[callKey(c.session, id)] = upID
	m["id"] = json.RawMessage(strconv.FormatInt(upID, 10))
	if tok, ok := progressToken(m); ok {
		c.clientToken, c.upToken = tok, "px-"+strconv.FormatInt(upID, 10)
		u.tokens[c.upToken] = c
		setProgressToken(m, c.upToken)
	}
	u.mu.Unlock()
	line, _ := json.Marshal(m)
	if err := u.write(line); err != nil {
		u.forget(upID)
		return nil, err
	}
	pr, pw := io.Pipe()
	go u.stream(req.Context(), upID, c, pw)
	resp := answer(req, http.StatusOK, "text/event-stream", nil)
	resp.Body = pr
	return resp, nil
}

// stream writes c's messages to pw as SSE events until the final
// response; when ctx ends first, it cancels the request on stdin.
func (u *stdioUpstream) stream(ctx context.Context, upID int64, c *stdioCall, pw *io.PipeWriter) {
	defer close(c.gone)
	for {
		select {
		case b, ok := <-c.events:
			if !ok {
				pw.CloseWithError(c.err) // nil: the stream's end
				return
			}
			if _, err := fmt.Fprintf(pw, "event: message\ndata: %s\n\n", b); err != nil {
				u.cancel(upID, "the client stopped reading")
				return
			}
		case <-ctx.Done():
			u.cancel(upID, "the client closed its stream")
			pw.CloseWithError(ctx.Err())
			return
		case <-u.exited:
			pw.CloseWithError(errors.New("the stdio upstream exited"))
			return
		case <-c.ended:
			u.cancel(upID, "the client ended its session") // unless endSession did
			pw.CloseWithError(errors.New("the client's session ended"))
			return
		}
	}
}

// cancel forgets a request and writes notifications/cancelled for it.
func (u *stdioUpstream) cancel(upID int64, reason string) {
	if !u.forget(upID) {
		return // answered already
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": upID, "reason": "mcpchaos proxy: " + reason}})
	_ = u.write(b) // the server may be gone; nothing to do then
}

// forget removes a request; false when it was not there.
func (u *stdioUpstream) forget(upID int64) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.calls[upID]
	if c == nil {
		return false
	}
	delete(u.calls, upID)
	delete(u.tokens, c.upToken)
	if k := callKey(c.session, c.clientID); u.byClient[k] == upID {
		delete(u.byClient, k)
	}
	return true
}

// callKey is a client's request id within its session.
func callKey(session string, id json.RawMessage) string { return session + "\x00" + compactJSON(id) }

// rewriteCancel turns a client's notifications/cancelled for its own id
// into one for the proxy's id, and forgets the request; false when that request is not open (the
// proxy cancelled it already when the client closed its stream, or it
// was answered): the client's id means nothing to the server.
func (u *stdioUpstream) rewriteCancel(req *http.Request, m map[string]json.RawMessage) bool {
	var p map[string]json.RawMessage
	if json.Unmarshal(m["params"], &p) != nil {
		return false
	}
	u.mu.Lock()
	upID, ok := u.byClient[callKey(req.Header.Get(vocab.HeaderSessionID), p["requestId"])]
	u.mu.Unlock()
	if ok = ok && u.forget(upID); ok { // forgotten: the proxy's own cancel at the stream's close is not sent too
		p["requestId"] = json.RawMessage(strconv.FormatInt(upID, 10))
		m["params"], _ = json.Marshal(p)
	}
	return ok
}

// read routes the server's messages to their calls until stdout ends.
func (u *stdioUpstream) read() {
	defer close(u.exited)
	lr := client.NewLineReader(u.stdout, MaxBody)
	for {
		line, err := lr.Next()
		if client.IsOversize(err) {
			u.oversize(line)
			continue
		}
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &m) != nil {
			continue
		}
		u.route(m)
	}
}

// oversize ends the call whose answer is a line over MaxBody, when the
// line's id comes early enough to be read (head is its first 4 KiB): the
// call's stream ends with errAnswerTooLarge, on which the proxy answers
// the client with a JSON-RPC error and records the upstream's failure.
// A line whose id comes later (JSON members have no order) is the answer
// of the one call in flight, when only one is and the line is no
// request or notification (no "method" in its head); with several in
// flight it cannot be told, and is dropped: its call waits for the
// client's timeout or cancel.
func (u *stdioUpstream) oversize(head []byte) {
	upID, ok := client.OversizeID(head)
	u.mu.Lock()
	if !ok {
		upID, ok = u.onlyCall(head)
	}
	c := u.calls[upID]
	u.mu.Unlock()
	if !ok {
		return
	}
	if c == nil || !u.forget(upID) {
		return // late: cancelled or unknown
	}
	c.err = errAnswerTooLarge
	close(c.events)
}

// onlyCall returns the id of the one call in flight, when only one is and
// head (an oversize line's start) is no request or notification (u.mu
// held).
func (u *stdioUpstream) onlyCall(head []byte) (int64, bool) {
	if len(u.calls) != 1 || bytes.Contains(head, []byte(`"method"`)) {
		return 0, false
	}
	for id := range u.calls {
		return id, true
	}
	return 0, false
}

func (u *stdioUpstream) route(m map[string]json.RawMessage) {
	_, hasMethod := m["method"]
	if id, ok := m["id"]; ok && !hasMethod {
		upID, err := strconv.ParseInt(string(id), 10, 64)
		u.mu.Lock()
		c := u.calls[upID]
		u.mu.Unlock()
		if err != nil || c == nil || !u.forget(upID) {
			return // late: cancelled or unknown
		}
		m["id"] = c.clientID
		u.deliver(c, m)
		close(c.events)
		return
	}
	if id, ok := m["id"]; ok {
		// A request from the server: no client can answer it here.
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32601, "message": "mcpchaos proxy: no client to answer server requests"}})
		_ = u.write(b)
		return
	}
	if string(m["method"]) != `"`+vocab.MethodProgress+`"` {
		u.sessions.broadcast(m) // not a call's: each 2025 session's GET stream
		return
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(m["params"], &p) != nil {
		return
	}
	var tok string
	_ = json.Unmarshal(p["progressToken"], &tok)
	u.mu.Lock()
	c := u.tokens[tok]
	u.mu.Unlock()
	if c == nil {
		return
	}
	p["progressToken"] = c.clientToken
	m["params"], _ = json.Marshal(p)
	u.deliver(c, m)
}

// deliver hands a message to its call, unless the client went away.
func (u *stdioUpstream) deliver(c *stdioCall, m map[string]json.RawMessage) {
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	select {
	case c.events <- b:
	case <-c.gone:
	}
}

func progressToken(m map[string]json.RawMessage) (json.RawMessage, bool) {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(m["params"], &p) != nil || len(p.Meta.Token) == 0 {
		return nil, false
	}
	return p.Meta.Token, true
}

func setProgressToken(m map[string]json.RawMessage, tok string) {
	var p, meta map[string]json.RawMessage
	if json.Unmarshal(m["params"], &p) != nil || json.Unmarshal(p["_meta"], &meta) != nil {
		return
	}
	meta["progressToken"], _ = json.Marshal(tok)
	p["_meta"], _ = json.Marshal(meta)
	m["params"], _ = json.Marshal(p)
}

// answer builds a response the stdio upstream gives itself.
func answer(req *http.Request, status int, contentType string, body []byte) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: h, Request: req,
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}
