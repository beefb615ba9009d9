package stepserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// serveMCPGo serves the work tool on mark3labs/mcp-go (a stateful
// Streamable HTTP server, so that a notifications/cancelled POST of the
// session reaches the request).
func serveMCPGo(c Config, w *worker) error {
	srv := server.NewMCPServer("stepserver-mcpgo", "1")
	tool := mcp.NewTool("work", mcp.WithDescription("CPU-bound steps, each logged"),
		mcp.WithNumber("steps"), mcp.WithNumber("step_ms"))
	srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var tok mcp.ProgressToken
		if req.Params.Meta != nil {
			tok = req.Params.Meta.ProgressToken
		}
		steps := req.GetInt("steps", 1)
		bg := context.WithoutCancel(ctx)
		s := server.ServerFromContext(ctx)
		text, err := w.run(ctx, tok, steps, req.GetInt("step_ms", 1), func(n int) {
			if tok != nil && s != nil {
				_ = s.SendNotificationToClient(bg, vocab.MethodProgress,
					map[string]any{"progressToken": tok, "progress": n, "total": steps})
			}
		})
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(text), nil
	})
	if c.Transport == "stdio" {
		return server.ServeStdio(srv)
	}
	return serveHTTP(server.NewStreamableHTTPServer(srv))
}
