package client

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// Connection handling on Streamable HTTP: keep-alive reuse, stopping calls
// whose connection went back to the pool, dropped connections, FIN and RST.

// TestHTTPKeepAlive checks that a connection whose answer ended cleanly is
// reused, and that one left open after the final response is not.
func TestHTTPKeepAlive(t *testing.T) {
	t.Parallel()
	f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		switch req.Params.Name {
		case "json":
			writeJSON(w, 200, resultJSON(req.ID, "ok"))
		case "sse":
			writeSSE(w, resultJSON(req.ID, "ok"))
		default:
			return false
		}
		return true
	})
	c := dialFake(t, f, Config{})
	for _, tool := range []string{"json", "sse", "json", "sse"} {
		runCall(t, c, tool, false)
	}
	reqs := f.requests()
	for _, r := range reqs[1:] {
		if r.Remote != reqs[0].Remote {
			t.Errorf("%s came on %s, want every request on the first connection %s", r.Params.Name, r.Remote, reqs[0].Remote)
		}
	}
}

// TestHTTPCancelAfterDone cancels and aborts calls whose answers already
// ended and whose connection went back to the pool: another call now using
// that connection must not be hurt.
func TestHTTPCancelAfterDone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		era  Era
		stop func(*Call) error
	}{
		{"cancel-2026", Era20260728, func(c *Call) error { return c.Cancel("late", false) }},
		{"abort-fin", Era20260728, func(c *Call) error { return c.Abort(AbortFIN) }},
		{"abort-rst", Era20260728, func(c *Call) error { return c.Abort(AbortRST) }},
		{"cancel-2025", Era20251125, func(c *Call) error { return c.Cancel("late", false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			start := startFake
			if !tc.era.Modern() {
				start = startLegacyFake
			}
			f := start(t, func(w http.ResponseWriter, req fakeReq) bool {
				switch req.Params.Name {
				case "fast":
					writeJSON(w, 200, resultJSON(req.ID, "fast"))
				case "slow":
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(200)
					w.(http.Flusher).Flush()
					<-release
					io.WriteString(w, sseEvent(resultJSON(req.ID, "slow")))
				default:
					return false
				}
				return true
			})
			c := dialFake(t, f, Config{})
			if c.Era() != tc.era {
				t.Fatalf("era %s, want %s", c.Era(), tc.era)
			}
			first, _ := runCall(t, c, "fast", false)
			rec := newRecorder()
			second, err := c.Start(ctxT(t), CallRequest{Tool: "slow", Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go second.Wait()
			rec.waitFor(t, "headers", func(evs []Event) bool { return count(evs, EvHeaders) > 0 })
			if reqs := f.requests(); reqs[len(reqs)-1].Remote != reqs[len(reqs)-2].Remote {
				t.Fatal("the second call did not reuse the first call's connection; the test proves nothing")
			}
			_ = tc.stop(first)
			time.Sleep(2 * lateWindow) // a deadline wrongly set on the shared connection would fire
			close(release)
			evs := rec.waitEnd(t)
			if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "slow" || lastEnd(t, evs).Err != nil {
				t.Errorf("the other call was hurt by stopping a finished one: %s", describe(evs))
			}
		})
	}
}

// TestHTTPFreshConnectionDropped: a new connection closed without an
// answer is not retried: the call ends with an error.
func TestHTTPFreshConnectionDropped(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method == vocab.MethodDiscover {
			w.Header().Set("Connection", "close") // so nothing is pooled
			return false
		}
		calls.Add(1)
		nc, _, _ := w.(http.Hijacker).Hijack()
		nc.Close()
		return true
	})
	c := dialFake(t, f, Config{})
	_, evs := runCall(t, c, "drop", false)
	if end := lastEnd(t, evs); end.Err == nil || !strings.Contains(end.Err.Error(), "EOF") {
		t.Errorf("EvEnd err = %v, want an EOF", end.Err)
	}
	if calls.Load() != 1 {
		t.Errorf("the server saw %d tries, want 1", calls.Load())
	}
}

// TestHTTPAbortFINvsRST checks on the server's side of the socket that
// AbortFIN closes with a FIN (the server reads EOF) and AbortRST with an
// RST (the server reads ECONNRESET).
func TestHTTPAbortFINvsRST(t *testing.T) {
	t.Parallel()
	for _, mode := range []AbortMode{AbortFIN, AbortRST} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			seen := make(chan error, 1)
			go func() {
				for {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						defer nc.Close()
						br := bufio.NewReader(nc)
						r, err := http.ReadRequest(br)
						if err != nil {
							return
						}
						var req fakeReq
						_ = json.NewDecoder(r.Body).Decode(&req)
						if req.Method == vocab.MethodDiscover {
							body := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"supportedVersions":["2026-07-28"]}}`
							io.WriteString(nc, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: "+itoa(int64(len(body)))+"\r\n\r\n"+body)
							return
						}
						io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
						_, err = br.ReadByte() // blocks until the client goes away
						seen <- err
					}()
				}
			}()
			c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: "http://" + ln.Addr().String() + "/mcp"}})
			if err != nil {
				t.Fatal(err)
			}
			closeClient(t, c)
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "hang", Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go call.Wait()
			rec.waitFor(t, "headers", func(evs []Event) bool { return count(evs, EvHeaders) > 0 })
			if err := call.Abort(mode); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-seen:
				want := map[AbortMode]error{AbortFIN: io.EOF, AbortRST: syscall.ECONNRESET}[mode]
				if !errors.Is(err, want) {
					t.Errorf("server read %v after Abort(%s), want %v", err, mode, want)
				}
			case <-time.After(testutil.WaitLong):
				t.Fatal("the server never saw the connection end")
			}
		})
	}
}
