package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Config configures a Client. The zero value of every optional field is
// the default.
type Config struct {
	// Exactly one of HTTP and Stdio.
	HTTP  *HTTPConfig
	Stdio *StdioConfig

	// Protocol forces an era; "" detects it (server/discover first, then
	// initialize when the answer says the server is legacy).
	Protocol Era
	// MaxMessageBytes bounds every message read; default 16 MiB.
	MaxMessageBytes int
	// ClientInfo is sent in _meta (2026) or initialize (2025).
	ClientInfo Implementation
	// ProbeTimeout bounds the era probe and the handshake; default 5 s.
	ProbeTimeout time.Duration
	// LateWindow is how long a call's stream (HTTP) or id (stdio) is still
	// watched after its final response or our cancel, to see late messages;
	// default 1 s.
	LateWindow time.Duration
	// CutLateWindow is the late window of a call we cancelled or aborted,
	// when longer (a caller that counts a message as leftover work only
	// past a grace longer than LateWindow must still see it); default
	// LateWindow.
	CutLateWindow time.Duration
	// IDs hands out request ids; share one across the clients of a run so
	// ids and progress tokens are never reused. nil: the client's own.
	IDs *IDSource
	// ParamHeaders, when set, makes every tools/call on 2026 Streamable
	// HTTP carry the Mcp-Param-* headers its tool's inputSchema asks for
	// (x-mcp-header); the first such client to Dial fills it from
	// tools/list. Share one across the clients of a run.
	ParamHeaders *ParamHeaders
	// Capabilities is the ClientCapabilities object the client declares:
	// in every 2026 request's _meta, in a 2025 initialize; nil: {}.
	Capabilities []byte
	// Answerer answers a 2025 server's input requests (input.go); nil:
	// none is answered (each is method-not-found).
	Answerer InputAnswerer
	// OnStaleAnswer, when set, is called with the marker (MarkerMeta) of
	// each result that arrives after its call's late window, and when it
	// was read (staleecho.go). It must not block.
	OnStaleAnswer func(marker string, at time.Time)
}

// HTTPConfig is a Streamable HTTP endpoint.
type HTTPConfig struct {
	URL    string
	Header map[string]string
	// DialTimeout bounds connecting; default 5 s.
	DialTimeout time.Duration
	// MaxIdleConns bounds the keep-alive pool; default 10000.
	MaxIdleConns int
	// TLS configures https:// URLs; nil: system roots, the URL's host.
	TLS *TLSOptions
	// NoGetStream keeps a 2025 session from opening the standalone GET
	// stream (httpget.go), which it opens by default.
	NoGetStream bool
	// HTTP2 is HTTP2Auto (""): offer h2 on ALPN to https:// servers and
	// speak HTTP/2 when the server picks it; or HTTP2Off: HTTP/1.1 only.
	HTTP2 string
	// Transport is TransportAuto (""): Streamable HTTP, falling back to
	// the 2024-11-05 HTTP+SSE transport when the URL answers that way;
	// TransportStreamable; or TransportSSE.
	Transport string
}

// The HTTP transports of HTTPConfig.Transport.
const (
	TransportAuto       = "auto"
	TransportStreamable = "streamable"
	TransportSSE        = "sse"
)

// StdioConfig is a server started as a subprocess.
type StdioConfig struct {
	Command []string
	// Env is added to the inherited environment ("K=V").
	Env []string
	Dir string
	// StderrBytes is the size of the ring that keeps the server's stderr;
	// default 64 KiB.
	StderrBytes int
	// StderrTap, when set, is called for each process started; what the
	// process writes on stderr is also written, in order, to the writer it
	// returns (by the goroutine that copies stderr: it must not block).
	StderrTap func() io.Writer
	// WriteTimeout bounds one write to the server's stdin; default 10 s.
	WriteTimeout time.Duration
	// ExitTimeout is how long Close waits after closing stdin before it
	// signals the process; default 2 s.
	ExitTimeout time.Duration
}

// IDSource hands out request ids, 1, 2, 3, ... (or, from
// NewShuffledIDs, the same numbers out of order; see ids.go).
type IDSource struct {
	n  atomic.Int64
	sh *shuffler
}

