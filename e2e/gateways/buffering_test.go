package gateways

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// buffering holds every answer until its body has ended, as a proxy with
// response buffering on does (nginx's default): progress sent over a call's
// life reaches the client with the result. held counts the answers to a
// tools/call that held progress.
type buffering struct {
	upstream string
	held     atomic.Int64
}

func (b *buffering) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := forward(r.Context(), b.upstream, r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	all, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if _, call := isToolsCall(body); call && bytes.Contains(all, []byte(`"notifications/progress"`)) {
		b.held.Add(1)
	}
	copyHeader(w, resp)
	w.WriteHeader(resp.StatusCode)
	w.Write(all)
}

// TestBufferingProxyHoldsProgress: every call whose progress the proxy
// held is counted in gateway.progress_held, and nothing else is reported.
func TestBufferingProxyHoldsProgress(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	gw := &buffering{upstream: base(tg)}
	o := run(t, scenario(serve(t, gw), "2026-07-28", []string{base(tg)}, `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, weight: 2, arguments: {steps: 5, step_ms: 40}, progress: true}
  - {tool: echo, arguments: {text: hi}}
`))
	held := int(gw.held.Load())
	if held == 0 {
		t.Fatal("the proxy held no progress: the test proves nothing")
	}
	wantOnly(t, o, map[string]int{"progress_held": held})
}

// dropLast streams every answer event by event, but holds each progress
// notification of a tools/call until the next event: when that is the
// result, the held notification is dropped, as a gateway that loses the
// race between its progress relay and the result does. dropped counts them.
type dropLast struct {
	upstream string
	dropped  atomic.Int64
}

func (d *dropLast) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var held []byte
	relayCallEvents(w, r, d.upstream, func(out *writer, ev event) {
		m, ok := parseMessage(ev.data)
		switch {
		case ok && m.method() == "notifications/progress":
			if held != nil {
				out.write(held)
			}
			held = ev.encode()
		case ok && m.isResponse() && held != nil:
			d.dropped.Add(1)
			held = nil
			out.write(ev.encode())
		default:
			out.write(ev.encode())
		}
	}, func(out *writer) {
		if held != nil {
			out.write(held)
		}
	})
}

// flushWriter is an io.Writer over a writer.
type flushWriter struct{ w *writer }

func (f flushWriter) Write(b []byte) (int, error) {
	f.w.write(b)
	return len(b), nil
}

// TestDropLastProgress: every notification the gateway dropped is counted
// in gateway.progress_lost, and nothing else is reported.
func TestDropLastProgress(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	gw := &dropLast{upstream: base(tg)}
	o := run(t, scenario(serve(t, gw), "2026-07-28", []string{base(tg)}, `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, weight: 2, arguments: {steps: 5, step_ms: 40}, progress: true}
  - {tool: echo, arguments: {text: hi}}
`))
	dropped := int(gw.dropped.Load())
	if dropped == 0 {
		t.Fatal("the gateway dropped nothing: the test proves nothing")
	}
	wantOnly(t, o, map[string]int{"progress_lost": dropped})
}
