package client

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// TestBoundsSSEEndlessLine: many calls against a server that answers each
// with an SSE line that never ends. Each call ends with an oversize error,
// and what a call costs is bounded: a line that is not data is cut at
// maxSSELine and never kept; data is kept only up to MaxMessageBytes. The
// figures are per call, measured over all the calls, so a cost that
// scales with the line would show as megabytes per call.
func TestBoundsSSEEndlessLine(t *testing.T) {
	const calls, parallel = 100, 10
	for _, tc := range []struct {
		name    string
		head    string // what the endless line starts with
		max     int    // Config.MaxMessageBytes; 0 is the default 16 MiB
		perCall uint64 // bound on bytes allocated per call
		detail  string // in the error
	}{
		{"comment", ": ", 0, 512 << 10, "SSE line"},
		{"event field", "event: ", 0, 512 << 10, "SSE line"},
		{"field name without colon", "", 0, 512 << 10, "SSE line"},
		{"unknown field", "x-pad: ", 0, 512 << 10, "SSE line"},
		// Data may be a large message: it is kept up to the maximum, which
		// this case sets to 1 MiB, and growing to it costs at most twice.
		{"data", "data: ", 1 << 20, 2<<20 + 512<<10, "SSE event data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, written := startEndlessSSE(t, tc.head)
			c := dialFake(t, f, Config{MaxMessageBytes: tc.max})
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			peak := heapWatch()
			bad := endlessCalls(t, c, calls, parallel, tc.detail)
			heap := peak()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			per := (after.TotalAlloc - before.TotalAlloc) / calls
			t.Logf("%s: %d calls, server wrote %d MiB, %d KiB allocated per call, peak HeapInuse %d MiB",
				tc.name, calls, written.Load()>>20, per>>10, heap>>20)
			if len(bad) > 0 {
				t.Errorf("%d calls did not end with an oversize protocol error naming %q; first: %s", len(bad), tc.detail, bad[0])
			}
			if per > tc.perCall {
				t.Errorf("%d KiB allocated per call, want at most %d KiB", per>>10, tc.perCall>>10)
			}
		})
	}
}

// startEndlessSSE starts a server that answers every tools/call with an SSE
// event whose line starts with head and never ends (64 MiB at most); the
// counter holds how many bytes of the line it wrote.
func startEndlessSSE(t *testing.T, head string) (*fake, *atomic.Int64) {
	t.Helper()
	var written atomic.Int64
	f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method != vocab.MethodToolsCall {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\n"+head)
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for n := 0; n < 64<<20; n += len(chunk) { // 64 MiB at most
			if _, err := w.Write(chunk); err != nil {
				return true
			}
			written.Add(int64(len(chunk)))
		}
		return true
	})
	return f, &written
}

// endlessCalls makes calls tools/calls, parallel at a time, and returns a
// description of each that did not end with an oversize protocol error
// naming detail.
func endlessCalls(t *testing.T, c *Client, calls, parallel int, detail string) []string {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	sem := make(chan struct{}, parallel)
	for i := 0; i < calls; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "endless", Observer: rec})
			if err != nil {
				mu.Lock()
				bad = append(bad, err.Error())
				mu.Unlock()
				return
			}
			waitCall(t, call)
			evs := rec.waitEnd(t)
			end := lastEnd(t, evs)
			if !IsOversize(end.Err) || !strings.Contains(end.Err.Error(), detail) || !hasViolation(evs, ViolOversize) || !IsProtocolError(end.Err) {
				mu.Lock()
				bad = append(bad, describe(evs))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return bad
}
