package gateways

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// retrying balances over two targets: every request goes to the first, and
// a tools/call whose answer sends nothing for readTimeout is dropped there
// and sent again to the second, as a proxy retrying a "non-idempotent"
// request on a read timeout does (nginx's proxy_next_upstream timeout
// non_idempotent). The call runs twice, if the first target had begun it
// (on a busy machine the timeout can come first). retried counts the
// re-sends; ids are the re-sent calls' JSON-RPC ids, as JSON.
type retrying struct {
	first, second string
	readTimeout   time.Duration
	retried       atomic.Int64
	mu            sync.Mutex
	ids           []string
}

func (g *retrying) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m, call := isToolsCall(body)
	if !call {
		g.pass(w, r, body, g.first, nil, nil)
		return
	}
	// Send to the first target and wait for the first byte of its answer.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	type first struct {
		resp *http.Response
		b    []byte
		err  error
	}
	got := make(chan first, 1)
	go func() {
		resp, err := forward(ctx, g.first, r, body)
		if err != nil {
			got <- first{err: err}
			return
		}
		b := make([]byte, 1)
		n, err := io.ReadFull(resp.Body, b)
		got <- first{resp: resp, b: b[:n], err: err}
	}()
	t := time.NewTimer(g.readTimeout)
	defer t.Stop()
	select {
	case f := <-got:
		defer cancel()
		if f.err != nil && f.resp == nil {
			http.Error(w, f.err.Error(), http.StatusBadGateway)
			return
		}
		g.pass(w, r, body, "", f.resp, f.b)
	case <-t.C:
		cancel() // closes the connection to the first target
		g.retried.Add(1)
		g.mu.Lock()
		g.ids = append(g.ids, string(m["id"]))
		g.mu.Unlock()
		g.pass(w, r, body, g.second, nil, nil)
	}
}

// pass streams an answer to the client: resp (with its first bytes
// already read) or, when resp is nil, a new request to upstream.
func (g *retrying) pass(w http.ResponseWriter, r *http.Request, body []byte, upstream string, resp *http.Response, head []byte) {
	if resp == nil {
		var err error
		if resp, err = forward(r.Context(), upstream, r, body); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	defer resp.Body.Close()
	copyHeader(w, resp)
	w.WriteHeader(resp.StatusCode)
	out := flushWriter{&writer{w: w}}
	out.Write(head)
	io.Copy(out, resp.Body)
}

// TestRetryingProxyDuplicates: every quiet call the proxy re-sent to the
// second target is counted once in gateway.duplicate_executions, with the
// truth of both targets joined, and nothing else is reported (the first
// target's copy was stopped by the proxy, not by a cancel of ours).
func TestRetryingProxyDuplicates(t *testing.T) {
	t.Parallel()
	a, b := target(t, targetserver.Config{}), target(t, targetserver.Config{})
	gw := &retrying{first: base(a), second: base(b), readTimeout: 250 * time.Millisecond}
	o := run(t, scenario(serve(t, gw), "2026-07-28", []string{base(a), base(b)}, `
load: {rate: 8/1s, duration: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 1, step_ms: 600}, progress: false}
  - {tool: echo, weight: 2, arguments: {text: hi}}
`))
	if gw.retried.Load() == 0 {
		t.Fatal("the proxy re-sent nothing: the test proves nothing")
	}
	// A call re-sent before the first target began it (its read timeout
	// came first on a busy machine) ran once: the duplicates are the
	// re-sent calls the first target's own records hold.
	began := map[string]bool{}
	for _, c := range targetCalls(t, base(a)) {
		began[c.RequestID] = true
	}
	n := 0
	for _, id := range gw.ids {
		if began[id] {
			n++
		}
	}
	t.Logf("%d calls re-sent, %d of them begun on the first target", gw.retried.Load(), n)
	if n == 0 {
		t.Fatal("no re-sent call had begun on the first target: the test proves nothing")
	}
	wantOnly(t, o, map[string]int{"duplicate_executions": n})
	if g := o.Sum.Gateway; g.Executions != g.Calls+n {
		t.Errorf("gateway.executions = %d, want the %d calls plus the %d re-sent", g.Executions, g.Calls, n)
	}
}

// targetCalls reads a built-in target's own records (GET /calls).
func targetCalls(t *testing.T, base string) []results.TruthCall {
	t.Helper()
	resp, err := http.Get(base + "/calls") // the first page: 1000 records, more than a run here makes
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p results.TruthPage
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&p); err != nil {
		t.Fatalf("GET %s/calls: %v", base, err)
	}
	return p.Calls
}
