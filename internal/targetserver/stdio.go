package targetserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shutdownKey carries, in a stdio session's context, a channel closed when
// ServeStdio's context is done, so running calls stop on shutdown. (The SDK
// keeps a session context's values in every handler context, but not its
// cancellation.)
type shutdownKey struct{}

// ServeStdio serves MCP as newline-delimited JSON on in and out, both eras on
// one session: server/discover for 2026-07-28, initialize for the legacy
// revisions. It returns when in reaches EOF (after Config.ExitDelay) or when
// ctx is done (at once, stopping every call of this session). The SDK
// cancels the calls still running at EOF.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	lw := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	defer pr.Close()
	tag := s.tagger()
	var sdkOut io.Writer = lw
	runCtx := context.WithValue(ctx, shutdownKey{}, ctx.Done())
	if s.cfg.ProgressAfterResponse {
		conn := &answerConn{}
		defer s.answers.forget(conn)
		tag = s.watchStdioCalls(conn, tag)
		sdkOut = answerWriter{w: lw, watch: &s.answers, conn: conn}
		runCtx = context.WithValue(runCtx, answerConnKey{}, conn)
	}
	listens := s.newStdioListens(runCtx, lw)
	defer listens.stop()
	go filterLines(in, pw, lw, tag, listens.take)
	t := &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{sdkOut}}
	srv := s.newMCPServer(nil, true)
	err := srv.Run(runCtx, t)
	if ctx.Err() != nil {
		return nil // asked to stop
	}
	// A client that closed its end of stdout has gone, as much as one that
	// closed stdin: a normal end, whatever the server was still writing
	// (a late cancel's answer, progress after a stop delay).
	if err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("serve stdio: %w", err)
	}
	if d := s.cfg.ExitDelay; d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	return nil
}

// nopWriteCloser keeps the session from closing the caller's writer.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// rateLimitMiddleware applies the limits (limiter.go) to a tools/call:
// one over them is refused (refuse.go: a JSON-RPC error with
// data.retryAfter, or an isError result), one accepted waits for a worker
// when there are workers. Other methods and the inflight probe pass.
func (s *Server) rateLimitMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != vocab.MethodToolsCall {
			return next(ctx, method, req)
		}
		p, _ := req.GetParams().(*mcp.CallToolParamsRaw)
		tool := ""
		if p != nil {
			tool = p.Name
		}
		a := s.admit(ctx, tool)
		if !a.refused {
			defer a.release()
			return next(ctx, method, req)
		}
		s.metrics.throttled.Add(1)
		ra, hint := s.retryHint(a.wait)
		if p != nil {
			if marker, _ := p.Meta[results.MarkerMeta].(string); marker != "" {
				id, _ := json.Marshal(p.Meta[requestIDMeta])
				era, _ := p.Meta[vocab.MetaProtocolVersion].(string)
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && era == "" && ss.InitializeParams() != nil {
					era = ss.InitializeParams().ProtocolVersion
				}
				s.throttledCall(marker, string(id), p.Name, era, "stdio", ra)
			}
		}
		s.delayRefusal(ctx)
		return s.refuseStdio(ra, hint)
	}
}
