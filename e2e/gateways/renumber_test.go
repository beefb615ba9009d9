package gateways

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// renumber is a bridge that gives every request an id of its own upstream
// (the client's id plus shift, as a bridge that multiplexes clients over
// one upstream session does) and maps the answers back, but forwards
// notifications/cancelled verbatim: the requestId it carries names, upstream,
// another call, which the target stops, while the call the client meant
// runs on. It keeps what it did, to say what a correct report is.
type renumber struct {
	upstream string
	shift    int64

	mu        sync.Mutex
	live      map[int64]int64 // upstream id → client id, until its answer passes
	cancelled map[int64]bool  // client ids the client cancelled
	hit       map[int64]bool  // client ids whose upstream call a forwarded cancel reached
	completed map[int64]bool  // client ids answered with a successful result
}

func newRenumber(upstream string, shift int64) *renumber {
	return &renumber{upstream: upstream, shift: shift, live: map[int64]int64{}, cancelled: map[int64]bool{},
		hit: map[int64]bool{}, completed: map[int64]bool{}}
}

func (g *renumber) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if m, ok := parseMessage(body); ok {
		body = g.request(m)
	}
	resp, err := forward(context.WithoutCancel(r.Context()), g.upstream, r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	copyHeader(w, resp)
	w.WriteHeader(resp.StatusCode)
	out := &writer{w: w}
	if !isSSE(resp) {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		if m, ok := parseMessage(b); ok && m.isResponse() {
			b = g.response(m)
		}
		out.write(b)
		return
	}
	readEvents(resp.Body, func(ev event) {
		if m, ok := parseMessage(ev.data); ok && m.isResponse() {
			ev.data = g.response(m)
		}
		out.write(ev.encode())
	})
}

// request renumbers a request and notes a cancel, which it passes on as is.
func (g *renumber) request(m message) []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.method() == "notifications/cancelled" {
		var p struct {
			RequestID int64 `json:"requestId"`
		}
		if json.Unmarshal(m["params"], &p) == nil {
			g.cancelled[p.RequestID] = true
			if c, ok := g.live[p.RequestID]; ok {
				g.hit[c] = true
			}
		}
		return m.encode()
	}
	id, err := strconv.ParseInt(string(m["id"]), 10, 64)
	if err != nil || m.method() == "" {
		return m.encode()
	}
	up := id + g.shift
	g.live[up] = id
	m["id"] = json.RawMessage(strconv.FormatInt(up, 10))
	return m.encode()
}

// response maps an answer's id back and notes a successful result.
func (g *renumber) response(m message) []byte {
	up, err := strconv.ParseInt(string(m["id"]), 10, 64)
	if err != nil {
		return m.encode()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	id, ok := g.live[up]
	if !ok {
		return m.encode()
	}
	delete(g.live, up)
	m["id"] = json.RawMessage(strconv.FormatInt(id, 10))
	var res struct {
		IsError bool `json:"isError"`
	}
	if raw, ok := m["result"]; ok && json.Unmarshal(raw, &res) == nil && !res.IsError {
		g.completed[id] = true
	}
	return m.encode()
}

// want returns the counts a correct report gives: calls stopped by a cancel
// the client did not send them, and calls the client cancelled that no
// cancel reached and that ran to their end.
func (g *renumber) want() (misdirected, lost int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.hit {
		if !g.cancelled[c] {
			misdirected++
		}
	}
	for c := range g.cancelled {
		if !g.hit[c] && g.completed[c] {
			lost++
		}
	}
	return misdirected, lost
}

// TestRenumberingBridgeMisdirectsCancels: over a 2025 session, a bridge
// that renumbers ids and forwards cancels verbatim stops the wrong calls
// (gateway.misdirected_cancels) and leaves the cancelled ones running to
// their end (gateway.lost_cancels), each as often as the bridge did it,
// and nothing else is reported.
func TestRenumberingBridgeMisdirectsCancels(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	gw := newRenumber(base(tg), 1)
	o := run(t, scenario(serve(t, gw), "2025-11-25", []string{base(tg)}, `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 4, step_ms: 200}, progress: false}
faults:
  - {kind: cancel, probability: 0.3, after: 150ms}
`))
	misdirected, lost := gw.want()
	if misdirected == 0 || lost == 0 {
		t.Fatalf("the bridge misdirected %d cancels and lost %d: the test needs both", misdirected, lost)
	}
	wantOnly(t, o, map[string]int{"misdirected_cancels": misdirected, "lost_cancels": lost})
}
