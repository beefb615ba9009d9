package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sync"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// ServeStdio makes the proxy a stdio server for a client that spawns it:
// each line the client writes on in is posted, as a Streamable HTTP
// client would post it, to the proxy itself (served on a loopback port
// of its own, so every fault and record works as over HTTP), and every
// message of the answer is written as a line on out. A
// notifications/cancelled from the client (the stdio cancel) is posted
// too, so the record says how the client cancelled, and then the call's
// request is closed, which closes the upstream request. It returns when
// in ends (the client closed the proxy's stdin: its calls in flight are
// its cancels) or ctx does (the proxy's stop: they are open_at_stop).
func (p *Proxy) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("proxy --stdio: listen on loopback: %w", err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- p.Serve(sctx, ln) }()
	// The client's requests outlive an interrupt until Serve has stopped
	// (its calls in flight are then open_at_stop, not the client's
	// cancels); the client closing stdin cancels them at once.
	bctx, endPosts := context.WithCancel(context.WithoutCancel(ctx))
	defer endPosts()
	b := &bridge{url: "http://" + ln.Addr().String() + "/mcp", out: out, inflight: map[string]context.CancelFunc{}}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		lr := client.NewLineReader(in, MaxBody)
		for {
			line, err := lr.Next()
			if client.IsOversize(err) {
				b.write(rpcError(nil, -32600, fmt.Sprintf("message over %d bytes", MaxBody)))
				continue
			}
			if err != nil {
				readErr <- err
				return
			}
			select {
			case lines <- append([]byte(nil), line...):
			case <-bctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for done := false; !done; {
		select {
		case line := <-lines:
			b.handle(bctx, &wg, line)
		case err := <-readErr:
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("proxy --stdio: read stdin: %w", err)
			} else {
				err = nil
			}
			b.cancelAll()
			wg.Wait()
			stop()
			if serr := <-served; serr != nil {
				return serr
			}
			return err
		case <-ctx.Done():
			done = true
		}
	}
	err = <-served // interrupted: Serve stops first, and ends the calls
	endPosts()
	wg.Wait()
	return err
}

// bridge posts a stdio client's messages to the proxy's HTTP side.
type bridge struct {
	url string
	out io.Writer
	wmu sync.Mutex

	mu       sync.Mutex
	inflight map[string]context.CancelFunc // by the client's id (compact JSON)
	session  string                        // a 2025 session's id
	version  string                        // the 2025 session's protocol version
}

func (b *bridge) write(msg []byte) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if bytes.ContainsAny(msg, "\r\n") {
		var c bytes.Buffer
		if json.Compact(&c, msg) == nil {
			msg = c.Bytes()
		}
	}
	_, _ = b.out.Write(append(append([]byte(nil), msg...), '\n')) // a client gone is the end of stdin too
}

func (b *bridge) cancelAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, cancel := range b.inflight {
		cancel()
	}
}

// handle posts one line: a request in its own goroutine, whose answer is
// written back; a notification at once.
func (b *bridge) handle(ctx context.Context, wg *sync.WaitGroup, line []byte) {
	var m message
	if !json.Valid(line) || json.Unmarshal(line, &m) != nil {
		b.write(rpcError(nil, -32700, "Parse error"))
		return
	}
	switch {
	case m.Method == "":
		return // a response to a server request: none are sent over this bridge
	case len(m.ID) == 0:
		if m.Method == vocab.MethodCancelled {
			var cp struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(m.Params, &cp)
			b.post(ctx, line, &m) // recorded as a cancel by notification first
			b.mu.Lock()
			cancel := b.inflight[compactJSON(cp.RequestID)]
			b.mu.Unlock()
			if cancel != nil {
				cancel()
			}
			return
		}
		b.post(ctx, line, &m)
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	key := compactJSON(m.ID)
	b.mu.Lock()
	b.inflight[key] = cancel
	b.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			b.mu.Lock()
			delete(b.inflight, key)
			b.mu.Unlock()
			cancel()
		}()
		b.post(cctx, line, &m)
	}()
}

// post sends one message and writes every message of the answer.
func (b *bridge) post(ctx context.Context, line []byte, m *message) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(line))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	var meta struct {
		Name string `json:"name"`
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &meta)
	b.mu.Lock()
	session, version := b.session, b.version
	b.mu.Unlock()
	switch {
	case meta.Meta.Version != "": // 2026-07-28: every request says its version
		req.Header.Set(vocab.HeaderProtocolVersion, meta.Meta.Version)
		req.Header.Set(vocab.HeaderMethod, m.Method)
		if meta.Name != "" {
			req.Header.Set(vocab.HeaderName, meta.Name)
		}
	case m.Method != vocab.MethodInitialize && session != "":
		req.Header.Set(vocab.HeaderProtocolVersion, version)
		req.Header.Set(vocab.HeaderSessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == nil && len(m.ID) > 0 {
			b.write(rpcError(m.ID, -32603, "mcpchaos proxy: "+err.Error()))
		}
		return
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get(vocab.HeaderSessionID); sid != "" && m.Method == vocab.MethodInitialize {
		b.mu.Lock()
		b.session = sid
		b.mu.Unlock()
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
		if err == nil && len(body) <= MaxBody && len(bytes.TrimSpace(body)) > 0 && len(m.ID) > 0 {
			b.answered(m, body)
			b.write(bytes.TrimSpace(body))
		}
		return
	}
	sse := client.NewSSEReader(resp.Body, MaxBody)
	for {
		data, err := sse.Next()
		if err != nil {
			return // the end, a cut (disconnect) or a cancel: nothing more to say
		}
		b.answered(m, data)
		b.write(data)
	}
}

// answered notes a 2025 initialize's protocol version.
func (b *bridge) answered(m *message, data []byte) {
	if v := initializeVersion(m, data); v != "" {
		b.mu.Lock()
		b.version = v
		b.mu.Unlock()
	}
}
