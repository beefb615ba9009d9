package targetserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPeek bounds how much of a POST body the rate limiter reads to find the
// JSON-RPC method; the rest is passed on unread.
const maxPeek = 1 << 20

// disconnectKey marks, in a stateless request's context, the HTTP request's
// own Done channel. The SDK builds a tool handler's context from the request
// context, so the value reaches the handler even when the cancel does not.
type disconnectKey struct{}

type disconnect struct {
	done       <-chan struct{}
	propagated bool // the SDK cancels the handler itself on a disconnect
}

// mcpHandler builds the /mcp handler for the configured era, with the rate
// limit in front.
func (s *Server) mcpHandler() http.Handler {
	era := s.cfg.EraOrDefault()
	var versions []string
	if era == Era2026 {
		versions = []string{vocab.FirstModern}
	}
	srv := s.newMCPServer(versions, false)
	getServer := func(*http.Request) *mcp.Server { return srv }
	stateless := s.markDisconnect(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: !s.cfg.NoPropagateCancel,
	}))
	stateful := mcp.NewStreamableHTTPHandler(getServer, nil)

	var h http.Handler
	switch era {
	case Era2026:
		h = stateless
	case Era2025:
		h = stateful
	default:
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isModern(r) {
				stateless.ServeHTTP(w, r)
			} else {
				stateful.ServeHTTP(w, r)
			}
		})
	}
	if s.cfg.XAccelBuffering {
		h = accelBuffering(h)
	}
	if s.cfg.ProgressAfterResponse {
		h = s.watchHTTPCalls(h)
	}
	return refuseOversize(s.rateLimitHTTP(s.tagHTTP(s.taskNameHTTP(s.listenHTTP(h)))))
}

// refuseOversize answers a POST whose Content-Length is over the SDK's body
// limit with 413 before reading any of the body, as a careful server does:
// the SDK alone reads up to its limit first, which under the race detector
// on a busy machine took seconds per request.
func refuseOversize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.ContentLength > mcp.DefaultMaxRequestBodyBytes {
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mcp.DefaultMaxRequestBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isModern reports whether r declares protocol revision 2026-07-28 or later
// (a request without the header speaks 2025-03-26, vocab.HeaderRevision).
func isModern(r *http.Request) bool {
	return vocab.IsModern(vocab.HeaderRevision(r.Header.Get(vocab.HeaderProtocolVersion)))
}

// markDisconnect puts the request's Done channel into its context, so a tool
// can tell when the client went away although the SDK did not cancel it.
func (s *Server) markDisconnect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := disconnect{done: r.Context().Done(), propagated: isModern(r) && !s.cfg.NoPropagateCancel}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), disconnectKey{}, d)))
	})
}

// rateLimitHTTP applies the limits (limiter.go) to a tools/call: one
// over them is refused with the configured signal (refuse.go), one
// accepted waits for a worker when there are workers. Other methods, and
// the inflight probe tool, are never limited.
func (s *Server) rateLimitHTTP(next http.Handler) http.Handler {
	if !s.limits() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		id, peek, limited := peekToolCall(r)
		if !limited {
			s.limitRequest(w, r, next)
			return
		}
		a := s.admit(s.withWho(r), peek.Params.Name)
		if !a.refused {
			defer a.release()
			next.ServeHTTP(w, r)
			return
		}
		s.metrics.throttled.Add(1)
		ra, hint := s.retryHint(a.wait)
		if marker := peek.Params.Meta[results.MarkerMeta]; marker != "" {
			era := r.Header.Get(vocab.HeaderProtocolVersion)
			if v := peek.Params.Meta[vocab.MetaProtocolVersion]; v != "" {
				era = v
			}
			s.throttledCall(marker, string(id), peek.Params.Name, era, "http", ra)
		}
		s.delayRefusal(r.Context())
		s.refuseHTTP(w, id, isModern(r), ra, hint, a.wait)
	})
}

