package client

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// cancelNotifyCase is an era, whether Cancel is asked to notify too, and
// whether a notifications/cancelled must be POSTed.
type cancelNotifyCase struct {
	name       string
	legacy     bool
	alsoNotify bool
	wantPost   bool
}

// TestCancelNotifyHTTP: how Cancel reaches an HTTP server in each era. 2026
// closes the stream, and POSTs notifications/cancelled only when asked;
// 2025 always POSTs it, with the session.
func TestCancelNotifyHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []cancelNotifyCase{
		{"2026", false, false, false},
		{"2026-also-notify", false, true, true},
		{"2025", true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			posted := make(chan fakeReq, 1)
			script := func(w http.ResponseWriter, req fakeReq) bool {
				switch {
				case req.Method == vocab.MethodCancelled:
					posted <- req
					w.WriteHeader(http.StatusAccepted)
				case req.Method == vocab.MethodToolsCall:
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(200)
					w.(http.Flusher).Flush()
					<-req.Req.Context().Done()
				default:
					return false
				}
				return true
			}
			var f *fake
			if tc.legacy {
				f = startLegacyFake(t, script)
			} else {
				f = startFake(t, script)
			}
			c := dialFake(t, f, Config{})
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "hang", Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go call.Wait()
			rec.waitFor(t, "headers", func(evs []Event) bool { return count(evs, EvHeaders) > 0 })
			if err := call.Cancel("because", tc.alsoNotify); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			if err := call.Cancel("again", tc.alsoNotify); err != nil {
				t.Fatalf("second Cancel: %v", err)
			}
			rec.waitEnd(t)
			checkCancelPosted(t, tc, posted, call)
		})
	}
}

// checkCancelPosted checks that a cancelled call's notifications/cancelled
// was POSTed once, with its id, reason and headers, when tc wants one, and
// not within 300 ms when it does not.
func checkCancelPosted(t *testing.T, tc cancelNotifyCase, posted <-chan fakeReq, call *Call) {
	t.Helper()
	wait := testutil.WaitLong
	if !tc.wantPost {
		wait = 300 * time.Millisecond
	}
	select {
	case req := <-posted:
		if !tc.wantPost {
			t.Fatalf("notifications/cancelled posted: %s", req.Body)
		}
		var p struct {
			Params struct {
				RequestID int64  `json:"requestId"`
				Reason    string `json:"reason"`
			} `json:"params"`
		}
		_ = json.Unmarshal(req.Body, &p)
		if p.Params.RequestID != call.ID() || p.Params.Reason != "because" {
			t.Errorf("cancel body %s, want requestId %d", req.Body, call.ID())
		}
		if got := req.Header.Get("Mcp-Method"); tc.legacy == (got != "") {
			t.Errorf("Mcp-Method %q on a %s cancel", got, tc.name)
		}
		if got := req.Header.Get("Mcp-Session-Id"); tc.legacy != (got == "sess-1") {
			t.Errorf("Mcp-Session-Id %q on a %s cancel", got, tc.name)
		}
	case <-time.After(wait):
		if tc.wantPost {
			t.Fatal("no notifications/cancelled posted")
		}
	}
	select {
	case req := <-posted:
		t.Errorf("a second cancel was posted: %s", req.Body)
	default:
	}
}

// TestNotify sends a raw client notification on each transport.
func TestNotify(t *testing.T) {
	t.Parallel()
	got := make(chan fakeReq, 1)
	f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method == "notifications/progress" {
			got <- req
			w.WriteHeader(http.StatusAccepted)
			return true
		}
		if req.Method == "notifications/rejected" {
			http.Error(w, "no", http.StatusBadRequest)
			return true
		}
		return false
	})
	c := dialFake(t, f, Config{})
	if err := c.Notify(ctxT(t), "notifications/progress", []byte(`{"progressToken":"x","progress":1}`)); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	req := <-got
	if string(req.Body) != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}` || req.Header.Get("Mcp-Method") != "notifications/progress" {
		t.Errorf("posted %s with Mcp-Method %q", req.Body, req.Header.Get("Mcp-Method"))
	}
	if err := c.Notify(ctxT(t), "notifications/rejected", nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("Notify answered 400: err = %v", err)
	}
}
