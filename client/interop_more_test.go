package client

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// More interop tests against the SDK servers of interop_test.go: reading
// back-pressure, the legacy session, request headers, and id uniqueness.

func TestInteropPauseResume(t *testing.T) {
	t.Parallel()
	forEachTarget(t, func(t *testing.T, tg interopTarget) {
		l := tg.dial(t, Config{})
		rec := newRecorder()
		const steps = 30
		call, err := l.c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"steps":30,"step_ms":10}`), Progress: true, Observer: rec})
		if err != nil {
			t.Fatal(err)
		}
		go call.Wait()
		rec.waitFor(t, "three progress events", func(evs []Event) bool { return count(evs, EvProgress) >= 3 })
		call.Pause()
		call.Pause() // idempotent
		// The read already under way when Pause was called may still deliver
		// one event; nothing else may arrive (the server sends one every 10 ms).
		paused := len(rec.events())
		if !holds(t, 600*time.Millisecond, func() bool { return len(rec.events()) <= paused+1 }) {
			t.Fatalf("events arrived while paused: %s", describe(rec.events()[paused:]))
		}
		if count(rec.events(), EvResult) > 0 {
			t.Fatal("the result arrived while paused")
		}
		call.Resume()
		call.Resume() // idempotent
		evs := rec.waitEnd(t)
		evs = slices.DeleteFunc(evs, func(ev Event) bool { return ev.Kind == EvHeaders })
		checkProgressRun(t, evs, steps)
		if n := count(evs, EvProgress); n != steps {
			t.Errorf("got %d progress events, want all %d", n, steps)
		}
	})
}

func TestInteropLegacySession(t *testing.T) {
	t.Parallel()
	l := interopTargets[1].dial(t, Config{})
	for i := 0; i < 3; i++ {
		if _, err := l.c.CallTool(ctxT(t), "echo", json.RawMessage(`{"text":"x"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.c.Close(ctxT(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	reqs := l.f.reqs.all()
	var sid string
	for _, r := range reqs {
		if strings.Contains(string(r.body), `"method":"initialize"`) {
			sid = r.session
			if r.header.Get("Mcp-Session-Id") != "" {
				t.Error("initialize carried a session id")
			}
		}
	}
	if sid == "" {
		t.Fatal("the server minted no session id on initialize")
	}
	var after, deletes int
	for _, r := range reqs {
		body := string(r.body)
		if strings.Contains(body, "server/discover") || strings.Contains(body, `"method":"initialize"`) {
			continue
		}
		after++
		if got := r.header.Get("Mcp-Session-Id"); got != sid {
			t.Errorf("%s %s: Mcp-Session-Id = %q, want %q", r.method, body, got, sid)
		}
		if got := r.header.Get("Mcp-Protocol-Version"); got != "2025-11-25" {
			t.Errorf("%s %s: MCP-Protocol-Version = %q", r.method, body, got)
		}
		if r.method == "DELETE" {
			deletes++
		}
	}
	if after < 5 { // initialized, 3 calls, DELETE
		t.Errorf("only %d requests after initialize", after)
	}
	if last := reqs[len(reqs)-1]; last.method != "DELETE" || deletes != 1 {
		t.Errorf("last request %s, %d DELETEs; want exactly one DELETE, last", last.method, deletes)
	}
}

func TestInteropHeaders2026(t *testing.T) {
	t.Parallel()
	l := interopTargets[0].dial(t, Config{ClientInfo: Implementation{Name: "chaos-test", Version: "9.9"}})
	call, err := l.c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"steps":1,"step_ms":1}`), Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	waitCall(t, call)
	var found bool
	for _, r := range l.f.reqs.all() {
		var body struct {
			ID     int64  `json:"id"`
			Method string `json:"method"`
			Params struct {
				Name string                     `json:"name"`
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatalf("body %q: %v", r.body, err)
		}
		h := r.header
		if a := h.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
			t.Errorf("%s: Accept = %q", body.Method, a)
		}
		checks := map[string]string{
			"Content-Type":         "application/json",
			"MCP-Protocol-Version": "2026-07-28",
			"Mcp-Method":           body.Method,
		}
		if body.Method == "tools/call" {
			checks["Mcp-Name"] = body.Params.Name
		} else if v := h.Values("Mcp-Name"); len(v) != 0 {
			t.Errorf("%s: Mcp-Name = %q on a method that has none", body.Method, v)
		}
		for k, want := range checks {
			if got := h.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("%s: %s = %q, want [%q]", body.Method, k, got, want)
			}
		}
		if h.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: a 2026 request carried Mcp-Session-Id", body.Method)
		}
		meta := body.Params.Meta
		if got := string(meta["io.modelcontextprotocol/protocolVersion"]); got != `"2026-07-28"` {
			t.Errorf("%s: _meta protocolVersion = %s", body.Method, got)
		}
		if got := string(meta["io.modelcontextprotocol/clientCapabilities"]); got != `{}` {
			t.Errorf("%s: _meta clientCapabilities = %s", body.Method, got)
		}
		var info Implementation
		if err := json.Unmarshal(meta["io.modelcontextprotocol/clientInfo"], &info); err != nil || info != (Implementation{"chaos-test", "9.9"}) {
			t.Errorf("%s: _meta clientInfo = %s", body.Method, meta["io.modelcontextprotocol/clientInfo"])
		}
		if body.Method == "tools/call" {
			found = true
			if got, want := string(meta["progressToken"]), `"p`+itoa(call.ID())+`"`; got != want || body.ID != call.ID() {
				t.Errorf("tools/call: id %d token %s, want id %d token %s", body.ID, got, call.ID(), want)
			}
			if ua := h.Get("User-Agent"); ua != "chaos-test/9.9" {
				t.Errorf("User-Agent = %q", ua)
			}
		} else if _, ok := meta["progressToken"]; ok {
			t.Errorf("%s carries a progress token", body.Method)
		}
	}
	if !found {
		t.Fatal("no tools/call request recorded")
	}
}

// TestInteropUniqueIDs runs many calls from two clients that share one
// IDSource and checks, on the server's side, that no request id or
// progress token was ever sent twice.
func TestInteropUniqueIDs(t *testing.T) {
	t.Parallel()
	ids := new(IDSource)
	f := startSDKHTTP(t, true, true)
	var clients []*Client
	for i := 0; i < 2; i++ {
		c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: f.url}, IDs: ids, LateWindow: lateWindow})
		if err != nil {
			t.Fatal(err)
		}
		closeClient(t, c)
		clients = append(clients, c)
	}
	const perClient = 40
	done := make(chan []int64, len(clients))
	for _, c := range clients {
		go func() {
			var got []int64
			for i := 0; i < perClient; i++ {
				call, err := c.Start(ctxT(t), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`), Progress: i%2 == 0})
				if err != nil {
					t.Error(err)
					break
				}
				if i%5 == 0 {
					_ = call.Cancel("churn", false)
				}
				call.Wait()
				got = append(got, call.ID())
			}
			done <- got
		}()
	}
	var all []int64
	for range clients {
		select {
		case got := <-done:
			all = append(all, got...)
		case <-time.After(testutil.WaitLong):
			t.Fatal("calls did not end")
		}
	}
	seenID, seenTok := map[string]bool{}, map[string]bool{}
	for _, r := range f.reqs.all() {
		var body struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatal(err)
		}
		if id := string(body.ID); id != "" {
			if seenID[id] {
				t.Errorf("request id %s sent twice", id)
			}
			seenID[id] = true
		}
		if tok := string(body.Params.Meta["progressToken"]); tok != "" {
			if seenTok[tok] {
				t.Errorf("progress token %s sent twice", tok)
			}
			seenTok[tok] = true
		}
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != 2*perClient {
		t.Errorf("Call.ID() values not unique")
	}
	// 2 discovers + 80 calls and 40 tokens, less what a cancel (every
	// fifth call: 16) cut off before the server read it.
	if len(seenID) < 2+2*perClient-16 || len(seenTok) < perClient-16 {
		t.Errorf("server saw only %d ids and %d tokens", len(seenID), len(seenTok))
	}
}
