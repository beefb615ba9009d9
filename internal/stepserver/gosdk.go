package stepserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type workArgs struct {
	Steps  int `json:"steps"`
	StepMs int `json:"step_ms"`
}

// serveGoSDK serves the work tool on the official Go SDK.
func serveGoSDK(c Config, w *worker) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "stepserver-gosdk", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "work", Description: "CPU-bound steps, each logged"},
		func(ctx context.Context, req *mcp.CallToolRequest, in workArgs) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			bg := context.WithoutCancel(ctx)
			text, err := w.run(ctx, tok, in.Steps, in.StepMs, func(n int) {
				if tok != nil {
					_ = req.Session.NotifyProgress(bg, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Total: float64(in.Steps)})
				}
			})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	if c.Transport == "stdio" {
		return srv.Run(context.Background(), &mcp.StdioTransport{})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: !c.Leak})
	return serveHTTP(h)
}

// serveHTTP serves h on a free loopback port and prints its URL.
func serveHTTP(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, h)
}
