package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigAnswerEnv makes the test binary a stdio MCP server written with the
// official Go SDK, whose tool "big" answers with more text than the
// proxy forwards (20 MiB, one line on stdout), and "small" with a word.
const bigAnswerEnv = "MCPCHAOS_PROXY_BIG_ANSWER"

func serveBigAnswer() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "big-answer", Version: "1"}, nil)
	text := func(n int) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", n)}}}, nil
		}
	}
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: map[string]any{"type": "object"}}, text(20<<20))
	s.AddTool(&mcp.Tool{Name: "small", InputSchema: map[string]any{"type": "object"}}, text(5))
	var transport mcp.Transport = &mcp.StdioTransport{}
	if os.Getenv(bigAnswerEnv) == "id-last" {
		transport = &mcp.IOTransport{Reader: os.Stdin, Writer: &idLast{w: os.Stdout}}
	}
	if err := s.Run(context.Background(), transport); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// idLast writes the SDK's messages with a result's "id" member moved to
// the end of its line, as a server whose encoder orders members otherwise
// writes it (JSON members have no order): the proxy cannot read the id of
// such an oversize answer in its first 4 KiB.
type idLast struct {
	w    io.WriteCloser
	line []byte
}

func (l *idLast) Write(p []byte) (int, error) {
	l.line = append(l.line, p...)
	for {
		i := bytes.IndexByte(l.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		out := l.line[:i]
		var m map[string]json.RawMessage
		if json.Unmarshal(out, &m) == nil && m["result"] != nil && m["id"] != nil {
			out = fmt.Appendf(nil, `{"jsonrpc":"2.0","result":%s,"id":%s}`, m["result"], m["id"])
		}
		if _, err := l.w.Write(append(out, '\n')); err != nil {
			return 0, err
		}
		l.line = l.line[i+1:]
	}
}

func (l *idLast) Close() error { return l.w.Close() }

// TestStdioUpstreamAnswerTooLarge: a stdio upstream (an SDK server)
// answers a call with a line over the proxy's 16 MiB: the SDK client gets
// a JSON-RPC error at once (not an empty stream until its own timeout),
// the call is recorded as the upstream's failure (upstream_error, with
// the reason, counted in clients.upstream_errors), never as the client's
// cancel; the upstream's next answer still comes through. Forwarded
// untouched, and rewritten by a fault (delay_response), alike.
func TestStdioUpstreamAnswerTooLarge(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, faults, server string }{
		{"forwarded", "  []\n", "1"},
		{"rewritten", "  - {kind: delay_response, for: 10ms}\n", "1"},
		// The one call in flight owns an oversize answer whose id
		// comes after its first 4 KiB.
		{"id last", "  []\n", "id-last"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			upstream := fmt.Sprintf("{stdio: {command: [%q], env: {%s: %q}}}", self, bigAnswerEnv, tt.server)
			r := serveProxy(t, upstream, "1m", tt.faults)
			cs := sdkSession(t, r.url, "")
			// A proxy that lost the answer leaves the call open for ever
			// (no hold applies to it). Working, the race-built server and
			// proxy take about 25 s to write and skip the 20 MiB on a
			// loaded 2-core machine, more beside busy loops: 30 s was short.
			ctx, cancel := context.WithTimeout(t.Context(), 3*testutil.WaitLong)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "big"})
			if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "larger than 16777216 bytes") {
				t.Fatalf("call big after %s: %v, %v; want the proxy's JSON-RPC error", time.Since(start), res, err)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "small"})
			if err != nil || res.IsError {
				t.Fatalf("call small after big: %v, %v", res, err)
			}
			r.stop()
			sum := r.p.Summary().Clients
			if sum.Calls != 2 || sum.UpstreamErrors != 1 || sum.Cancelled != 0 {
				t.Errorf("summary %+v, want 2 calls, 1 upstream error, none cancelled\n%s", sum, dump(r.p.Records()))
			}
			for _, rec := range r.p.Records() {
				if rec.Tool == "big" && (rec.Reaction != "upstream_error" || !strings.Contains(rec.Error, "larger than 16777216 bytes")) {
					t.Errorf("big recorded %q (%q), want upstream_error with the reason", rec.Reaction, rec.Error)
				}
			}
		})
	}
}
