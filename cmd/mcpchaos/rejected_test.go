package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// badHeaderServer is a 2026 (stateless) SDK server with a tool whose
// x-mcp-header annotation keeps the rules (route) and one whose annotation
// is not an HTTP token (bad), which a Streamable HTTP client must leave
// out. The SDK refuses such a tool, so its answers are rewritten on the
// way out: "Ratio" becomes "Ra:io" (the same length).
func badHeaderServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "bad-header-server", Version: "1"}, nil)
	ok := func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
	}
	sdk.AddTool(s, &sdk.Tool{Name: "route", Description: "Routed by region.",
		InputSchema: rawSchema(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}, ok)
	sdk.AddTool(s, &sdk.Tool{Name: "bad", Description: "A header on a number.",
		InputSchema: rawSchema(`{"type":"object","properties":{"ratio":{"type":"string","x-mcp-header":"Ratio"}}}`)}, ok)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(rewriter{w}, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

type rewriter struct{ http.ResponseWriter }

func (w rewriter) Write(b []byte) (int, error) {
	return w.ResponseWriter.Write(bytes.ReplaceAll(b, []byte(`"x-mcp-header":"Ratio"`), []byte(`"x-mcp-header":"Ra:io"`)))
}

// TestRejectedParamHeaderTools: tools, init and the pre-run check leave
// out a tool whose x-mcp-header annotations break the spec's rules, with a
// warning on stderr naming the tool and the rule; a scenario that calls it
// stops before the load.
func TestRejectedParamHeaderTools(t *testing.T) {
	t.Parallel()
	url := badHeaderServer(t)
	warning := regexp.MustCompile(`warning: tool "bad" is left out: its x-mcp-header annotations break the spec's rules \(x-mcp-header Ra:io of property /ratio is not an HTTP token\)`)
	t.Run("tools", func(t *testing.T) {
		code, out, errOut := runCLI(t, context.Background(), "tools", url)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		if !strings.Contains(out, "Tools      1\n") || !strings.Contains(out, "\nroute") || strings.Contains(out, "\nbad") {
			t.Errorf("the listing keeps the bad tool or loses the good one:\n%s", out)
		}
		if !warning.MatchString(errOut) || !strings.HasPrefix(errOut, "mcpchaos tools: warning: ") {
			t.Errorf("stderr does not warn about the bad tool:\n%s", errOut)
		}
	})
	t.Run("run calls it", func(t *testing.T) {
		path := writeScenario(t, "bad.yaml", `name: bad
target:
  http: {url: "`+url+`"}
load: {rate: 10/1s, duration: 300ms}
orphans: {grace: 100ms}
calls:
  - {tool: route, arguments: {region: eu}}
  - {tool: bad, arguments: {ratio: half}}
`)
		code, _, errOut := runCLI(t, context.Background(), "run", "-q", path)
		if code != 2 {
			t.Fatalf("exit %d, want 2\n%s", code, errOut)
		}
		want := `bad.yaml:8:5: calls[1]: the server's tool "bad" is left out: its x-mcp-header annotations break the spec's rules`
		if !strings.Contains(errOut, want) || !warning.MatchString(errOut) {
			t.Errorf("stderr does not say %q and warn:\n%s", want, errOut)
		}
	})
	t.Run("run leaves it alone", func(t *testing.T) {
		path := writeScenario(t, "good.yaml", `name: good
target:
  http: {url: "`+url+`"}
load: {rate: 10/1s, duration: 300ms}
orphans: {grace: 100ms}
calls:
  - {tool: route, arguments: {region: eu}}
`)
		code, _, errOut := runCLI(t, context.Background(), "run", "-q", path)
		if code != 0 || !warning.MatchString(errOut) {
			t.Errorf("exit %d, want 0 with the warning\n%s", code, errOut)
		}
	})
}
