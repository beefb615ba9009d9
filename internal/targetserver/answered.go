package targetserver

// progress_after_response sends one more progress notification once a step
// tool's answer has gone out, not after a fixed sleep. The SDK writes the
// answer after the handler returns, so the handler cannot send it itself:
// it leaves the notification with an answerWatch, which the transport's
// side of the server tells when the answer was written.
//
//   - stdio: the SDK's writes to stdout pass through answerWriter; once the
//     answer's line is written, the notification follows it on the same
//     pipe, so every client reads it after the answer.
//   - HTTP: the POST that carried the call ends once its answer is written;
//     the notification goes on the session's GET stream httpAnswerMargin
//     later. The client reads the two streams on their own goroutines, so
//     without a margin it could take the notification before the answer
//     it read first.
//
// A call whose answer can no longer be written (its POST or its session
// over) sends the notification at once; a session that ends fires what it
// still holds, so the watch holds at most the calls in flight.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpAnswerMargin is how long after a POST's answer was written the
// notification follows on another stream (see above).
const httpAnswerMargin = 250 * time.Millisecond

// answerKey names one request: its connection and its id as JSON.
type answerKey struct {
	conn any // a *answerConn (stdio, a stateless POST) or a session id
	id   string
}

// answerConn stands for one stdio session or one stateless POST.
type answerConn struct{ _ byte }

// answerConnKey carries the *answerConn in a handler's context.
type answerConnKey struct{}

// answerWatch holds, per request whose answer is not written yet, what to
// run once it is.
type answerWatch struct {
	mu      sync.Mutex
	pending map[answerKey][]func()
}

// expect marks k's answer as not written yet.
func (w *answerWatch) expect(k answerKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		w.pending = map[answerKey][]func(){}
	}
	if _, ok := w.pending[k]; !ok {
		w.pending[k] = nil
	}
}

// after runs f once k's answer is written, or at once when it is not
// expected (written already, or nothing will write it).
func (w *answerWatch) after(k answerKey, f func()) {
	w.mu.Lock()
	fs, ok := w.pending[k]
	if ok {
		w.pending[k] = append(fs, f)
	}
	w.mu.Unlock()
	if !ok {
		go f()
	}
}

// written runs what waited for k's answer.
func (w *answerWatch) written(k answerKey) {
	w.mu.Lock()
	fs := w.pending[k]
	delete(w.pending, k)
	w.mu.Unlock()
	for _, f := range fs {
		go f()
	}
}

// forget runs what still waits on conn, which writes no more answers.
func (w *answerWatch) forget(conn any) {
	w.mu.Lock()
	var fs []func()
	for k, f := range w.pending {
		if k.conn == conn {
			fs = append(fs, f...)
			delete(w.pending, k)
		}
	}
	w.mu.Unlock()
	for _, f := range fs {
		go f()
	}
}

// normID returns a JSON id in one spelling (what a handler's _meta gives
// back after the SDK decoded it), or "" when raw is no JSON.
func normID(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// callID returns the id of msg when it is a tools/call request.
func callID(msg []byte) (string, bool) {
	if !bytes.Contains(msg, []byte(`"`+vocab.MethodToolsCall+`"`)) {
		return "", false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != vocab.MethodToolsCall {
		return "", false
	}
	id := normID(m.ID)
	return id, id != ""
}

// answerID returns the id of msg when it is a response (a result or an
// error).
func answerID(msg []byte) (string, bool) {
	if !bytes.Contains(msg, []byte(`"id"`)) {
		return "", false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(msg), &m) != nil || m.Method != "" || (m.Result == nil && m.Error == nil) {
		return "", false
	}
	id := normID(m.ID)
	return id, id != ""
}

// answerWriter tells the watch of every answer written to a stdio session.
type answerWriter struct {
	w     io.Writer
	watch *answerWatch
	conn  *answerConn
}

func (a answerWriter) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	if err == nil {
		if id, ok := answerID(p); ok {
			a.watch.written(answerKey{a.conn, id})
		}
	}
	return n, err
}

// watchStdioCalls returns tag, which also marks every tools/call of conn
// as expecting its answer.
func (s *Server) watchStdioCalls(conn *answerConn, tag func([]byte) []byte) func([]byte) []byte {
	return func(msg []byte) []byte {
		if id, ok := callID(msg); ok {
			s.answers.expect(answerKey{conn, id})
		}
		return tag(msg)
	}
}

// watchHTTPCalls marks a POSTed tools/call as expecting its answer until
// the POST ends, then httpAnswerMargin more.
func (s *Server) watchHTTPCalls(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		id, ok := callID(body)
		if err != nil || len(body) > maxPeek || !ok {
			next.ServeHTTP(w, r)
			return
		}
		var conn any = r.Header.Get(vocab.HeaderSessionID)
		if conn == "" {
			c := &answerConn{}
			conn = c
			r = r.WithContext(context.WithValue(r.Context(), answerConnKey{}, c))
		}
		k := answerKey{conn, id}
		s.answers.expect(k)
		next.ServeHTTP(w, r)
		time.AfterFunc(httpAnswerMargin, func() { s.answers.written(k) })
	})
}

// answerKeyOf names req's request for the watch; false when it cannot be
// named (the id was not tagged, or no connection is known).
func answerKeyOf(ctx context.Context, req *mcp.CallToolRequest) (answerKey, bool) {
	if req == nil || req.Params == nil {
		return answerKey{}, false
	}
	v, ok := req.Params.Meta[requestIDMeta]
	if !ok {
		return answerKey{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return answerKey{}, false
	}
	var conn any
	if req.Session != nil && req.Session.ID() != "" {
		conn = req.Session.ID()
	} else if c, ok := ctx.Value(answerConnKey{}).(*answerConn); ok {
		conn = c
	} else {
		return answerKey{}, false
	}
	return answerKey{conn, string(b)}, true
}