// Next returns a new id.
func (s *IDSource) Next() int64 {
	if s.sh != nil {
		return s.sh.next(&s.n)
	}
	return s.n.Add(1)
}

// issued reports whether id may have been handed out: it is at most the
// highest id handed out (for a shuffled source, the end of the block).
func (s *IDSource) issued(id int64) bool { return id > 0 && id <= s.n.Load() }

// Client speaks MCP to one server over one transport, in one era.
type Client struct {
	cfg        Config
	era        Era
	ids        *IDSource
	tr         transport
	clientInfo []byte // encoded Implementation
	tasksOnce  sync.Once
	tasksCaps  []byte // capabilities with the tasks extension
	server     Implementation
	discover   *DiscoverResult
	initStatus int // the HTTP status of the initialize answer
	stats      connStats
	// inputAnswering bounds the 2025 input answers waiting to be sent
	// (input.go); its limit is MaxInputAnswering.
	inputAnswering ServerAnswers
	closeOnce      sync.Once
	fenced         fenceMark   // the latest answered fence (fence.go)
	listenRefused  atomic.Bool // no task status streams here (listen.go)
}

// transport is what the HTTP and stdio transports do for a Client.
type transport interface {
	name() string
	start(ctx context.Context, call *Call) error
	wait(call *Call)
	cancel(call *Call, reason string, notify bool) error
	abort(call *Call, mode AbortMode) error
	pause(call *Call, on bool)
	notify(ctx context.Context, method string, body []byte) error
	close(ctx context.Context) error
}

const (
	defaultMaxMessage = 16 << 20
	defaultProbe      = 5 * time.Second
	defaultLate       = time.Second
)

// Dial connects to a server (starting it, for stdio), settles the era and,
// for a legacy server, completes the initialize handshake.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if (cfg.HTTP == nil) == (cfg.Stdio == nil) {
		return nil, errors.New("mcp dial: configure exactly one of HTTP and Stdio")
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = defaultMaxMessage
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = defaultProbe
	}
	if cfg.LateWindow <= 0 {
		cfg.LateWindow = defaultLate
	}
	cfg.CutLateWindow = max(cfg.CutLateWindow, cfg.LateWindow)
	if cfg.ClientInfo.Name == "" {
		cfg.ClientInfo = Implementation{Name: "mcpchaos", Version: "dev"}
	}
	c := &Client{cfg: cfg, ids: cfg.IDs}
	c.inputAnswering.limit, c.inputAnswering.stop = MaxInputAnswering, make(chan struct{})
	if c.ids == nil {
		c.ids = new(IDSource)
	}
	c.clientInfo, _ = json.Marshal(cfg.ClientInfo)
	var err error
	if cfg.HTTP != nil {
		c.tr, err = dialHTTP(ctx, c, cfg.HTTP)
	} else {
		c.tr, err = startStdio(ctx, c, cfg.Stdio)
	}
	if err != nil {
		return nil, err
	}
	if err := c.negotiate(ctx); err != nil {
		st, stdio := c.tr.(*stdioTransport)
		alone := stdio && st.exitedAlone()
		_ = c.tr.close(context.Background())
		if stdio {
			err = st.explain(err, alone)
		}
		return nil, err
	}
	if h, ok := c.tr.(*httpTransport); ok && !c.era.Modern() && !cfg.HTTP.NoGetStream {
		h.startListening() // a 2025 session's standalone GET stream (httpget.go)
	}
	if p := cfg.ParamHeaders; p != nil && c.era.Modern() && c.tr.name() == "http" {
		lctx, cancel := WithBound(ctx, cfg.ProbeTimeout)
		p.learn(lctx, c)
		cancel()
	}
	return c, nil
}

// Era returns the protocol revision in use.
func (c *Client) Era() Era { return c.era }

// Transport returns "http" or "stdio".
func (c *Client) Transport() string { return c.tr.name() }

// HTTPVersion returns the HTTP version of the client's requests,
// "HTTP/2" or "HTTP/1.1"; "" on stdio.
func (c *Client) HTTPVersion() string {
	switch t := c.tr.(type) {
	case *httpTransport:
		return t.httpVersion()
	case *sseTransport:
		return "HTTP/1.1"
	}
	return ""
}

// Server returns the server's self-reported name and version.
func (c *Client) Server() Implementation { return c.server }

