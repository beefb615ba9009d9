package client

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestHTTPLegacyStaleAnswer: on a 2025 session (the Go SDK's stateful
// handler) a call whose server ignores the cancel is over for the client
// at the late window, while its stream is still open; the answer that
// comes later on that stream is counted as a stale answer (and its
// progress as stale), as on stdio, and delivered to no one. A server that
// honours the cancel gives none. The marker the late answer echoes goes
// to Config.OnStaleAnswer. Client.Close ends the watch.
func TestHTTPLegacyStaleAnswer(t *testing.T) {
	tests := []struct {
		name, tool string
		stale      bool
	}{
		{"ignores the cancel", "stubborn", true},
		{"honours the cancel", "hang", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := startSDKHTTP(t, false, false)
			echoes := make(chan string, 1)
			c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: f.url}, LateWindow: 200 * time.Millisecond,
				OnStaleAnswer: func(marker string, _ time.Time) { echoes <- marker }})
			if err != nil {
				t.Fatal(err)
			}
			closeClient(t, c)
			if c.Era().Modern() {
				t.Fatalf("era %s, want a 2025 session", c.Era())
			}
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: tt.tool, Progress: true, Observer: rec, Marker: Marker{Run: "r1", Seq: 7}})
			if err != nil {
				t.Fatal(err)
			}
			testutil.Receive(t, "the handler to start", f.log.started)
			if err := call.Cancel("test", false); err != nil {
				t.Fatal(err)
			}
			waitCall(t, call) // the stubborn handler still holds the stream
			evs := rec.waitEnd(t)
			if n := count(evs, EvResult); tt.stale && n != 0 {
				t.Fatalf("a result was delivered before the handler was released: %s", describe(evs))
			}
			if s := c.Stats(); s.Stale != 0 || s.StaleAnswers != 0 {
				t.Errorf("stats %+v before the answer, want no stale message", s)
			}
			f.log.releaseAll()
			if !tt.stale {
				testutil.Receive(t, "the handler to stop at its cancel", f.log.ended)
				if !holds(t, 300*time.Millisecond, func() bool { return c.Stats().StaleAnswers == 0 }) {
					t.Errorf("stale answers %d from a server that stopped at the cancel", c.Stats().StaleAnswers)
				}
				return
			}
			testutil.Receive(t, "the handler to answer", f.log.finished)
			testutil.Eventually(t, "the stale answer to be counted", func() bool { return c.Stats().StaleAnswers == 1 })
			if s := c.Stats(); s.Stale != 2 {
				t.Errorf("stale = %d, want the progress and the answer", s.Stale)
			}
			if got := testutil.Receive(t, "the stale answer's marker", echoes); got != "r1.7.0" {
				t.Errorf("OnStaleAnswer got marker %q, want the call's r1.7.0", got)
			}
			if got := rec.events(); len(got) != len(evs) {
				t.Errorf("events after the call ended: %s", describe(got[len(evs):]))
			}
			tr := c.tr.(*httpTransport)
			testutil.Eventually(t, "the watched stream to be let go", func() bool {
				tr.mu.Lock()
				defer tr.mu.Unlock()
				return len(tr.watched) == 0
			})
		})
	}
}

// TestHTTPLegacyWatchEndsAtClose: a stream still watched when the client
// closes is closed with it: the server sees the disconnect.
func TestHTTPLegacyWatchEndsAtClose(t *testing.T) {
	t.Parallel()
	gone := make(chan struct{}, 1)
	f := startLegacyFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method != vocab.MethodToolsCall {
			return false
		}
		// Open the stream, then hold it without a word until the client
		// goes: a server that ignores the cancel and never answers.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-req.Req.Context().Done()
		gone <- struct{}{}
		return true
	})
	c := dialFake(t, f, Config{LateWindow: 100 * time.Millisecond})
	call, err := c.Start(ctxT(t), CallRequest{Tool: "stubborn"})
	if err != nil {
		t.Fatal(err)
	}
	if err := call.Cancel("test", false); err != nil {
		t.Fatal(err)
	}
	waitCall(t, call)
	tr := c.tr.(*httpTransport)
	tr.mu.Lock()
	watched := len(tr.watched)
	tr.mu.Unlock()
	if watched != 1 {
		t.Fatalf("%d streams watched after the late window, want the cancelled call's", watched)
	}
	select {
	case <-gone:
		t.Fatal("the stream was closed at the late window; want it read on")
	default:
	}
	if err := c.Close(ctxT(t)); err != nil {
		t.Errorf("close: %v", err)
	}
	testutil.Receive(t, "the server to see the watched stream closed", gone)
	tr.mu.Lock()
	watched = len(tr.watched)
	tr.mu.Unlock()
	if watched != 0 {
		t.Errorf("%d streams still watched after Close", watched)
	}
}

// TestHTTPLegacyLateWindowFromCancel: on a 2025 session the late window
// runs from our cancel, not from the server's answer to the cancel's
// POST. A server slow to answer that POST (a starved one) stretched the
// window by as long as it took, and its answer to the call, stale by the
// window, was read within it as a late response.
func TestHTTPLegacyLateWindowFromCancel(t *testing.T) {
	t.Parallel()
	postHeld := make(chan struct{}) // closed: the cancel's POST is answered
	answer := make(chan struct{})   // closed: the call is answered
	f := startLegacyFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		switch req.Method {
		case vocab.MethodToolsCall:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			select {
			case <-answer:
			case <-req.Req.Context().Done():
				return true
			}
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[]}}\n\n", req.ID)
			w.(http.Flusher).Flush()
			return true
		case vocab.MethodCancelled:
			select {
			case <-postHeld:
			case <-req.Req.Context().Done(): // the client gave up on the POST
			}
			w.WriteHeader(http.StatusAccepted)
			return true
		}
		return false
	})
	c := dialFake(t, f, Config{LateWindow: 100 * time.Millisecond})
	rec := newRecorder()
	call, err := c.Start(ctxT(t), CallRequest{Tool: "stubborn", Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	go call.Wait()
	cancelled := make(chan error, 1)
	go func() { cancelled <- call.Cancel("test", false) }()
	rec.waitEnd(t) // the late window's end
	select {
	case err := <-cancelled:
		t.Fatalf("the call ended only once the cancel's POST was over (%v); want the late window to run from the cancel", err)
	default:
	}
	close(postHeld)
	if err := testutil.Receive(t, "the cancel's POST to end", cancelled); err != nil {
		t.Fatal(err)
	}
	close(answer)
	testutil.Eventually(t, "the answer after the late window to be counted stale", func() bool { return c.Stats().StaleAnswers == 1 })
	if n := count(rec.events(), EvResult); n != 0 {
		t.Errorf("%d results delivered after the late window; want the stale answer delivered to no one", n)
	}
}
