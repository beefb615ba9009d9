package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// A fake Streamable HTTP server, built like net/http/httptest: the test
// writes the raw bytes of each answer, including the wrong ones.

// fakeReq is one request the fake server received.
type fakeReq struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string                     `json:"name"`
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
	HTTPMethod string        `json:"-"`
	Header     http.Header   `json:"-"`
	Remote     string        `json:"-"`
	Body       []byte        `json:"-"`
	Req        *http.Request `json:"-"`
}

// token returns the progress token the request carried, unquoted.
func (r fakeReq) token() string {
	var s string
	_ = json.Unmarshal(r.Params.Meta["progressToken"], &s)
	return s
}

// fake is a scripted server; discover is answered as a modern server unless
// the script handles it.
type fake struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []fakeReq
}

func (f *fake) requests() []fakeReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeReq(nil), f.reqs...)
}

// startFake serves script; a script that returns false leaves the request
// to the default (modern discover, 405 for anything else).
func startFake(t testing.TB, script func(w http.ResponseWriter, req fakeReq) bool) *fake {
	t.Helper()
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req fakeReq
		_ = json.Unmarshal(body, &req)
		req.HTTPMethod, req.Header, req.Remote, req.Body, req.Req = r.Method, r.Header.Clone(), r.RemoteAddr, body, r
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		if script != nil && script(w, req) {
			return
		}
		if req.Method == vocab.MethodDiscover {
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"0"}}}}`)
			return
		}
		http.Error(w, "not scripted", http.StatusMethodNotAllowed)
	}))
	t.Cleanup(f.Close)
	return f
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// writeSSE answers with an event stream holding msgs, each as the SDK
// writes them ("event: message", "data: ...", blank line).
func writeSSE(w http.ResponseWriter, msgs ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	for _, m := range msgs {
		io.WriteString(w, sseEvent(m))
		w.(http.Flusher).Flush()
	}
}

func sseEvent(data string) string { return "event: message\ndata: " + data + "\n\n" }

func progressJSON(tok string, p float64) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%q,"progress":%v,"total":10}}`, tok, p)
}

func resultJSON(id json.RawMessage, text string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"` + text + `"}],"resultType":"complete"}}`
}

func errorJSON(id json.RawMessage, code int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":{"k":1}}}`, id, code, msg)
}

// dialFake dials the fake server as a 2026 client.
func dialFake(t testing.TB, f *fake, cfg Config) *Client {
	t.Helper()
	cfg.HTTP = &HTTPConfig{URL: f.URL + "/mcp"}
	if cfg.LateWindow == 0 {
		cfg.LateWindow = lateWindow
	}
	c, err := Dial(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("dial fake: %v", err)
	}
	closeClient(t, c)
	return c
}

// runCall starts a tools/call, waits for it and returns its events.
func runCall(t testing.TB, c *Client, tool string, progress bool) (*Call, []Event) {
	t.Helper()
	rec := newRecorder()
	call, err := c.Start(ctxT(t), CallRequest{Tool: tool, Progress: progress, Observer: rec})
	if err != nil {
		t.Fatalf("start %s: %v", tool, err)
	}
	waitCall(t, call)
	return call, rec.waitEnd(t)
}

func hasViolation(evs []Event, v Violation) bool {
	for _, ev := range evs {
		if ev.Kind == EvViolation && ev.Violation == v {
			return true
		}
	}
	return false
}

// startLegacyFake serves script behind a 2025-11-25 front: server/discover
// gets a plain-text 400, initialize a session and DELETE 200; notifications
// the script leaves get 202.
func startLegacyFake(t testing.TB, script func(w http.ResponseWriter, req fakeReq) bool) *fake {
	return startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		switch {
		case req.HTTPMethod == http.MethodDelete:
			w.WriteHeader(200)
		case req.Method == vocab.MethodDiscover:
			http.Error(w, "Bad Request: Mcp-Session-Id header is required", 400)
		case req.Method == vocab.MethodInitialize:
			w.Header().Set("Mcp-Session-Id", "sess-1")
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"legacy-fake","version":"0"}}}`)
		case script(w, req):
		case strings.HasPrefix(req.Method, "notifications/"):
			w.WriteHeader(http.StatusAccepted)
		default:
			return false
		}
		return true
	})
}
