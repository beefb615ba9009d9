package gateways

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// swapping reads each tools/call answer whole and, when another call's
// answer is waiting, delivers each to the other connection with the ids
// rewritten to fit, as a gateway that mixes up its upstream connections
// does. An answer waits for a partner up to pairWait, then goes to its own
// call. crossed counts the answers delivered to the wrong call.
type swapping struct {
	upstream string
	pairWait time.Duration
	crossed  atomic.Int64

	mu      sync.Mutex
	waiting *answer
}

// answer is a call's answer waiting for a partner.
type answer struct {
	id    json.RawMessage // the id of the request it answers
	ctype string
	body  []byte
	swap  chan *answer // receives the partner's answer
}

func (g *swapping) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, call := isToolsCall(body)
	resp, err := forward(r.Context(), g.upstream, r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	copyHeader(w, resp)
	if !call || resp.StatusCode != http.StatusOK {
		w.WriteHeader(resp.StatusCode)
		io.Copy(flushWriter{&writer{w: w}}, resp.Body)
		return
	}
	all, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	mine := &answer{id: req["id"], ctype: resp.Header.Get("Content-Type"), body: all, swap: make(chan *answer, 1)}
	got := g.pair(mine)
	if got != mine {
		g.crossed.Add(1)
	}
	w.Header().Set("Content-Type", got.ctype)
	w.WriteHeader(http.StatusOK)
	w.Write(withID(got, mine.id))
}

// pair returns the answer to deliver for mine: a waiting partner's, or
// mine after pairWait without one.
func (g *swapping) pair(mine *answer) *answer {
	g.mu.Lock()
	if p := g.waiting; p != nil {
		g.waiting = nil
		g.mu.Unlock()
		p.swap <- mine
		return p
	}
	g.waiting = mine
	g.mu.Unlock()
	t := time.NewTimer(g.pairWait)
	defer t.Stop()
	select {
	case p := <-mine.swap:
		return p
	case <-t.C:
	}
	g.mu.Lock()
	if g.waiting == mine {
		g.waiting = nil
		g.mu.Unlock()
		return mine
	}
	g.mu.Unlock()
	return <-mine.swap // a partner took it just now
}

// withID returns a's body with its response's id set to id.
func withID(a *answer, id json.RawMessage) []byte {
	set := func(b []byte) []byte {
		m, ok := parseMessage(b)
		if !ok || !m.isResponse() {
			return b
		}
		m["id"] = id
		return m.encode()
	}
	if !strings.HasPrefix(a.ctype, "text/event-stream") {
		return set(a.body)
	}
	var out []byte
	readEvents(bytesReader(a.body), func(ev event) {
		ev.data = set(ev.data)
		out = append(out, ev.encode()...)
	})
	return out
}

// TestSwappingGatewayCrossesAnswers: every answer a gateway delivered to
// another call is counted in gateway.crossed_responses, by the marker the
// target echoes in it, and nothing else is reported.
func TestSwappingGatewayCrossesAnswers(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	gw := &swapping{upstream: base(tg), pairWait: 150 * time.Millisecond}
	o := run(t, scenario(serve(t, gw), "2026-07-28", []string{base(tg)}, `
load: {rate: 20/1s, duration: 2s}
calls:
  - {tool: echo, arguments: {text: hi}}
`))
	n := int(gw.crossed.Load())
	if n == 0 {
		t.Fatal("the gateway swapped nothing: the test proves nothing")
	}
	wantOnly(t, o, map[string]int{"crossed_responses": n})
}
