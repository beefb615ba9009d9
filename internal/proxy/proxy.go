package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

// MaxBody bounds a client's request body and one message from the
// upstream, as the client's own reader bounds messages.
const MaxBody = 16 << 20

// Proxy is a running proxy's state: its faults, its upstream and the
// records of the calls that went through it.
type Proxy struct {
	file     *scenarios.ProxyFile
	faults   []fault
	upstream *url.URL
	client   *http.Client
	stdio    *stdioUpstream // nil for an HTTP upstream
	sse      *sseUpstream   // the 2024-11-05 HTTP+SSE upstream, or nil
	rec      *recorder
	seq      atomic.Uint64

	stopOnce  sync.Once
	closeOnce sync.Once
	stopping  chan struct{}             // closed when Serve's context ends: held calls end
	stopAt    atomic.Pointer[time.Time] // when it was closed
	handlers  sync.WaitGroup            // Serve's handlers running
}

// stopWait bounds how long Serve waits, once stopped, for its handlers
// to record their calls before it writes what is still open.
const stopWait = 5 * time.Second

// New builds a proxy for a decoded proxy file. It decodes the faults'
// own keys; a problem is a scenarios.Errors entry naming FILE:LINE:COLUMN.
func New(pf *scenarios.ProxyFile) (*Proxy, error) {
	fs, err := newFaults(pf.Faults)
	if err != nil {
		return nil, err
	}
	p := &Proxy{file: pf, faults: fs, rec: newRecorder(), stopping: make(chan struct{})}
	p.rec.cuts.watchFor = pf.Hold.Std()
	switch {
	case pf.Stdio != nil && len(pf.Stdio.Command) > 0:
		p.stdio = newStdioUpstream(pf.Stdio)
		p.upstream = &url.URL{Scheme: "http", Host: "stdio.invalid", Path: "/mcp"} // never dialled
		p.client = &http.Client{Transport: p.stdio}
	case pf.Upstream != nil:
		u, err := url.Parse(pf.Upstream.URL)
		if err != nil {
			return nil, fmt.Errorf("new proxy: upstream url %q: %w", pf.Upstream.URL, err)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		tr.DisableCompression = true // pass bytes through as the upstream wrote them
		p.upstream, p.client = u, &http.Client{Transport: tr}
		switch pf.Upstream.Transport {
		case scenarios.HTTPSSE:
			p.sse = newSSEUpstream(u, tr)
			p.client = &http.Client{Transport: p.sse}
		case "", scenarios.HTTPAuto: // Streamable HTTP, or HTTP+SSE when the server answers that way
			p.sse = newSSEUpstream(u, tr)
			p.client = &http.Client{Transport: &autoUpstream{streamable: tr, sse: p.sse}}
		}
	default:
		return nil, errors.New("new proxy: no upstream")
	}
	return p, nil
}

// Upstream names the upstream: its URL, or "stdio: COMMAND...".
func (p *Proxy) Upstream() string {
	if p.stdio != nil {
		return fmt.Sprintf("stdio: %q", p.file.Stdio.Command)
	}
	return p.upstream.String()
}

// CheckUpstream dials an HTTP upstream's host once, so an unreachable
// upstream is an error before the proxy listens; it starts a stdio
// upstream (Serve stops it).
func (p *Proxy) CheckUpstream(ctx context.Context) error {
	if p.stdio != nil {
		return p.stdio.start()
	}
	host := p.upstream.Host
	if p.upstream.Port() == "" {
		port := "80"
		if p.upstream.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(p.upstream.Hostname(), port)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("check upstream %q: %w", p.upstream.String(), err)
	}
	return c.Close()
}

// Serve serves the proxy on ln until ctx ends. Then it ends every
// request (each call in flight is recorded open_at_stop, not as a
// client's cancel), waits up to stopWait for the handlers to return,
// closes every connection, and writes the calls still open, as
// open_at_stop: once Serve returns, the summary and --output agree.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", p)
	newSSEFront(p).register(mux) // the 2024-11-05 HTTP+SSE transport: /sse and /messages
	base, endRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer endRequests()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.handlers.Add(1)
			defer p.handlers.Done()
			mux.ServeHTTP(w, r)
		})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("proxy: serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	p.stopOnce.Do(func() {
		now := time.Now()
		p.stopAt.Store(&now) // before any request ends: see stopFirst
		close(p.stopping)
	})
	endRequests()
	sctx, cancel := context.WithTimeout(context.Background(), stopWait)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	waitBounded(&p.handlers, time.Second) // after Close, a handler still ending
	p.rec.flush()
	p.Close()
	return nil
}