// Discover returns the server/discover answer, or nil if there was none.
func (c *Client) Discover() *DiscoverResult { return c.discover }

// Stats returns the connection-level observations so far.
func (c *Client) Stats() Stats { return c.stats.snapshot() }

// Close ends the client: a legacy HTTP session is deleted; a stdio server's
// stdin is closed, and the process is signalled if it does not exit.
func (c *Client) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		if c.inputAnswering.stop != nil {
			close(c.inputAnswering.stop) // answers still thinking are dropped
		}
	})
	return c.tr.close(ctx)
}

// retryMembers encodes the members a 2026 retry adds to the call's params.
func retryMembers(req CallRequest) []byte {
	var b []byte
	if len(req.InputResponses) > 0 {
		b = append(b, `"inputResponses":`...)
		b = append(b, req.InputResponses...)
	}
	if len(req.RequestState) > 0 {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"requestState":`...)
		b = append(b, req.RequestState...)
	}
	return b
}

// capabilities is the ClientCapabilities object the client declares.
// tasksCapabilities is capabilities with the tasks extension declared.
func (c *Client) tasksCapabilities() []byte {
	c.tasksOnce.Do(func() { c.tasksCaps = tasksCapabilities(c.capabilities()) })
	return c.tasksCaps
}

func (c *Client) capabilities() []byte {
	if len(c.cfg.Capabilities) == 0 {
		return []byte(`{}`)
	}
	return c.cfg.Capabilities
}

// Start sends a tools/call and returns its handle. The call's events go to
// req.Observer. An error means the request could not be sent.
func (c *Client) Start(ctx context.Context, req CallRequest) (*Call, error) {
	call := c.newCallID(req.ReuseID, vocab.MethodToolsCall, req.Tool, req.Observer)
	call.malform = req.Malform
	if req.Progress {
		call.tok = call.id
	}
	call.body = c.appendCallBody(make([]byte, 0, 384+len(req.Arguments)), call.id, req.Tool, req.Arguments, call.tok, req.Marker, req.Malform, req.MalformSize, retryMembers(req), req.Task)
	if req.Malform == MalformNone {
		call.headers = c.paramHeaders(req.Tool, req.Arguments)
	}
	if err := c.tr.start(ctx, call); err != nil {
		return nil, err
	}
	return call, nil
}

func (c *Client) newCall(method, name string, obs Observer) *Call {
	return c.newCallID(0, method, name, obs)
}

// newCallID is newCall with the id given (a retry under the same id,
// CallRequest.ReuseID); 0 takes a new one.
func (c *Client) newCallID(id int64, method, name string, obs Observer) *Call {
	if id <= 0 {
		id = c.ids.Next()
	}
	return &Call{c: c, id: id, method: method, name: name, obs: obs, done: make(chan struct{})}
}

// Notify sends a client notification whose params are already encoded
// (background faults flood servers with these).
func (c *Client) Notify(ctx context.Context, method string, params []byte) error {
	body := rpcmsg.AppendNotification(nil, method, params)
	return c.tr.notify(ctx, method, body)
}

// ToolResult is the outcome of CallTool.
type ToolResult struct {
	Result Result
	// Raw is the whole result object.
	Raw json.RawMessage
}

// CallTool calls a tool and waits for its result (for probes and tests,
// not for load: it keeps the whole result).
func (c *Client) CallTool(ctx context.Context, tool string, args json.RawMessage) (ToolResult, error) {
	var members []byte
	members = append(members, `"name":`...)
	members = rpcmsg.AppendString(members, tool)
	if len(args) > 0 {
		members = append(members, `,"arguments":`...)
		members = append(members, args...)
	}
	r := c.roundTripHeaders(ctx, vocab.MethodToolsCall, tool, members, metaOptions{modern: c.era.Modern()}, c.paramHeaders(tool, args))
	if err := r.failure("tools/call " + tool); err != nil {
		return ToolResult{}, err
	}
	var out ToolResult
	out.Raw = r.result
	var sc scanner
	if err := decodeCallResult(&sc, r.result, &out.Result); err != nil {
		return out, fmt.Errorf("tools/call %s: %w", tool, err)
	}
	out.Result.Text = append([]byte(nil), out.Result.Text...)
	return out, nil
}