// rpcPeek is the part of a JSON-RPC message the rate limiter looks at.
type rpcPeek struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
		// Meta keeps the string members of _meta (the marker, the version).
		Meta map[string]string `json:"-"`
		// RawMeta is _meta as sent.
		RawMeta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// peekToolCall reads up to maxPeek bytes of r's body, puts them back, and
// reports whether the body is a tools/call that the rate limit applies to,
// with its id (null when unknown) and what was read of it. When the body
// cannot be parsed, the Mcp-Method header decides.
func peekToolCall(r *http.Request) (id json.RawMessage, peek rpcPeek, limited bool) {
	id = json.RawMessage("null")
	head, err := peekBody(r)
	if err != nil {
		return id, peek, false
	}
	var msgs []rpcPeek
	var one rpcPeek
	if json.Unmarshal(head, &one) == nil {
		msgs = []rpcPeek{one}
	} else if json.Unmarshal(head, &msgs) != nil {
		return id, peek, r.Header.Get(vocab.HeaderMethod) == vocab.MethodToolsCall && r.Header.Get(vocab.HeaderName) != ToolInflight
	}
	for _, m := range msgs {
		if m.Method == vocab.MethodToolsCall && m.Params.Name != ToolInflight {
			if len(msgs) == 1 && len(m.ID) > 0 {
				id = m.ID
			}
			m.Params.Meta = map[string]string{}
			for k, v := range m.Params.RawMeta {
				var str string
				if json.Unmarshal(v, &str) == nil {
					m.Params.Meta[k] = str
				}
			}
			return id, m, true
		}
	}
	return id, peek, false
}

// peekBody reads up to maxPeek bytes of r's body and puts them back.
func peekBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, io.EOF
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	return head, err
}

// Running is a target serving HTTP on a loopback (or chosen) address.
type Running struct {
	Server     *Server
	Addr       string // host:port it listens on
	URL        string // the MCP endpoint, http://ADDR/mcp
	MetricsURL string // http://ADDR/metrics

	srv       *http.Server
	served    chan error
	closeOnce sync.Once
	closeErr  error
	stop      func() bool
}

// StartHTTP starts a target for cfg listening on addr ("" = 127.0.0.1 on a
// free port). It stops when ctx is done or Close is called.
func StartHTTP(ctx context.Context, cfg Config, addr string) (*Running, error) {
	return StartHTTPS(ctx, cfg, addr, nil)
}

// StartHTTPS is StartHTTP over TLS with cert (nil: plain HTTP): HTTP/2 or
// HTTP/1.1, as the client picks on ALPN; the URLs are https://.
func StartHTTPS(ctx context.Context, cfg Config, addr string, cert *tls.Certificate) (*Running, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("start target: listen on %q: %w", addr, err)
	}
	bound := ln.Addr().String()
	scheme := "http://"
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	if cert != nil {
		scheme = "https://"
		srv.TLSConfig = serverTLS(*cert)
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetHTTP2(true)
		if cfg.H2MaxStreams > 0 {
			srv.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: cfg.H2MaxStreams}
		}
	}
	r := &Running{
		Server:     s,
		Addr:       bound,
		URL:        scheme + bound + "/mcp",
		MetricsURL: scheme + bound + "/metrics",
		srv:        srv,
		served:     make(chan error, 1),
	}
	go func() {
		var err error
		if cert != nil {
			err = r.srv.ServeTLS(ln, "", "") // the certificate is in TLSConfig
		} else {
			err = r.srv.Serve(ln)
		}
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		r.served <- err
		close(r.served)
	}()
	r.stop = context.AfterFunc(ctx, func() { r.Close() })
	return r, nil
}

// Wait blocks until the target stops serving and returns why (nil after
// Close).
func (r *Running) Wait() error { return <-r.served }

// Close stops every call, lets answers in flight finish for up to a second,
// then closes every connection.
func (r *Running) Close() error {
	r.closeOnce.Do(func() {
		r.stop()
		r.Server.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := r.srv.Shutdown(ctx); err != nil {
			r.closeErr = r.srv.Close()
		}
	})
	return r.closeErr
}