// waitBounded waits for wg, at most d.
func waitBounded(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Close stops a stdio upstream and closes an HTTP+SSE upstream's
// sessions (Serve does it when it returns); it does nothing for a
// Streamable HTTP upstream, or the second time.
func (p *Proxy) Close() {
	if p.stdio != nil {
		p.closeOnce.Do(p.stdio.stop)
	}
	if p.sse != nil {
		p.closeOnce.Do(p.sse.stop)
	}
}

// Records returns the records of the latest 1024 calls, in arrival
// order (open ones included): for tests and a look at a running proxy;
// SetOutput gets every record.
func (p *Proxy) Records() []CallRecord { return p.rec.records() }

// Summary aggregates the records.
func (p *Proxy) Summary() *report.ProxySummary {
	return &report.ProxySummary{Name: p.file.Name, Seed: p.file.Seed, Listen: p.file.Listen,
		Clients: p.rec.summary(), Faults: p.rec.injected()}
}

// message is the part of a JSON-RPC message the proxy reads.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// isResponse reports whether m is the final response to a request.
func (m *message) isResponse() bool {
	return m.Method == "" && len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0)
}

// callParams are the tools/call parameters the proxy reads.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// ServeHTTP serves /mcp: a POST is read (bounded) and looked at, then
// forwarded or handled as a call; GET and DELETE (the 2025 session's
// stream and its end) are forwarded as they are.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
		p.forward(w, r, nil)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeRPCError(w, http.StatusMethodNotAllowed, nil, -32600, "method "+r.Method+" not allowed")
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		writeRPCError(w, http.StatusBadRequest, nil, -32700, "Parse error")
		return
	}
	var m message
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &m) != nil {
		p.forward(w, r, body) // a batch or something odd: the upstream answers it
		return
	}
	switch m.Method {
	case vocab.MethodToolsCall:
		var cp callParams
		if len(m.ID) == 0 || json.Unmarshal(m.Params, &cp) != nil || cp.Name == "" {
			p.forward(w, r, body) // malformed: the upstream's error is the one to see
			return
		}
		p.call(w, r, body, &m, &cp)
	case vocab.MethodCancelled:
		var cp struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &cp) == nil && len(cp.RequestID) > 0 {
			p.rec.cancelled(p.clientOf(r), cp.RequestID, time.Now())
		}
		p.forward(w, r, body)
	default:
		p.forward(w, r, body)
	}
}

// readBody reads a client's request body, at most MaxBody bytes; when
// it cannot, it answers the request with the JSON-RPC error and says so.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, -32600, fmt.Sprintf("request body over %d bytes", MaxBody))
			return nil, false
		}
		writeRPCError(w, http.StatusBadRequest, nil, -32700, "read request body: "+err.Error())
		return nil, false
	}
	return body, true
}

// draw makes the faults' random choices for call seq: each draws from
// the call's own source (the file's seed and seq), in the file's order.
func (p *Proxy) draw(seq uint64, tool string) plan {
	rng := rand.New(rand.NewPCG(uint64(p.file.Seed), seq))
	var pl plan
	for _, f := range p.faults {
		hit := f.draw(rng, tool)
		after := f.after(rng)
		if hit {
			f.effect.apply(&pl, after)
			pl.kinds = append(pl.kinds, f.kind)
		}
	}
	return pl
}

// writeRPCError answers with a JSON-RPC error, as a server would.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
