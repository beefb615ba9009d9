package client

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// Bounds: a server that sends a message of any size costs the client no
// more memory than Config.MaxMessageBytes. These tests push 1 GiB; they run
// alone (not in parallel) so the heap figures are theirs.

const gib = 1 << 30

// heapWatch samples HeapInuse until stopped and returns the largest value.
func heapWatch() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak.Load() {
			peak.Store(ms.HeapInuse)
		}
	}
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		sample()
		return peak.Load()
	}
}

const heapBound = 200 << 20

// TestBoundsStdioHugeLine: a 1 GiB line on stdout ends the call it names
// with an oversize error, is skipped without being kept, and the next
// message on the pipe still arrives.
func TestBoundsStdioHugeLine(t *testing.T) {
	const head = `{"jsonrpc":"2.0","id":2,"result":{"x":"`
	for _, tc := range []struct {
		name string
		size int64 // bytes between head and its closing "}}
		max  int
		over bool
	}{
		{"1GiB-default-max", gib, 0, true},
		{"100KiB-over-1KiB-max", 100 << 10, 1 << 10, true},
		{"1KiB-at-1KiB-max", 1<<10 - int64(len(head)+len(`"}}`)), 1 << 10, false},
		{"1KiB+1-over-1KiB-max", 1<<10 - int64(len(head)+len(`"}}`)) + 1, 1 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The 1 GiB line is NUL bytes: its content does not matter, only
			// its length, and /dev/zero is much faster than tr.
			fill := "head -c " + itoa(tc.size) + " /dev/zero"
			if tc.size < gib {
				fill += " | tr '\\0' a"
			}
			script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
read a; read b
printf '` + head + `'
` + fill + `
printf '"}}\n{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"after"}]}}\n'
cat >/dev/null`
			peak := heapWatch()
			start := time.Now()
			c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}, MaxMessageBytes: tc.max, LateWindow: lateWindow})
			if err != nil {
				t.Fatal(err)
			}
			closeClient(t, c)
			big, after := newRecorder(), newRecorder()
			if _, err := c.Start(ctxT(t), CallRequest{Tool: "big", Observer: big}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Start(ctxT(t), CallRequest{Tool: "after", Observer: after}); err != nil {
				t.Fatal(err)
			}
			evs := big.waitEnd(t)
			later := after.waitEnd(t)
			heap := peak()
			t.Logf("%s in %v, peak HeapInuse %d MiB", tc.name, time.Since(start).Round(time.Millisecond), heap>>20)
			end := lastEnd(t, evs)
			if tc.over {
				if !IsOversize(end.Err) || !hasViolation(evs, ViolOversize) || count(evs, EvResult) != 0 {
					t.Errorf("oversize call: %s", describe(evs))
				}
				// Counted once, as the violation of the call it names.
				if got := c.Stats().Oversize; got != 0 || len(violations(evs)) != 1 {
					t.Errorf("Stats.Oversize = %d and violations %v, want 0 and one", got, violations(evs))
				}
			} else if end.Err != nil || count(evs, EvResult) != 1 {
				t.Errorf("a message of exactly the maximum size was refused: %s", describe(evs))
			}
			if r := ofKind(later, EvResult); len(r) != 1 || string(r[0].Result.Text) != "after" {
				t.Errorf("the message after the huge line: %s", describe(later))
			}
			if heap > heapBound {
				t.Errorf("peak HeapInuse %d MiB, want under %d MiB", heap>>20, heapBound>>20)
			}
		})
	}
}

// TestBoundsHTTPHugeSSE: an SSE data line of 1 GiB ends the call with an
// oversize error long before the server finishes writing it.
func TestBoundsHTTPHugeSSE(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		json bool
	}{
		{"sse-default-max", 0, false},
		{"sse-1MiB-max", 1 << 20, false},
		{"json-1MiB-max", 1 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var written atomic.Int64
			f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
				if req.Method != vocab.MethodToolsCall {
					return false
				}
				if req.Params.Name == "small" {
					writeJSON(w, 200, resultJSON(req.ID, "small"))
					return true
				}
				if tc.json {
					w.Header().Set("Content-Type", "application/json")
				} else {
					w.Header().Set("Content-Type", "text/event-stream")
				}
				head := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"x":"`
				if !tc.json {
					head = "event: message\ndata: " + head
				}
				io.WriteString(w, head)
				chunk := bytes.Repeat([]byte("a"), 1<<20)
				for written.Load() < gib {
					if _, err := w.Write(chunk); err != nil {
						return true
					}
					written.Add(int64(len(chunk)))
				}
				io.WriteString(w, "\"}}\n\n")
				return true
			})
			peak := heapWatch()
			c := dialFake(t, f, Config{MaxMessageBytes: tc.max})
			_, evs := runCall(t, c, "big", false)
			heap := peak()
			t.Logf("%s: server wrote %d MiB, peak HeapInuse %d MiB", tc.name, written.Load()>>20, heap>>20)
			end := lastEnd(t, evs)
			if !IsOversize(end.Err) || !hasViolation(evs, ViolOversize) || count(evs, EvResult) != 0 {
				t.Errorf("events: %s", describe(evs))
			}
			if written.Load() >= gib {
				t.Error("the server wrote the whole 1 GiB: the client read it all")
			}
			if heap > heapBound {
				t.Errorf("peak HeapInuse %d MiB, want under %d MiB", heap>>20, heapBound>>20)
			}
			// The connection was dropped, not pooled; the next call works.
			_, evs = runCall(t, c, "small", false)
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "small" {
				t.Errorf("the next call: %s", describe(evs))
			}
		})
	}
}

// TestBoundsHTTPHugeHeader: response headers are bounded (1 MiB), so a
// server that sends an endless header line cannot exhaust memory.
func TestBoundsHTTPHugeHeader(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var written atomic.Int64
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				r, err := http.ReadRequest(bufio.NewReader(nc))
				if err != nil {
					return
				}
				body, _ := io.ReadAll(r.Body)
				if strings.Contains(string(body), vocab.MethodDiscover) {
					resp := `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}`
					io.WriteString(nc, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: "+itoa(int64(len(resp)))+"\r\n\r\n"+resp)
					return
				}
				io.WriteString(nc, "HTTP/1.1 200 OK\r\nX-Huge: ")
				chunk := bytes.Repeat([]byte("h"), 1<<20)
				for written.Load() < gib {
					if _, err := nc.Write(chunk); err != nil {
						return
					}
					written.Add(int64(len(chunk)))
				}
			}()
		}
	}()
	peak := heapWatch()
	c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: "http://" + ln.Addr().String() + "/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
	defer cancel()
	rec := newRecorder()
	call, err := c.Start(ctx, CallRequest{Tool: "big", Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	waitCall(t, call)
	heap := peak()
	evs := rec.waitEnd(t)
	t.Logf("server wrote %d MiB of header, peak HeapInuse %d MiB", written.Load()>>20, heap>>20)
	if end := lastEnd(t, evs); end.Err == nil || count(evs, EvHeaders) != 0 {
		t.Errorf("events: %s", describe(evs))
	}
	if written.Load() >= gib || heap > heapBound {
		t.Errorf("wrote %d MiB, peak HeapInuse %d MiB: headers are not bounded", written.Load()>>20, heap>>20)
	}
}
