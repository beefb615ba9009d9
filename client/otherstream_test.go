package client

import (
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"net/http"
	"testing"
)

// otherStreamFake is a server, legacy or modern, that sends the progress
// of tool "owner" elsewhere than on the owner's stream: on the stream of a
// second call (tool "carrier"), or on the legacy session's GET stream. The
// owner's answer waits until release is closed, so the progress is seen
// while the owner is in flight.
type otherStreamFake struct {
	*fake
	tokens  chan string // the owner's token, from its request
	get     chan string // messages for the GET stream
	release chan struct{}
}

func startOtherStreamFake(t *testing.T, legacy, offerGet bool) *otherStreamFake {
	f := &otherStreamFake{tokens: make(chan string, 1), get: make(chan string, 4), release: make(chan struct{})}
	script := func(w http.ResponseWriter, req fakeReq) bool {
		switch {
		case req.HTTPMethod == http.MethodGet && offerGet:
			if req.Header.Get("Mcp-Session-Id") != "sess-1" || req.Header.Get("Accept") == "" {
				http.Error(w, "no session", http.StatusBadRequest)
				return true
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			for {
				select {
				case m := <-f.get:
					writeEvent(w, m)
				case <-req.Req.Context().Done():
					return true
				}
			}
		case req.Method == "tools/call" && req.Params.Name == "owner":
			f.tokens <- req.token()
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			select {
			case <-f.release:
			case <-req.Req.Context().Done():
				return true
			}
			writeEvent(w, resultJSON(req.ID, "owner done"))
			return true
		case req.Method == "tools/call" && req.Params.Name == "carrier":
			tok := <-f.tokens
			writeSSE(w, progressJSON(tok, 1), resultJSON(req.ID, "carrier done"))
			return true
		}
		return false
	}
	if legacy {
		f.fake = startLegacyFake(t, script)
	} else {
		f.fake = startFake(t, script)
	}
	return f
}

func writeEvent(w http.ResponseWriter, msg string) {
	_, _ = w.Write([]byte(sseEvent(msg)))
	w.(http.Flusher).Flush()
}

// TestProgressOnAnotherStream: progress that a server (or a gateway in
// front of it) delivers on another stream of the session is credited to
// its own call by token and counted in Stats.OtherStream: on another
// call's POST stream in both eras (a violation of that stream's scope only
// in 2026, recorded on the carrying call), and on a 2025 session's
// standalone GET stream, which the session opens after the handshake.
func TestProgressOnAnotherStream(t *testing.T) {
	tests := []struct {
		name      string
		legacy    bool
		via       string // "post": the carrier's stream; "get": the GET stream
		wantViol  bool   // the carrier records wrong_stream
		wantGets  int64
		wantGETrq int // GET requests the server saw
	}{
		{name: "2025 on another POST stream", legacy: true, via: "post", wantGets: 1, wantGETrq: 1},
		{name: "2025 on the GET stream", legacy: true, via: "get", wantGets: 1, wantGETrq: 1},
		{name: "2026 on another POST stream", legacy: false, via: "post", wantViol: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startOtherStreamFake(t, tt.legacy, true)
			c := dialFake(t, f.fake, Config{})
			owner := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "owner", Progress: true, Observer: owner})
			if err != nil {
				t.Fatal(err)
			}
			go call.Wait()
			var carrier []Event
			switch tt.via {
			case "post":
				_, carrier = runCall(t, c, "carrier", false)
			case "get":
				f.get <- progressJSON(<-f.tokens, 1)
			}
			owner.waitFor(t, "the owner's progress", func(evs []Event) bool { return count(evs, EvProgress) > 0 })
			close(f.release)
			evs := owner.waitEnd(t)
			prog := ofKind(evs, EvProgress)
			if len(prog) != 1 || !prog[0].OtherStream || prog[0].Progress != 1 {
				t.Errorf("owner's progress = %s, want one, marked OtherStream", describe(prog))
			}
			if v := violations(evs); len(v) != 0 {
				t.Errorf("owner's violations = %v, want none", v)
			}
			if got := hasViolation(carrier, ViolWrongStream); got != tt.wantViol {
				t.Errorf("carrier has wrong_stream = %v, want %v (events %s)", got, tt.wantViol, describe(carrier))
			}
			// The GET stream opens on its own goroutine after the handshake.
			testutil.Poll(testutil.WaitLong, func() bool { return c.Stats().GetStreams >= tt.wantGets })
			s := c.Stats()
			if s.OtherStream != 1 || s.GetStreams != tt.wantGets || s.UnknownTokens != 0 || s.Stale != 0 {
				t.Errorf("stats = %+v, want OtherStream 1, GetStreams %d", s, tt.wantGets)
			}
			gets := 0
			for _, r := range f.requests() {
				if r.HTTPMethod == http.MethodGet {
					gets++
					if a := r.Header.Get("Accept"); a == "" || r.Header.Get("MCP-Protocol-Version") != "2025-11-25" {
						t.Errorf("GET headers: Accept %q, MCP-Protocol-Version %q", a, r.Header.Get("MCP-Protocol-Version"))
					}
				}
			}
			if gets != tt.wantGETrq {
				t.Errorf("the server saw %d GET requests, want %d", gets, tt.wantGETrq)
			}
		})
	}
}

// TestGetStreamNotOffered: a 2025 server that answers the GET with 405
// offers no stream: the session asks once, counts none and works on.
func TestGetStreamNotOffered(t *testing.T) {
	f := startOtherStreamFake(t, true, false)
	c := dialFake(t, f.fake, Config{})
	go func() { <-f.tokens }()
	close(f.release)
	_, evs := runCall(t, c, "owner", true)
	if count(evs, EvResult) != 1 {
		t.Fatalf("events %s, want a result", describe(evs))
	}
	gets := 0
	for _, r := range f.requests() {
		if r.HTTPMethod == http.MethodGet {
			gets++
		}
	}
	if s := c.Stats(); gets != 1 || s.GetStreams != 0 {
		t.Errorf("GET requests %d, GetStreams %d; want 1 and 0", gets, s.GetStreams)
	}
}
