package targetserver

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerName and ServerVersion identify the target in serverInfo.
const (
	ServerName    = "mcpchaos-target"
	ServerVersion = "0.1.0"
)

// Server is the built-in target: MCP tools with misbehaviour knobs, the
// transports that serve them, and the ground-truth metrics. One Server may
// serve HTTP and stdio at the same time; all of them share its counters and
// its rate limit.
type Server struct {
	cfg     Config
	metrics *metrics
	limiter limiter // nil when there is no rate limit
	// refusalSink keeps refusal_work's burn from being optimised away.
	refusalSink atomic.Uint64
	// perTool holds each tool's and each client's own limiter
	// (rate_limit_per_tool, rate_limit_key).
	perToolMu sync.Mutex
	perTool   map[string]limiter
	slots     *slots        // nil without concurrency_limit
	workers   chan struct{} // nil without workers: one token per running call
	calls     *callLog      // nil unless log_calls is set
	truth     *truthLog
	answers   answerWatch // progress_after_response: calls waiting for their answer to be written
	tasks     taskStore   // the tasks knob

	callSeq atomic.Uint64 // numbers calls, to seed each call's random draws
	shedSeq atomic.Uint64 // numbers requests, to seed the load_shed draws

	closing   chan struct{} // closed by Close: every running call stops
	closeOnce sync.Once

	handler http.Handler // /mcp and /metrics
}

// New returns a Server for cfg, or the error of cfg.Validate.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new target: %w", err)
	}
	calls, err := openCallLog(cfg.LogCalls)
	if err != nil {
		return nil, fmt.Errorf("new target: %w", err)
	}
	s := &Server{
		cfg:     cfg,
		metrics: newMetrics(),
		limiter: newLimiter(cfg),
		calls:   calls,
		truth:   newTruthLog(TruthCapacity),
		closing: make(chan struct{}),
	}
	// Before the handler, which is built only with the limits it needs.
	if cfg.ConcurrencyLimit > 0 {
		s.slots = &slots{cap: cfg.ConcurrencyLimit}
	}
	if cfg.Workers > 0 {
		s.workers = make(chan struct{}, cfg.Workers)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.mcpHandler())
	mux.Handle("/metrics", s.MetricsHandler())
	mux.Handle("/calls", s.CallsHandler())
	s.handler = mux
	return s, nil
}

// Config returns the configuration the Server runs with.
func (s *Server) Config() Config { return s.cfg }

// Handler serves Streamable HTTP on /mcp, Prometheus metrics on /metrics
// and the truth records on /calls.
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves the ground-truth metrics in the Prometheus text
// format.
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }

// Stats returns the ground-truth counters as they are now.
func (s *Server) Stats() Stats { return s.metrics.snapshot() }

// Close stops every call still running, leaked ones included. The Server
// must not serve new calls afterwards.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		s.tasks.closeAll()
		err = s.calls.close()
	})
	return err
}

// capabilities are the ones the target declares, in initialize and
// server/discover alike: the SDK's default (logging), tools, and prompts,
// because the SDK answers prompts/list (with no prompts) whether or not
// any are registered, and a server must declare what it answers. Neither
// list ever changes, so neither declares listChanged (the SDK's inferred
// default would promise notifications that never come).
// With the tasks knob it also declares the tasks extension.
func (s *Server) capabilities() *mcp.ServerCapabilities {
	//lint:ignore SA1019 logging is deprecated from 2026-07-28 only; the target serves 2025 clients too
	c := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{},
		Prompts: &mcp.PromptCapabilities{}}
	if s.cfg.Tasks {
		c.AddExtension(TasksExtension, nil)
	}
	return c
}

// newMCPServer builds an SDK server with the tools registered. versions, if
// not empty, narrows the protocol versions it negotiates. A stdio server also
// gets the rate limit as receiving middleware (HTTP limits in front of the
// SDK, with a 429).
func (s *Server) newMCPServer(versions []string, stdio bool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: ServerVersion},
		&mcp.ServerOptions{SupportedProtocolVersions: versions, Capabilities: s.capabilities()})
	s.addTools(srv)
	if s.cfg.Tasks {
		s.addTasks(srv)
	}
	if stdio {
		srv.AddReceivingMiddleware(metaMiddleware)
	}
	if stdio && s.limits() {
		srv.AddReceivingMiddleware(s.rateLimitMiddleware)
	}
	return srv
}
