package targetserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The log_calls knob: one line per finished tool call, naming its JSON-RPC
// request id, the way many real servers log each request's end:
//
//	call 17 done
//	call 18 cancelled
//
// The SDK does not tell a tool handler its request's id, so with the knob
// on, each tools/call is tagged before the SDK reads it (tagCallID): its
// id is copied into params._meta under requestIDMeta, where the handler
// finds it. Nothing else about the request changes.
//
// A tools/call served as a task (tasks.go) logs its line when the task's
// work ends, under the tools/call's id: done when the task completed,
// cancelled when its work stopped short (tasks/cancel, its ttl, the
// server closing). A task that ignores tasks/cancel logs done when its
// work ends, however long after the cancel that is.

// requestIDMeta is the _meta key that carries a call's request id to its
// handler.
const requestIDMeta = "dev.mcpchaos/request-id"

// callLog writes the log_calls lines; nil when the knob is off.
type callLog struct {
	mu sync.Mutex
	w  io.Writer
	f  *os.File // nil for stderr
}

// openCallLog opens the log_calls target: a file, appended to, or "-" for
// stderr; nil for "".
func openCallLog(name string) (*callLog, error) {
	switch name {
	case "":
		return nil, nil
	case "-":
		return &callLog{w: os.Stderr}, nil
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open call log: %w", err)
	}
	return &callLog{w: f, f: f}, nil
}

// ended logs that the call req ended: done (ran to its end) or cancelled.
func (l *callLog) ended(req *mcp.CallToolRequest, done bool) {
	if l == nil {
		return
	}
	var meta mcp.Meta
	if req != nil && req.Params != nil {
		meta = req.Params.Meta
	}
	l.endedID(logID(meta), done)
}

// logID is the request id a call's line names (metaRequestID), or
// "unknown".
func logID(meta map[string]any) string {
	if id := metaRequestID(meta); id != "" {
		return id
	}
	return "unknown"
}

// metaRequestID is the request id tagCallID put in a call's _meta, as
// JSON (17 or "abc"); "" without one.
func metaRequestID(meta map[string]any) string {
	if v, ok := meta[requestIDMeta]; ok {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return ""
}

// endedID logs that the call with request id id (logID) ended: done or
// cancelled. A task's work (taskwork.go) ends here too, under the id of
// the tools/call that made the task.
func (l *callLog) endedID(id string, done bool) {
	if l == nil {
		return
	}
	word := "cancelled"
	if done {
		word = "done"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "call %s %s\n", id, word)
}

func (l *callLog) close() error {
	if l == nil || l.f == nil {
		return nil
	}
	return l.f.Close()
}

// tagCallID returns msg with a tools/call's id copied into its
// params._meta; any other message, or one it cannot read, unchanged.
func tagCallID(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"`+vocab.MethodToolsCall+`"`)) {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil || method != vocab.MethodToolsCall || len(m["id"]) == 0 {
		return msg
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil || params == nil {
		return msg
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return msg
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[requestIDMeta] = m["id"]
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return msg
	}
	if m["params"], err = json.Marshal(params); err != nil {
		return msg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// tagger returns how the server tags incoming messages: every tools/call
// with log_calls or progress_after_response on (answered.go keys a call by
// its id); otherwise only those that carry a marker, whose truth record
// needs the request id (truth.go).
func (s *Server) tagger() func([]byte) []byte {
	if s.calls != nil || s.cfg.ProgressAfterResponse {
		return tagCallID
	}
	return func(msg []byte) []byte {
		if !bytes.Contains(msg, []byte(results.MarkerMeta)) {
			return msg
		}
		return tagCallID(msg)
	}
}

// tagHTTP tags the tools/call in a POST body of at most maxPeek bytes
// (see tagger); larger bodies pass unchanged.
func (s *Server) tagHTTP(next http.Handler) http.Handler {
	tag := s.tagger()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
		if err != nil || len(head) > maxPeek {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
			next.ServeHTTP(w, r)
			return
		}
		body := tag(head)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		next.ServeHTTP(w, r)
	})
}
