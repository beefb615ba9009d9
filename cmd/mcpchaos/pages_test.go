package main

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// endlessPagesServer is an SDK server over loopback HTTP whose tools/list
// has no end: each page names one tool and a next cursor, and the fourth
// page never comes.
func endlessPagesServer(t *testing.T) string {
	t.Helper()
	return pagesServer(t, 3)
}

// pagesServer is endlessPagesServer whose page after the first pages never
// comes (0: no page at all).
func pagesServer(t *testing.T, pages int64) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "endless-pages", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "t0", InputSchema: rawSchema(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	release := make(chan struct{})
	var asked atomic.Int64
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			n := asked.Add(1)
			if n > pages {
				select {
				case <-ctx.Done():
				case <-release:
				}
				return nil, ctx.Err()
			}
			name := "t" + strconv.FormatInt(n, 10)
			return &sdk.ListToolsResult{Tools: []*sdk.Tool{{Name: name, InputSchema: map[string]any{"type": "object"}}},
				NextCursor: "after-" + name}, nil
		}
	})
	url := serveSDKStateless(t, s)
	t.Cleanup(func() { close(release) }) // runs before the server's close: no handler left waiting
	return url
}

// TestToolsListWithoutEnd: `tools` and `init` against a list that does
// not end in --timeout name that timeout, the page and the tools so far,
// not the milliseconds the last page had left. 10 s: up to 5 s for
// connecting, then pages 1 to 3, on a starved machine.
func TestToolsListWithoutEnd(t *testing.T) {
	for _, cmd := range []string{"tools", "init"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			url := endlessPagesServer(t)
			args := []string{cmd, "--timeout", "10s", url}
			if cmd == "init" {
				args = []string{cmd, "-o", "-", "--timeout", "10s", url}
			}
			code, _, stderr := runCLI(t, t.Context(), args...)
			want := "within --timeout 10s: tools/list: the list did not end in the time given at page 4 (3 tools so far)"
			if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "timed out after") {
				t.Errorf("%s: exit code %d, stderr:\n%s\nwant exit code 2 and %q", cmd, code, stderr, want)
			}
		})
	}
}

// TestToolsListSilent: a tools/list that never answers ends in --timeout,
// and the message names it as given, not the time the request had left
// once connected.
func TestToolsListSilent(t *testing.T) {
	url := pagesServer(t, 0)
	code, _, stderr := runCLI(t, t.Context(), "tools", "--timeout", "10s", url)
	if want := "timed out after 10s"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit code %d, stderr:\n%s\nwant exit code 2 and %q", code, stderr, want)
	}
}
