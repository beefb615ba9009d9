package client

import (
	"bufio"
	"context"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// TestOversizeBodyCost: a multi-megabyte oversize request costs one body
// allocation to build and none to send. Built a byte at a time (a dozen
// regrowths) and then copied behind the headers, each 5 MiB body touched
// ~15 MiB of fresh memory inside Start, which under the race detector on a
// busy machine cost seconds per call (faults TestMalformed/oversize).
func TestOversizeBodyCost(t *testing.T) {
	const size = 4 << 20
	c := &Client{era: Era20260728, ids: new(IDSource), cfg: Config{ClientInfo: Implementation{Name: "t", Version: "1"}}}
	args := []byte(`{"text":"hello"}`)

	var body []byte
	if n := allocated(func() { body = c.appendCallBody(nil, 7, "echo", args, 7, Marker{}, MalformOversize, size, nil, false) }); n > size+size/4 {
		t.Errorf("appendCallBody of a %d-byte oversize body allocated %d bytes, want one body", size, n)
	}
	if len(body) < size || !strings.Contains(string(body[:200]), `"mcpchaos_padding":"xxxx`) || strings.Count(string(body), "x") < size-200 {
		t.Fatalf("oversize body: %d bytes, starts %q", len(body), body[:min(len(body), 120)])
	}

	tr, err := newHTTPTransport(c, &HTTPConfig{URL: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	done := make(chan int64)
	go func() {
		n, _ := io.Copy(io.Discard, server)
		done <- n
	}()
	conn := &httpConn{nc: client, br: bufio.NewReader(client)}
	if n := allocated(func() {
		if err := tr.writeRequest(context.Background(), conn, vocab.MethodToolsCall, "echo", nil, body); err != nil {
			t.Fatalf("writeRequest: %v", err)
		}
	}); n > size/4 {
		t.Errorf("writeRequest of a %d-byte body allocated %d bytes, want it sent without a copy", size, n)
	}
	client.Close()
	if n := <-done; n < 3*int64(len(body)) {
		t.Errorf("the server read %d bytes, want at least %d", n, 3*len(body))
	}
}

// allocated returns the least number of bytes the process allocated over
// three runs of f, so a stray allocation elsewhere cannot fail a test.
func allocated(f func()) uint64 {
	least := uint64(1 << 62)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// TestEarlyAnswerToLargeBody: a server that refuses a large body after
// reading a little of it (413, as a body limit does) and then stops
// reading gets its answer read at once, not after the body's write times
// out; one that resets the connection after answering ends the call
// promptly, with the 413 or with a reset. The body is far larger than the
// socket buffers can take, so without watching for an early answer the
// write blocks until its deadline.
func TestEarlyAnswerToLargeBody(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"hold", "reset"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			release := make(chan struct{})
			defer close(release)
			served := make(chan error, 1)
			go func() {
				nc, err := ln.Accept()
				if err != nil {
					served <- err
					return
				}
				defer nc.Close()
				tcp := nc.(*net.TCPConn)
				_ = tcp.SetReadBuffer(16 << 10)
				if _, err := io.CopyN(io.Discard, nc, 64<<10); err != nil {
					served <- err
					return
				}
				_, err = io.WriteString(nc, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 9\r\n\r\ntoo large")
				served <- err
				if mode == "reset" {
					_ = tcp.SetLinger(0)
					return
				}
				<-release // hold the connection open, reading nothing more
			}()
			c := &Client{era: Era20260728, ids: new(IDSource), cfg: Config{ClientInfo: Implementation{Name: "t", Version: "1"}, MaxMessageBytes: 1 << 20, LateWindow: lateWindow}}
			c.tr, err = newHTTPTransport(c, &HTTPConfig{URL: "http://" + ln.Addr().String() + "/mcp"})
			if err != nil {
				t.Fatal(err)
			}
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "echo", Malform: MalformOversize, MalformSize: 16 << 20, Observer: rec})
			if serr := <-served; serr != nil {
				t.Fatalf("server: %v", serr)
			}
			if err != nil {
				if mode == "reset" && strings.Contains(err.Error(), "reset") {
					return // a clear transport error, at once
				}
				t.Fatalf("Start: %v; want the request sent and its 413 read", err)
			}
			call.Wait()
			evs := rec.events()
			if len(evs) == 0 || evs[0].Kind != EvHeaders || evs[0].Status != 413 {
				t.Fatalf("events %+v, want headers with status 413 first", evs)
			}
			if end := lastEnd(t, evs); end.Err != nil {
				t.Errorf("call ended with %v, want nil (an HTTP error answer)", end.Err)
			}
			tr := c.tr.(*httpTransport)
			tr.mu.Lock()
			idle := len(tr.idle)
			tr.mu.Unlock()
			if idle != 0 {
				t.Errorf("%d idle connections after an answer to a half-sent body, want 0", idle)
			}
		})
	}
}
