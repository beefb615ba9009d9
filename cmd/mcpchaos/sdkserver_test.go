package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// Servers written with the official Go SDK the way a server author would,
// for tools, init and the pre-run check: in process over loopback HTTP
// (stateless: 2026-07-28; with sessions: 2025), and over stdio in a
// subprocess (this test binary, re-executed with sdkStdioEnv set).
// Their schemas are explicit, and the SDK validates every call's
// arguments against them, so arguments mcpchaos makes are judged by
// another validator than its own. Two tools a page: tools/list has pages.

const sdkStdioEnv = "MCPCHAOS_CMD_SDK_STDIO"

const (
	searchSchema = `{"type":"object","required":["query"],"additionalProperties":false,"properties":{
		"query":{"type":"string","minLength":2,"description":"what to look for"},
		"limit":{"type":"integer","minimum":1,"maximum":50},
		"mode":{"type":"string","enum":["fast","exact"]}}}`
	longJobSchema = `{"type":"object","required":["seconds"],"properties":{
		"seconds":{"type":"number","minimum":0.05,"maximum":2},
		"steps":{"type":"integer","default":5,"minimum":1,"description":"progress notifications, one a step"}}}`
	whenSchema = `{"type":"object","required":["at","tz"],"properties":{
		"at":{"type":"string","format":"date-time"},"tz":{"type":"string","examples":["Europe/Paris"]}}}`
)

type longJobArgs struct {
	Seconds float64 `json:"seconds"`
	Steps   int     `json:"steps"`
}

func newCmdSDKServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "cmd-sdk-server", Version: "2.0.1"}, &sdk.ServerOptions{PageSize: 2})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "search", Description: "Searches the documents.", InputSchema: rawSchema(searchSchema)},
		func(_ context.Context, _ *sdk.CallToolRequest, in map[string]any) (*sdk.CallToolResult, any, error) {
			return text(fmt.Sprint("found ", in["query"])), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "long_job", Title: "A long job", Description: "Runs for `seconds`, reporting progress after each step.", InputSchema: rawSchema(longJobSchema)},
		func(ctx context.Context, req *sdk.CallToolRequest, in longJobArgs) (*sdk.CallToolResult, any, error) {
			steps := max(in.Steps, 1)
			step := time.Duration(in.Seconds * float64(time.Second) / float64(steps))
			for i := 1; i <= steps; i++ {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(step):
				}
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(steps)})
				}
			}
			return text("done"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "when", Description: "Formats a time.", InputSchema: rawSchema(whenSchema)},
		func(_ context.Context, _ *sdk.CallToolRequest, in map[string]any) (*sdk.CallToolResult, any, error) {
			return text(fmt.Sprint(in["at"], " in ", in["tz"])), nil, nil
		})
	destructive := true
	sdk.AddTool(s, &sdk.Tool{Name: "wipe", Description: "Deletes everything.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive},
		InputSchema: rawSchema(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, any, error) {
			return text("wiped"), nil, nil
		})
	return s
}

// rawSchema decodes a schema for the SDK's Tool.InputSchema.
func rawSchema(s string) any {
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

// sdkHTTP serves the SDK server over loopback HTTP: stateless (a
// 2026-07-28 server) or with sessions (a 2025 one).
func sdkHTTP(t *testing.T, stateless bool) string {
	t.Helper()
	srv := newCmdSDKServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: stateless, PropagateRequestCancellation: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// serveSDKStateless serves s over loopback HTTP without sessions (a
// 2026-07-28 server) until the test ends, and returns its /mcp URL.
func serveSDKStateless(t *testing.T, s *sdk.Server) string {
	t.Helper()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// sdkStdioCommand is the command that runs the SDK server over stdio.
func sdkStdioCommand(t *testing.T) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"env", sdkStdioEnv + "=1", self}
}

// serveSDKStdio runs the SDK server on stdin/stdout (the re-executed test
// binary).
func serveSDKStdio() int {
	if err := newCmdSDKServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// builtinHTTP starts the built-in target in process; its Stats are what
// its /metrics page says.
func builtinHTTP(t *testing.T) *targetserver.Running {
	t.Helper()
	r, err := targetserver.StartHTTP(context.Background(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}
