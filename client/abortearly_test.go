package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestAbortBeforeHeaders aborts a call whose server answers with one JSON
// body and sends no headers before it (the answer would come two
// WaitLongs later): the abort closes the call's connection at once, which
// the server sees as its request's context cancelled, and the call ends
// without an answer and without an error of its own.
func TestAbortBeforeHeaders(t *testing.T) {
	t.Parallel()
	for _, mode := range []AbortMode{AbortFIN, AbortRST} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			arrived, ended := make(chan struct{}, 1), make(chan string, 1)
			f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
				if req.Method != vocab.MethodToolsCall {
					return false
				}
				arrived <- struct{}{}
				answer := time.NewTimer(2 * testutil.WaitLong)
				defer answer.Stop()
				select {
				case <-req.Req.Context().Done():
					ended <- "cancelled"
				case <-answer.C:
					writeJSON(w, 200, resultJSON(req.ID, "late"))
					ended <- "answered"
				}
				return true
			})
			c := dialFake(t, f, Config{})
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "slow", Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go call.Wait()
			testutil.Receive(t, "the call to reach the server", arrived)
			if err := call.Abort(mode); err != nil {
				t.Fatalf("Abort(%s): %v", mode, err)
			}
			if got := testutil.Receive(t, "the server's request to end", ended); got != "cancelled" {
				t.Fatalf("the server's request was %s, want cancelled by the abort", got)
			}
			evs := rec.waitEnd(t)
			if n := count(evs, EvHeaders); n != 0 {
				t.Errorf("%d headers events after an abort before the headers:\n%s", n, describe(evs))
			}
			if end := lastEnd(t, evs); end.Err != nil {
				t.Errorf("EvEnd err = %v, want none (we stopped the call)", end.Err)
			}
		})
	}
}
